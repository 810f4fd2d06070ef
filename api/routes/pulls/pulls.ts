import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { forbidden, notFound } from '../../../db/errors.js';
import { editPull } from '../../../db/models/pulls/pull-edit.js';
import { accessModes } from '../../../db/models/repos/repo-row.js';
import { findPullByBranches, findPullByMergedCommit, findPullOfIssue } from '../../../db/models/pulls/pulls.js';
import type { PullRow } from '../../../db/models/pulls/pull-row.js';
import { listPulls } from '../../../db/models/pulls/pull-list.js';
import { openPull, resolveHead } from '../../../db/models/pulls/pull-options.js';
import { findUserByName } from '../../../db/models/users/users.js';
import { findIssueById } from '../../../db/models/issues/issues.js';
import { listPinned } from '../../../db/models/issues/pins.js';
import { loadPull, renderOnePull, renderPulls } from '../../context/pull.js';
import { created, ok, route } from '../../http/route.js';
import { dateTime } from '../issues/schemas.js';
import { queryId } from '../../http/fields.js';

const id = z.number().int().nonnegative();

export const createPullBody = z.object({
  head: z.string().min(1, 'Required'),
  base: z.string().min(1, 'Required'),
  title: z.string().min(1, 'Required'),
  body: z.string().optional(),
  assignee: z.string().optional(),
  assignees: z.array(z.string()).optional(),
  milestone: id.optional(),
  labels: z.array(id).optional(),
  due_date: dateTime.optional(),
});

/** A query parameter that may be given more than once (`labels=1&labels=2`). */
const repeated = z.preprocess((value) => (value === undefined ? [] : Array.isArray(value) ? value : [value]), z.array(z.string()));

export const editPullBody = z.object({
  title: z.string().optional(),
  body: z.string().optional(),
  base: z.string().optional(),
  assignee: z.string().optional(),
  assignees: z.array(z.string()).optional(),
  milestone: id.optional(),
  labels: z.array(id).optional(),
  state: z.enum(['open', 'closed']).optional(),
  due_date: dateTime.optional(),
  unset_due_date: z.boolean().optional(),
  allow_maintainer_edit: z.boolean().optional(),
});

const listPullsQuery = z.object({
  state: z.enum(['open', 'closed', 'all']).optional(),
  sort: z.enum(['oldest', 'recentupdate', 'leastupdate', 'mostcomment', 'leastcomment', 'priority']).optional(),
  milestone: queryId().optional(),
  labels: repeated.optional(),
  poster: z.string().optional(),
});

