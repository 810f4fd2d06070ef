import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { badRequest, forbidden, notFound } from '../../../db/errors.js';
import { isTimetrackerEnabled, isUnitEnabled, issuesUnitModeOf, mayTrackTime } from '../../../db/models/access.js';
import type { IssueRow } from '../../../db/models/issues/issue-row.js';
import { issuesByIds } from '../../../db/models/issues/issues.js';
import { cancelStopwatch, listStopwatches, startStopwatch, stopStopwatch } from '../../../db/models/issues/stopwatches.js';
import {
  addTrackedTime, deleteTrackedTime, getTrackedTime, listTrackedTimes, resetTrackedTimes, type TrackedTimeFilter, type TrackedTimeRow,
} from '../../../db/models/issues/tracked-times.js';
import { accessModes } from '../../../db/models/repos/repo-row.js';
import { findReposByIds } from '../../../db/models/repos/repos.js';
import { findUserByName, findUsersByIds } from '../../../db/models/users/users.js';
import type { UserRow } from '../../../db/models/users/user-row.js';
import { loadIssue, type LoadedIssue } from '../../context/issue.js';
import type { LoadedRepo } from '../../context/repo.js';
import type { Deps } from '../../deps.js';
import { created, noContent, ok, route } from '../../http/route.js';
import { renderStopwatch, renderTrackedTime, type ApiTrackedTime } from '../../render/tracked-time.js';
import { issuesRepo } from './issues.js';
import { renderIssues } from './render.js';
import { dateTime, dateTimeQuery } from './schemas.js';

/** Gitea's AddTimeOption: seconds, when (now by default), and whose time it is (administrators only). */
const addTimeBody = z.object({
  time: z.number().int().positive(),
  created: dateTime.optional(),
  user_name: z.string().optional(),
});
const timesQuery = z.object({ user: z.string().optional(), since: dateTimeQuery, before: dateTimeQuery });
const myTimesQuery = z.object({ since: dateTimeQuery, before: dateTimeQuery });

/** Tracked times with their users and issues (one query each, whatever the number of repositories). */
async function renderTimes(deps: Deps, rows: TrackedTimeRow[]): Promise<ApiTrackedTime[]> {
  const [users, issues] = await Promise.all([findUsersByIds(deps.db, rows.map((row) => row.user_id)), issuesByIds(deps.db, rows.map((row) => row.issue_id))]);
  const issueRows = [...issues.values()];
  const repos = await findReposByIds(deps.db, [...new Set(issueRows.map((issue) => issue.repo_id))]);
  const rendered = new Map((await renderIssues(deps, issueRows, repos)).map((issue) => [issue.id, issue]));
  return rows.map((row) => renderTrackedTime(row, users.get(row.user_id ?? 0) ?? null, rendered.get(row.issue_id) ?? null));
}

const trackerOn = (deps: Deps, repo: LoadedRepo): boolean => isTimetrackerEnabled(repo.repo, deps.config.service.enableTimetracking);

/** Gitea's CanUseTimetracker check of the time routes: 400 while time tracking is off, 403 for a user who may not track. */
async function requireTimetracker(deps: Deps, repo: LoadedRepo, loaded: LoadedIssue, doer: UserRow): Promise<void> {
  if (!trackerOn(deps, repo)) throw badRequest('time tracking disabled');
  if (!(await mayTrackTime(deps.db, repo.repo, loaded.issue, doer, loaded.mode))) throw forbidden('user may not track time on this issue');
}

/** Gitea's prepareIssueStopwatch: a writer of the unit who may track time. */
async function loadForStopwatch(deps: Deps, repo: LoadedRepo, index: number, doer: UserRow): Promise<IssueRow> {
  const loaded = await loadIssue(deps, repo, index);
  if (loaded.mode < accessModes.write) throw forbidden('user should have permission to write issues or pull requests');
  if (!trackerOn(deps, repo) || !(await mayTrackTime(deps.db, repo.repo, loaded.issue, doer, loaded.mode))) throw forbidden('cannot use the time tracker');
  return loaded.issue;
}

/**
 * The `user` filter of the issue and repository lists: writers of the issues unit and site administrators may name
 * anyone; others see their own times and may only name themselves (403 otherwise).
 */
