import { inTx } from '../../../db/data-source.js';
import { isNewPinAllowed, listPinned, moveIssuePin, pinIssue, unpinIssue } from '../../../db/models/issues/pins.js';
import { loadIssue } from '../../context/issue.js';
import { noContent, ok, route } from '../../http/route.js';
import { renderIssues } from './render.js';
import { issuesRepo } from './issues.js';

const admin = { mode: 'admin' } as const;

export const pinRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/issues/pinned', operationId: 'repoListPinnedIssues', summary: "List a repo's pinned issues", tag: 'repository',
    scope: 'read:repository', repo: { unit: 'repo.issues' }, responses: { 200: 'IssueList' },
    handle: async ({ deps, repo }) => ok(await renderIssues(deps, await listPinned(deps.db, repo.repo.id, false), [repo.repo])),
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/new_pin_allowed', operationId: 'repoNewPinAllowed', summary: 'Returns if new Issue Pins are allowed', tag: 'repository',
    scope: 'read:repository', repo: issuesRepo, responses: { 200: 'RepoNewIssuePinsAllowed' },
    handle: async ({ deps, repo }) => {
      const max = deps.config.repositoryIssue.maxPinned;
      const [issues, pullRequests] = await Promise.all([
        isNewPinAllowed(deps.db, repo.repo.id, false, max), isNewPinAllowed(deps.db, repo.repo.id, true, max),
      ]);
      return ok({ issues, pull_requests: pullRequests });
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/issues/{index}/pin', operationId: 'pinIssue', summary: 'Pin an Issue', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: admin, ids: ['index'], responses: { 204: 'empty', 422: 'validationError' },
    handle: async ({ deps, repo, doer, ids }) => {
      const { issue } = await loadIssue(deps, repo, ids.index);
      await inTx(deps, (tx) => pinIssue(tx, issue, doer, deps.config.repositoryIssue.maxPinned));
      return noContent();
    },
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/issues/{index}/pin', operationId: 'unpinIssue', summary: 'Unpin an Issue', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: admin, ids: ['index'], responses: { 204: 'empty' },
    handle: async ({ deps, repo, doer, ids }) => {
      const { issue } = await loadIssue(deps, repo, ids.index);
      await inTx(deps, (tx) => unpinIssue(tx, issue, doer));
      return noContent();
    },
  }),
  route({
    method: 'patch', path: '/repos/{owner}/{repo}/issues/{index}/pin/{position}', operationId: 'moveIssuePin', summary: 'Moves the Pin to the given Position', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: admin, ids: ['index', 'position'], responses: { 204: 'empty', 422: 'validationError' },
    handle: async ({ deps, repo, ids }) => {
      const { issue } = await loadIssue(deps, repo, ids.index);
      await inTx(deps, (tx) => moveIssuePin(tx, issue, ids.position));
      return noContent();
    },
  }),
];
