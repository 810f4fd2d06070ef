import { inTx } from '../../../db/data-source.js';
import { editIssue, openIssue } from '../../../db/models/issues/issue-options.js';
import { accessModes } from '../../../db/models/repos/repo-row.js';
import { issueUnitMode, loadIssue } from '../../context/issue.js';
import { created, ok, route } from '../../http/route.js';
import { createIssueBody } from './schemas.js';
import { renderOneIssue } from './render.js';

/** Gitea's mustEnableIssuesOrPulls + repoAssignment: the unit is checked per issue (issues or pull requests). */
export const issuesRepo = {} as const;

export const issueRoutes = [
  route({
    method: 'post', path: '/repos/{owner}/{repo}/issues', operationId: 'issueCreateIssue',
    summary: 'Create an issue. If using deadline only the date will be taken into account, and time of day ignored.', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: { unit: 'repo.issues' }, body: createIssueBody,
    responses: { 201: 'Issue', 412: 'error', 422: 'validationError' },
    handle: async ({ deps, repo, doer, body }) => {
      const canWrite = (await issueUnitMode(deps, repo, false)) >= accessModes.write;
      const issue = await inTx(deps, (tx) => openIssue(tx, repo.repo, doer, body, canWrite));
      return created(await renderOneIssue(deps, issue, repo.repo));
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/issues/{index}', operationId: 'issueGetIssue', summary: 'Get an issue', tag: 'issue',
    scope: 'read:issue', repo: issuesRepo, ids: ['index'], responses: { 200: 'Issue' },
    handle: async ({ deps, repo, ids }) => ok(await renderOneIssue(deps, (await loadIssue(deps, repo, ids.index)).issue, repo.repo)),
  }),
];
