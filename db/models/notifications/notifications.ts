import type { Queryable, Tx } from '../../data-source.js';
import { forbidden, notFound } from '../../errors.js';
import { selectPage, type PageWindow } from '../../sql.js';

/** Gitea's NotificationStatus and NotificationSource numbers. */
export const notificationStatus = { unread: 1, read: 2, pinned: 3 } as const;
export const notificationSource = { issue: 1, pull: 2, commit: 3, repository: 4 } as const;
export type StatusName = keyof typeof notificationStatus;
export type SourceName = keyof typeof notificationSource;

/** A row of `notification`: one thread of one user about one issue or pull request. */
export interface NotificationRow {
  id: number;
  user_id: number;
  repo_id: number;
  status: number;
  source: number;
  issue_id: number;
  commit_id: string;
  comment_id: number | null;
  updated_by: number | null;
  created: Date;
  updated: Date;
}

const columns = 'id::int, user_id::int, repo_id::int, status, source, issue_id::int, commit_id, comment_id::int, updated_by::int, created, updated';

export interface ThreadChange {
  userIds: number[];
  repoId: number;
  issueId: number;
  isPull: boolean;
  commentId: number | null;
  doerId: number;
}

/**
 * The recipients of an event's mail not mailed yet, marked as mailed in the caller's transaction (with their mail
 * jobs): a second run of the event's notify job mails nobody again.
 */
export async function claimEventMails(tx: Tx, eventId: number, userIds: number[]): Promise<Set<number>> {
  if (userIds.length === 0) return new Set();
  const rows = await tx.query<{ user_id: string }>(
    `INSERT INTO event_mail (event_id, user_id) SELECT $1, unnest($2::bigint[]) ON CONFLICT DO NOTHING RETURNING user_id`,
    [eventId, userIds],
  );
  return new Set(rows.map((r) => Number(r.user_id)));
}

/**
 * Gitea's CreateOrUpdateIssueNotifications for the given receivers: a new thread is unread; an existing read
 * thread becomes unread again (pointing at the new comment); an unread or pinned one only records who updated it.
 */
export async function upsertThreads(tx: Tx, change: ThreadChange): Promise<void> {
  if (change.userIds.length === 0) return;
  await tx.query(
    `INSERT INTO notification (user_id, repo_id, status, source, issue_id, comment_id, updated_by)
     SELECT unnest($1::bigint[]), $2, ${notificationStatus.unread}, $3, $4, $5, $6
     ON CONFLICT (user_id, issue_id) DO UPDATE SET
       status = CASE WHEN notification.status = ${notificationStatus.read} THEN ${notificationStatus.unread} ELSE notification.status END,
       comment_id = CASE WHEN notification.status = ${notificationStatus.read} THEN EXCLUDED.comment_id ELSE notification.comment_id END,
       updated_by = EXCLUDED.updated_by, updated = now()`,
    [change.userIds, change.repoId, change.isPull ? notificationSource.pull : notificationSource.issue, change.issueId, change.commentId, change.doerId],
  );
}

export interface ThreadFilter {
  userId: number;
  repoId?: number;
  statuses: number[];
  sources?: number[];
  since?: Date;
  before?: Date;
}

function filterSql(filter: ThreadFilter): { where: string; params: unknown[] } {
  const params: unknown[] = [filter.userId, filter.statuses];
  const clauses = ['user_id = $1', 'status = ANY($2::smallint[])'];
  if (filter.repoId !== undefined) clauses.push(`repo_id = $${params.push(filter.repoId)}`);
  if (filter.sources?.length) clauses.push(`source = ANY($${params.push(filter.sources)}::smallint[])`);
  if (filter.since) clauses.push(`updated >= $${params.push(filter.since)}`);
  if (filter.before) clauses.push(`updated <= $${params.push(filter.before)}`);
  return { where: clauses.join(' AND '), params };
}

/** A user's threads, most recently updated first. */
export async function listThreads(db: Queryable, filter: ThreadFilter, page: PageWindow): Promise<{ rows: NotificationRow[]; total: number }> {
  const { where, params } = filterSql(filter);
  return selectPage<NotificationRow>(db, { select: columns, from: `notification WHERE ${where}`, params, orderBy: 'updated DESC, id DESC', page });
}

export async function countUnread(db: Queryable, userId: number): Promise<number> {
  const [{ n }] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM notification WHERE user_id = $1 AND status = ${notificationStatus.unread}`, [userId]);
  return n;
}

/** A thread of this user; anyone else's is not found. */
/** Gitea's getThread: an unknown thread is 404, another user's 403 unless the caller is a site administrator. */
export async function getThread(db: Queryable, doer: { id: number; is_admin: boolean }, id: number): Promise<NotificationRow> {
  const [row] = await db.query<NotificationRow>(`SELECT ${columns} FROM notification WHERE id = $1`, [id]);
  if (!row) throw notFound('notification');
  if (row.user_id !== doer.id && !doer.is_admin) throw forbidden(`only user itself and admin are allowed to read/change this thread ${row.id}`);
  return row;
}

export async function setThreadStatus(tx: Tx, thread: NotificationRow, status: number): Promise<NotificationRow> {
  const [row] = await tx.query<NotificationRow>(`UPDATE notification SET status = $2, updated = now() WHERE id = $1 RETURNING ${columns}`, [thread.id, status]);
  return row;
}

/** Gitea's notifyReadList: the threads in `statuses` updated before `lastReadAt` (when given) move to `toStatus`, and are answered. */
export async function markThreads(
  tx: Tx, filter: { userId: number; repoId?: number; statuses: number[]; lastReadAt?: Date }, toStatus: number,
): Promise<NotificationRow[]> {
  const { where, params } = filterSql({ userId: filter.userId, repoId: filter.repoId, statuses: filter.statuses, before: filter.lastReadAt });
  return tx.query<NotificationRow>(
    `UPDATE notification SET status = $${params.length + 1}, updated = now()
     WHERE id IN (SELECT id FROM notification WHERE ${where} ORDER BY updated DESC, id DESC FOR UPDATE) RETURNING ${columns}`,
    [...params, toStatus],
  );
}
