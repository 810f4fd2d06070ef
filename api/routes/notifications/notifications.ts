import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import {
  countUnread, getThread, listThreads, markThreads, notificationSource, notificationStatus, setThreadStatus,
  type NotificationRow, type SourceName, type StatusName,
} from '../../../db/models/notifications/notifications.js';
import { loadNotificationViews } from '../../../db/views/notifications.js';
import type { Deps } from '../../deps.js';
import { ok, route, type Reply } from '../../http/route.js';
import { renderNotification, type ApiNotificationThread } from '../../render/notification.js';

const statusNames = ['unread', 'read', 'pinned'] as const;
const subjectNames = ['issue', 'pull', 'commit', 'repository'] as const;
/** A query parameter given once or repeated (`status-types=unread&status-types=pinned`). */
const repeated = <T extends readonly [string, ...string[]]>(values: T) =>
  z.union([z.enum(values), z.array(z.enum(values))]).transform((v) => (Array.isArray(v) ? v : [v])).optional();
const bool = z.stringbool().optional();
const dateTime = z.iso.datetime({ offset: true }).transform((v) => new Date(v)).optional();

const listQuery = z.object({
  all: bool,
  'status-types': repeated(statusNames),
  'subject-type': repeated(subjectNames),
  since: dateTime,
  before: dateTime,
});
const markQuery = z.object({
  last_read_at: dateTime,
  all: bool,
  'status-types': repeated(statusNames),
  'to-status': z.enum(statusNames).optional(),
});

const statusesOf = (names: readonly StatusName[]): number[] => names.map((name) => notificationStatus[name]);
const sourcesOf = (names: readonly SourceName[] | undefined): number[] | undefined => names?.map((name) => notificationSource[name]);

async function render(deps: Deps, rows: NotificationRow[]): Promise<ApiNotificationThread[]> {
  return (await loadNotificationViews(deps.db, rows)).map((view) => renderNotification(view, deps.config));
}

const reset = (body: unknown): Reply => ({ status: 205, body });
const read = { scope: 'read:notification', signedIn: true } as const;
const write = { scope: 'write:notification', signedIn: true } as const;

/** Gitea's getFindNotificationOptions: unread and pinned threads unless `all` or `status-types` say otherwise. */
function listFilter(userId: number, query: z.output<typeof listQuery>, repoId?: number) {
  return {
    userId,
    repoId,
    statuses: statusesOf(query.all ? statusNames : (query['status-types'] ?? ['unread', 'pinned'])),
    sources: sourcesOf(query['subject-type']),
    since: query.since,
    before: query.before,
  };
}

/** Gitea's notifyReadList: unread threads (or `status-types`, or all) before `last_read_at` become `to-status` (read). */
function markFilter(userId: number, query: z.output<typeof markQuery>, repoId?: number) {
  return {
    userId,
    repoId,
    statuses: statusesOf(query.all ? statusNames : (query['status-types'] ?? ['unread'])),
    lastReadAt: query.last_read_at,
  };
}

export const notificationRoutes = [
  route({
    method: 'get', path: '/notifications', operationId: 'notifyGetList', summary: "List users's notification threads", tag: 'notification',
    ...read, query: listQuery, paginated: true, responses: { 200: 'NotificationThreadList' },
    handle: async ({ deps, doer, query, page, list }) => {
      const { rows, total } = await listThreads(deps.db, listFilter(doer.id, query), page);
      return list(await render(deps, rows), total);
    },
  }),
  route({
    method: 'put', path: '/notifications', operationId: 'notifyReadList', summary: 'Mark notification threads as read, pinned or unread', tag: 'notification',
    ...write, query: markQuery, responses: { 205: 'NotificationThreadList' },
    handle: async ({ deps, doer, query }) => {
      const rows = await inTx(deps, (tx) => markThreads(tx, markFilter(doer.id, query), notificationStatus[query['to-status'] ?? 'read']));
      return reset(await render(deps, rows));
    },
  }),
  route({
    method: 'get', path: '/notifications/new', operationId: 'notifyNewAvailable', summary: 'Check if unread notifications exist', tag: 'notification',
    ...read, responses: { 200: 'NotificationCount' },
    handle: async ({ deps, doer }) => ok({ new: await countUnread(deps.db, doer.id) }),
  }),
  route({
    method: 'get', path: '/notifications/threads/{id}', operationId: 'notifyGetThread', summary: 'Get notification thread by ID', tag: 'notification',
    ...read, ids: ['id'], responses: { 200: 'NotificationThread' },
    handle: async ({ deps, doer, ids }) => ok((await render(deps, [await getThread(deps.db, doer, ids.id)]))[0]),
  }),
  route({
    method: 'patch', path: '/notifications/threads/{id}', operationId: 'notifyReadThread', summary: 'Mark notification thread as read by ID', tag: 'notification',
    ...write, ids: ['id'], query: z.object({ 'to-status': z.enum(statusNames).optional() }), responses: { 205: 'NotificationThread' },
    handle: async ({ deps, doer, ids, query }) => {
      const thread = await getThread(deps.db, doer, ids.id);
      const row = await inTx(deps, (tx) => setThreadStatus(tx, thread, notificationStatus[query['to-status'] ?? 'read']));
      return reset((await render(deps, [row]))[0]);
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/notifications', operationId: 'notifyGetRepoList', summary: "List users's notification threads on a specific repo", tag: 'notification',
    ...read, repo: {}, query: listQuery, paginated: true, responses: { 200: 'NotificationThreadList' },
    handle: async ({ deps, doer, repo, query, page, list }) => {
      const { rows, total } = await listThreads(deps.db, listFilter(doer.id, query, repo.repo.id), page);
      return list(await render(deps, rows), total);
    },
  }),
  route({
    method: 'put', path: '/repos/{owner}/{repo}/notifications', operationId: 'notifyReadRepoList',
    summary: 'Mark notification threads as read, pinned or unread on a specific repo', tag: 'notification',
    ...write, repo: {}, query: markQuery, responses: { 205: 'NotificationThreadList' },
    handle: async ({ deps, doer, repo, query }) => {
      const rows = await inTx(deps, (tx) => markThreads(tx, markFilter(doer.id, query, repo.repo.id), notificationStatus[query['to-status'] ?? 'read']));
      return reset(await render(deps, rows));
    },
  }),
];