export const pullRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/pulls', operationId: 'repoListPullRequests', summary: "List a repo's pull requests", tag: 'repository',
    scope: 'read:repository', repo: { unit: 'repo.pulls' }, query: listPullsQuery, paginated: true, responses: { 200: 'PullRequestList', 404: 'notFound' },
    handle: async ({ deps, repo, doer, query, page, list }) => {
      let posterId: number | undefined;
      if (query.poster) {
        const poster = await findUserByName(deps.db, query.poster);
        if (!poster) throw notFound(`user redirect does not exist [name: ${query.poster}]`);
        posterId = poster.id;
      }
      const labelIds = (query.labels ?? []).map(Number).filter((n) => Number.isSafeInteger(n) && n > 0);
      const { rows, total } = await listPulls(deps.db, repo.repo.id, {
        state: query.state ?? 'open', sort: query.sort, milestoneId: query.milestone || undefined, labelIds, posterId,
      }, page);
      return list(await renderPulls(deps, repo, rows, doer), total);
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/pulls', operationId: 'repoCreatePullRequest', summary: 'Create a pull request', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: { unit: 'repo.pulls', notArchived: true }, body: createPullBody,
    responses: { 201: 'PullRequest', 403: 'forbidden', 404: 'notFound', 409: 'error', 422: 'validationError', 423: 'error' },
    handle: async ({ deps, repo, doer, body }) => {
      const { issue, pull } = await inTx(deps, (tx) => openPull(tx, deps, repo.repo, doer, body));
      return created(await renderOnePull(deps, repo, pull, issue, doer));
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/pulls/pinned', operationId: 'repoListPinnedPullRequests', summary: "List a repo's pinned pull requests",
    tag: 'repository', scope: 'read:repository', repo: { unit: 'repo.pulls' }, responses: { 200: 'PullRequestList', 404: 'notFound' },
    handle: async ({ deps, repo, doer }) => {
      const issues = await listPinned(deps.db, repo.repo.id, true);
      const pulls = await Promise.all(issues.map(async (issue) => ({ issue, pull: await findPullOfIssue(deps.db, issue.id) })));
      return ok(await renderPulls(deps, repo, pulls.filter((p) => p.pull !== null).map((p) => ({ issue: p.issue, pull: p.pull! })), doer));
    },
  }),
  route({
    method: 'patch', path: '/repos/{owner}/{repo}/pulls/{index}', operationId: 'repoEditPullRequest',
    summary: 'Update a pull request. If using deadline only the date will be taken into account, and time of day ignored.', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: { unit: 'repo.pulls' }, ids: ['index'], body: editPullBody,
    responses: { 201: 'PullRequest', 403: 'forbidden', 404: 'notFound', 409: 'error', 412: 'error', 422: 'validationError' },
    handle: async ({ deps, repo, doer, ids, body }) => {
      const loaded = await loadPull(deps, repo, ids.index);
      const canWrite = loaded.mode >= accessModes.write;
      if (loaded.issue.poster_id !== doer.id && !canWrite) throw forbidden('only the poster or a writer can edit a pull request');
      const { pull, issue } = await inTx(deps, (tx) => editPull(tx, deps, repo.repo, loaded.pull, loaded.issue, doer, body, canWrite));
      return created(await renderOnePull(deps, repo, pull, issue, doer));
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/pulls/{index}', operationId: 'repoGetPullRequest', summary: 'Get a pull request', tag: 'repository',
    scope: 'read:repository', repo: { unit: 'repo.pulls' }, ids: ['index'], responses: { 200: 'PullRequest', 404: 'notFound' },
    handle: async ({ deps, repo, doer, ids }) => {
      const { pull, issue } = await loadPull(deps, repo, ids.index);
      return ok(await renderOnePull(deps, repo, pull, issue, doer));
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/commits/{sha}/pull', operationId: 'repoGetCommitPullRequest',
    summary: 'Get the merged pull request of the commit', tag: 'repository', scope: 'read:repository', repo: { unit: 'repo.pulls' },
    responses: { 200: 'PullRequest', 404: 'notFound' },
    handle: async ({ deps, repo, doer, params }) => {
      const pull = await findPullByMergedCommit(deps.db, repo.repo.id, params.sha);
      const issue = pull && (await findIssueById(deps.db, pull.issue_id));
      if (!pull || !issue) throw notFound(`pull request does not exist [merged commit: ${params.sha}]`);
      return ok(await renderOnePull(deps, repo, pull, issue, doer));
    },
  }),
];

/** Registered after every other `/pulls/{index}/…` route: `{base}/{head}` would match them all. */
export const pullByBranchesRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/pulls/{base}/{head}', rest: 'head', operationId: 'repoGetPullRequestByBaseHead',
    summary: 'Get a pull request by base and head', tag: 'repository', scope: 'read:repository', repo: { unit: 'repo.pulls' },
    responses: { 200: 'PullRequest', 404: 'notFound' },
    handle: async ({ deps, repo, doer, params }) => {
      const head = await resolveHead(deps.db, repo.repo, doer, params.head).catch(() => null);
      const pull = head && (await findPullByBranches(deps.db, head.repo.id, head.branch, repo.repo.id, params.base));
      const issue = pull && (await findIssueById(deps.db, pull.issue_id));
      if (!pull || !issue) throw notFound(`pull request does not exist [base: ${params.base}, head: ${params.head}]`);
      return ok(await renderOnePull(deps, repo, pull, issue, doer));
    },
  }),
];
