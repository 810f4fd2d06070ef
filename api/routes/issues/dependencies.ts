import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { notFound } from '../../../db/errors.js';
import { areDependenciesEnabled } from '../../../db/models/access.js';
import { addDependency, removeDependency, type DependencyDirection } from '../../../db/models/issues/dependencies.js';
import type { IssueRow } from '../../../db/models/issues/issue-row.js';
import { accessModes } from '../../../db/models/repos/repo-row.js';
import type { UserRow } from '../../../db/models/users/user-row.js';
import { loadVisibleDependencies } from '../../../db/views/dependencies.js';
import { loadIssue } from '../../context/issue.js';
import { loadIssueFromMeta, type IssueMeta, type IssueWithMode } from '../../context/issue-meta.js';
import type { LoadedRepo } from '../../context/repo.js';
import type { Deps } from '../../deps.js';
import type { Page } from '../../http/pagination.js';
import { created, ok, route, type Reply } from '../../http/route.js';
import { issueChange, issuesRepo } from './issues.js';
import { renderIssues, renderOneIssue } from './render.js';

/** Gitea's IssueMeta; owner and repo default to the route's repository. */
const issueMetaBody = z.object({ index: z.number().int().positive(), owner: z.string().optional(), repo: z.string().optional() });

/**
 * Adds or removes a dependency through either end. The path's issue is the blocked one on `/dependencies` and the
 * blocker on `/blocks`; the body names the other. The blocked issue's repository must have dependencies on and
 * the caller must write its unit; the blocker must be readable. Every refusal is a 404, as Gitea's createIssueDependency.
 */
async function changeDependency(
  deps: Deps, repo: LoadedRepo, doer: UserRow, index: number, meta: IssueMeta, side: DependencyDirection, change: 'add' | 'remove',
): Promise<IssueRow> {
  const { issue, mode } = await loadIssue(deps, repo, index);
  const here: IssueWithMode = { issue, mode, repo: repo.repo };
  const there = await loadIssueFromMeta(deps, repo, meta);
  const [blocked, blocker] = side === 'dependencies' ? [here, there] : [there, here];
  if (blocked.repo.is_archived || !areDependenciesEnabled(blocked.repo)) throw notFound('the repository of the blocked issue has no dependencies');
  if (blocked.mode < accessModes.write) throw notFound();
  const write = change === 'add' ? addDependency : removeDependency;
  await inTx(deps, (tx) => write(tx, blocked.issue, blocker.issue, doer));
  return issue;
}

/** One side of the path issue's dependencies, as the caller may see it, a page at a time. */
async function listSide(deps: Deps, repo: LoadedRepo, doer: UserRow | null, index: number, side: DependencyDirection, page: Page, list: (items: unknown[], total: number) => Reply): Promise<Reply> {
  if (side === 'dependencies' && !areDependenciesEnabled(repo.repo)) throw notFound('dependencies are not enabled in this repository');
  const { issue } = await loadIssue(deps, repo, index);
  const { issues, repos } = await loadVisibleDependencies(deps.db, issue.id, side, doer);
  return list(await renderIssues(deps, issues.slice(page.offset, page.offset + page.limit), repos), issues.length);
}

export const dependencyRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/issues/{index}/dependencies', operationId: 'issueListIssueDependencies',
    summary: "List an issue's dependencies, i.e all issues that block this issue.", tag: 'issue',
    scope: 'read:issue', repo: issuesRepo, ids: ['index'], paginated: true, responses: { 200: 'IssueList' },
    handle: async ({ deps, repo, doer, ids, page, list }) => listSide(deps, repo, doer, ids.index, 'dependencies', page, list),
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/issues/{index}/dependencies', operationId: 'issueCreateIssueDependencies',
    summary: 'Make the issue in the url depend on the issue in the form.', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: issueChange, ids: ['index'], body: issueMetaBody, responses: { 201: 'Issue', 400: 'error', 422: 'validationError', 423: 'error' },
    handle: async ({ deps, repo, doer, ids, body }) =>
      created(await renderOneIssue(deps, await changeDependency(deps, repo, doer, ids.index, body, 'dependencies', 'add'), repo.repo)),
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/issues/{index}/dependencies', operationId: 'issueRemoveIssueDependencies', summary: 'Remove an issue dependency', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: issueChange, ids: ['index'], body: issueMetaBody, responses: { 200: 'Issue', 400: 'error', 423: 'error' },
    handle: async ({ deps, repo, doer, ids, body }) =>
      ok(await renderOneIssue(deps, await changeDependency(deps, repo, doer, ids.index, body, 'dependencies', 'remove'), repo.repo)),
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/issues/{index}/blocks', operationId: 'issueListBlocks', summary: 'List issues that are blocked by this issue', tag: 'issue',
    scope: 'read:issue', repo: issuesRepo, ids: ['index'], paginated: true, responses: { 200: 'IssueList' },
    handle: async ({ deps, repo, doer, ids, page, list }) => listSide(deps, repo, doer, ids.index, 'blocks', page, list),
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/issues/{index}/blocks', operationId: 'issueCreateIssueBlocking',
    summary: 'Block the issue given in the body by the issue in path', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: issuesRepo, ids: ['index'], body: issueMetaBody, responses: { 201: 'Issue', 400: 'error', 422: 'validationError' },
    handle: async ({ deps, repo, doer, ids, body }) =>
      created(await renderOneIssue(deps, await changeDependency(deps, repo, doer, ids.index, body, 'blocks', 'add'), repo.repo)),
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/issues/{index}/blocks', operationId: 'issueRemoveIssueBlocking',
    summary: 'Unblock the issue given in the body by the issue in path', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: issuesRepo, ids: ['index'], body: issueMetaBody, responses: { 200: 'Issue', 400: 'error' },
    handle: async ({ deps, repo, doer, ids, body }) =>
      ok(await renderOneIssue(deps, await changeDependency(deps, repo, doer, ids.index, body, 'blocks', 'remove'), repo.repo)),
  }),
];
