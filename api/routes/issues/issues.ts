import { inTx } from '../../../db/data-source.js';
import { editIssue, openIssue } from '../../../db/models/issues/issue-options.js';
import { accessModes } from '../../../db/models/repos/repo-row.js';
import { issueUnitMode, loadIssue } from '../../context/issue.js';
import { z } from 'zod';
import { forbidden } from '../../../db/errors.js';
import { issuePagePreload, listIssues } from '../../../db/models/issues/issue-list.js';
import { deleteIssue, setIssueDeadline } from '../../../db/models/issues/issues.js';
import { endOfDay } from '../../../db/models/issues/issue-options.js';
import { removeIssueAttachmentFiles } from '../../../db/models/issues/issue-attachments.js';
import { iso } from '../../render/time.js';
import { created, noContent, ok, route } from '../../http/route.js';
import { createIssueBody, dateTime, editIssueBody } from './schemas.js';
import { filtersByStateOnly, issueFilterOf, listIssuesQuery } from './issue-queries.js';
import { renderIssuePage, renderOneIssue } from './render.js';

/** Gitea's mustEnableIssuesOrPulls + repoAssignment: the unit is checked per issue (issues or pull requests). */
export const issuesRepo = {} as const;
/** An issue or pull request change, refused in an archived repository. */
export const issueChange = { notArchived: true } as const;

export const issueRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/issues', operationId: 'issueListIssues', summary: "List a repository's issues", tag: 'issue',
    scope: 'read:issue', repo: issuesRepo, query: listIssuesQuery, paginated: true, responses: { 200: 'IssueList' },
    preload: ({ page, query }) => (filtersByStateOnly(query) ? issuePagePreload(query.state ?? 'open', page) : undefined),
    handle: async ({ deps, repo, query, page, list, preloaded }) => {
      const { rows, total } = await listIssues(deps.db, repo.repo, await issueFilterOf(deps, repo, query), page, preloaded);
      return list(await renderIssuePage(deps, rows, repo.repo), total);
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/issues', operationId: 'issueCreateIssue',
    summary: 'Create an issue. If using deadline only the date will be taken into account, and time of day ignored.', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: { unit: 'repo.issues', notArchived: true }, body: createIssueBody,
    responses: { 201: 'Issue', 412: 'error', 422: 'validationError', 423: 'error' },
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
  route({
    method: 'patch', path: '/repos/{owner}/{repo}/issues/{index}', operationId: 'issueEditIssue',
    summary: 'Edit an issue. If using deadline only the date will be taken into account, and time of day ignored.', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: issuesRepo, ids: ['index'], body: editIssueBody,
    responses: { 201: 'Issue', 400: 'error', 412: 'error', 422: 'validationError' },
    handle: async ({ deps, repo, doer, ids, body }) => {
      const { issue, mode } = await loadIssue(deps, repo, ids.index);
      const canWrite = mode >= accessModes.write;
      if (issue.poster_id !== doer.id && !canWrite) throw forbidden('only the poster or a writer can edit an issue');
      const row = await inTx(deps, (tx) => editIssue(tx, repo.repo, issue, doer, body, canWrite));
      return created(await renderOneIssue(deps, row, repo.repo));
    },
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/issues/{index}', operationId: 'issueDelete', summary: 'Delete an issue', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: { mode: 'admin' }, ids: ['index'], responses: { 204: 'empty' },
    handle: async ({ deps, repo, doer, ids }) => {
      const { issue } = await loadIssue(deps, repo, ids.index);
      await inTx(deps, async (tx) => {
        await removeIssueAttachmentFiles(tx, deps.blobs, issue.id);
        await deleteIssue(tx, deps, repo.repo, issue, doer);
      });
      return noContent();
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/issues/{index}/deadline', operationId: 'issueEditIssueDeadline',
    summary: 'Set an issue deadline. If set to null, the deadline is deleted. If using deadline only the date will be taken into account, and time of day ignored.',
    tag: 'issue', scope: 'write:issue', signedIn: true, repo: issuesRepo, ids: ['index'], body: z.object({ due_date: dateTime.optional() }),
    responses: { 201: 'IssueDeadline' },
    handle: async ({ deps, repo, doer, ids, body }) => {
      const { issue, mode } = await loadIssue(deps, repo, ids.index);
      if (mode < accessModes.write) throw forbidden('Not repo writer');
      const deadline = body.due_date ? endOfDay(body.due_date) : null;
      await inTx(deps, (tx) => setIssueDeadline(tx, repo.repo, issue, doer, deadline));
      return created({ due_date: deadline ? iso(deadline) : '0001-01-01T00:00:00Z' });
    },
  }),
];