async function ownerFilter(deps: Deps, repo: LoadedRepo, doer: UserRow, userName: string | undefined): Promise<number> {
  const named = userName ? await findUserByName(deps.db, userName) : undefined;
  if (named === null) throw notFound(`user ${userName} does not exist`);
  const writer = (await issuesUnitModeOf(deps.db, doer, repo.repo, false)) >= accessModes.write;
  if (doer.is_admin || writer || named?.id === doer.id) return named?.id ?? 0;
  if (named) throw forbidden('query by user not allowed; not enough rights');
  return doer.id;
}

/** Gitea's mustEnableIssues of the repository's time lists: 404 unless the caller can read its issues. */
async function requireIssuesReadable(deps: Deps, repo: LoadedRepo, doer: UserRow): Promise<void> {
  if (!isUnitEnabled(repo.repo, 'repo.issues') || (await issuesUnitModeOf(deps.db, doer, repo.repo, false)) < accessModes.read) {
    throw notFound('issues are not enabled in this repository');
  }
}

const filterOf = (userId: number, query: { since?: Date; before?: Date }): TrackedTimeFilter =>
  ({ userId: userId || undefined, since: query.since, before: query.before });

export const trackedTimeRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/issues/{index}/times', operationId: 'issueTrackedTimes', summary: "List an issue's tracked times", tag: 'issue',
    scope: 'read:issue', signedIn: true, repo: issuesRepo, ids: ['index'], query: timesQuery, paginated: true, responses: { 200: 'TrackedTimeList' },
    handle: async ({ deps, repo, doer, ids, query, page, list }) => {
      if (!trackerOn(deps, repo)) throw notFound('Timetracker is disabled');
      const { issue } = await loadIssue(deps, repo, ids.index);
      const filter = { ...filterOf(await ownerFilter(deps, repo, doer, query.user), query), issueId: issue.id };
      const { rows, total } = await listTrackedTimes(deps.db, filter, page);
      return list(await renderTimes(deps, rows), total);
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/issues/{index}/times', operationId: 'issueAddTime', summary: 'Add tracked time to a issue', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: issuesRepo, ids: ['index'], body: addTimeBody, responses: { 200: 'TrackedTime', 400: 'error', 403: 'forbidden' },
    handle: async ({ deps, repo, doer, ids, body }) => {
      const loaded = await loadIssue(deps, repo, ids.index);
      await requireTimetracker(deps, repo, loaded, doer);
      let user = doer;
      // repository administrators may record another user's time, site administrators anyone's (Gitea's rule)
      if (body.user_name && ((repo.repoMode >= accessModes.admin && body.user_name !== doer.name) || doer.is_admin)) {
        const named = await findUserByName(deps.db, body.user_name);
        if (!named) throw notFound(`user ${body.user_name} does not exist`);
        user = named;
      }
      const time = await inTx(deps, (tx) => addTrackedTime(tx, loaded.issue, user, body.time, body.created));
      return ok((await renderTimes(deps, [time]))[0]);
    },
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/issues/{index}/times', operationId: 'issueResetTime', summary: 'Reset a tracked time of an issue', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: issuesRepo, ids: ['index'], responses: { 204: 'empty', 400: 'error', 403: 'forbidden' },
    handle: async ({ deps, repo, doer, ids }) => {
      const loaded = await loadIssue(deps, repo, ids.index);
      await requireTimetracker(deps, repo, loaded, doer);
      await inTx(deps, (tx) => resetTrackedTimes(tx, loaded.issue, doer));
      return noContent();
    },
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/issues/{index}/times/{id}', operationId: 'issueDeleteTime', summary: 'Delete specific tracked time', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: issuesRepo, ids: ['index', 'id'], responses: { 204: 'empty', 400: 'error', 403: 'forbidden' },
    handle: async ({ deps, repo, doer, ids }) => {
      const loaded = await loadIssue(deps, repo, ids.index);
      await requireTimetracker(deps, repo, loaded, doer);
      const time = await getTrackedTime(deps.db, loaded.issue, ids.id);
      if (!doer.is_admin && time.user_id !== doer.id) throw forbidden('only the user who tracked the time and site administrators may delete it');
      const owner = (await findUsersByIds(deps.db, [time.user_id])).get(time.user_id ?? 0) ?? doer;
      await inTx(deps, (tx) => deleteTrackedTime(tx, loaded.issue, time, owner));
      return noContent();
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/times', operationId: 'repoTrackedTimes', summary: "List a repo's tracked times", tag: 'repository',
    scope: 'read:repository', signedIn: true, repo: {}, query: timesQuery, paginated: true, responses: { 200: 'TrackedTimeList', 400: 'error' },
    handle: async ({ deps, repo, doer, query, page, list }) => {
      await requireIssuesReadable(deps, repo, doer);
      if (!trackerOn(deps, repo)) throw badRequest('time tracking disabled');
      const filter = { ...filterOf(await ownerFilter(deps, repo, doer, query.user), query), repoId: repo.repo.id };
      const { rows, total } = await listTrackedTimes(deps.db, filter, page);
      return list(await renderTimes(deps, rows), total);
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/times/{user}', operationId: 'userTrackedTimes', summary: "List a user's tracked times in a repo", tag: 'repository',
    deprecated: true, scope: 'read:repository', signedIn: true, repo: {}, responses: { 200: 'TrackedTimeList', 400: 'error' },
    handle: async ({ deps, repo, doer, params }) => {
      await requireIssuesReadable(deps, repo, doer);
      if (!trackerOn(deps, repo)) throw badRequest('time tracking disabled');
      const user = await findUserByName(deps.db, params.user);
      if (!user) throw notFound(`user ${params.user} does not exist`);
      if (repo.repoMode < accessModes.admin && !doer.is_admin && doer.id !== user.id) throw forbidden('query by user not allowed; not enough rights');
      return ok(await renderTimes(deps, (await listTrackedTimes(deps.db, { repoId: repo.repo.id, userId: user.id })).rows));
    },
  }),
  route({
    method: 'get', path: '/user/times', operationId: 'userCurrentTrackedTimes', summary: "List the current user's tracked times", tag: 'user',
    scope: 'read:user', signedIn: true, query: myTimesQuery, paginated: true, responses: { 200: 'TrackedTimeList' },
    handle: async ({ deps, doer, query, page, list }) => {
      const { rows, total } = await listTrackedTimes(deps.db, { ...filterOf(doer.id, query), readableBy: doer.id }, page);
      return list(await renderTimes(deps, rows), total);
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/issues/{index}/stopwatch/start', operationId: 'issueStartStopWatch', summary: 'Start stopwatch on an issue.', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: issuesRepo, ids: ['index'], responses: { 201: 'empty', 403: 'forbidden', 409: 'error' },
    handle: async ({ deps, repo, doer, ids }) => {
      const issue = await loadForStopwatch(deps, repo, ids.index, doer);
      await inTx(deps, (tx) => startStopwatch(tx, issue, doer));
      return created(undefined);
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/issues/{index}/stopwatch/stop', operationId: 'issueStopStopWatch', summary: "Stop an issue's existing stopwatch.", tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: issuesRepo, ids: ['index'], responses: { 201: 'empty', 403: 'forbidden', 409: 'error' },
    handle: async ({ deps, repo, doer, ids }) => {
      const issue = await loadForStopwatch(deps, repo, ids.index, doer);
      await inTx(deps, (tx) => stopStopwatch(tx, issue, doer));
      return created(undefined);
    },
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/issues/{index}/stopwatch/delete', operationId: 'issueDeleteStopWatch', summary: "Delete an issue's existing stopwatch.", tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: issuesRepo, ids: ['index'], responses: { 204: 'empty', 403: 'forbidden', 409: 'error' },
    handle: async ({ deps, repo, doer, ids }) => {
      const issue = await loadForStopwatch(deps, repo, ids.index, doer);
      await inTx(deps, (tx) => cancelStopwatch(tx, issue, doer));
      return noContent();
    },
  }),
  route({
    method: 'get', path: '/user/stopwatches', operationId: 'userGetStopWatches', summary: 'Get list of all existing stopwatches', tag: 'user',
    scope: 'read:user', signedIn: true, paginated: true, responses: { 200: 'StopWatchList' },
    handle: async ({ deps, doer, page, list }) => {
      const { rows, total } = await listStopwatches(deps.db, doer.id, page);
      return list(rows.map(renderStopwatch), total);
    },
  }),
];
