import type { Queryable, Tx } from '../../data-source.js';
import { notFound } from '../../errors.js';
import { selectPage, type PageWindow } from '../../sql.js';
import { readableReposCondition } from '../access.js';
import type { UserRow } from '../users/user-row.js';
import { addTimelineComment } from './issue-facts.js';
import { commentType, type IssueRow } from './issue-row.js';

/** A row of the `tracked_time` table: seconds a user spent on an issue. */
export interface TrackedTimeRow {
  id: number;
  issue_id: number;
  /** Null once the user's account is gone. */
  user_id: number | null;
  time: number;
  created: Date;
  deleted: boolean;
}

/** Which tracked times a list shows (Gitea's FindTrackedTimesOptions); `since` and `before` bound `created`, both included. */
export interface TrackedTimeFilter {
  issueId?: number;
  repoId?: number;
  userId?: number;
  since?: Date;
  before?: Date;
  /** Only times on issues of repositories this user may read. */
  readableBy?: number;
}

/** Tracked times that are not deleted, oldest first. */
export async function listTrackedTimes(db: Queryable, filter: TrackedTimeFilter, page?: PageWindow): Promise<{ rows: TrackedTimeRow[]; total: number }> {
  const params: unknown[] = [];
  const conditions = ['NOT t.deleted'];
  const add = (sql: (n: string) => string, value: unknown): void => {
    if (value !== undefined) conditions.push(sql(`$${params.push(value)}`));
  };
  add((n) => `t.issue_id = ${n}`, filter.issueId);
  add((n) => `t.issue_id IN (SELECT id FROM issue WHERE repo_id = ${n})`, filter.repoId);
  add((n) => `t.user_id = ${n}`, filter.userId);
  add((n) => `t.created >= ${n}`, filter.since);
  add((n) => `t.created <= ${n}`, filter.before);
  add((n) => `t.issue_id IN (SELECT i.id FROM issue i JOIN repository r ON r.id = i.repo_id WHERE ${readableReposCondition('r', n)})`, filter.readableBy);
  return selectPage<TrackedTimeRow>(db, { select: 't.*', from: `tracked_time t WHERE ${conditions.join(' AND ')}`, params, orderBy: 't.created, t.id', page });
}

/** One tracked time of the issue, not deleted: 404 otherwise (a time of another issue is as missing as a deleted one). */
export async function getTrackedTime(db: Queryable, issue: IssueRow, id: number): Promise<TrackedTimeRow> {
  const [row] = await db.query<TrackedTimeRow>('SELECT * FROM tracked_time WHERE id = $1 AND issue_id = $2 AND NOT deleted', [id, issue.id]);
  if (!row) throw notFound(`tracked time ${id} does not exist`);
  return row;
}

/** The timeline entry of a tracking change: Gitea stores seconds as `|N` so the page can format them. */
const seconds = (n: number): string => `|${n}`;

/**
 * Records `time` seconds spent by `user` (at `created`, or now) and the timeline entry for it. The timeline
 * shows the user whose time it is, as Gitea's does.
 */
export async function addTrackedTime(tx: Tx, issue: IssueRow, user: UserRow, time: number, created?: Date): Promise<TrackedTimeRow> {
  const [row] = await tx.query<TrackedTimeRow>(
    'INSERT INTO tracked_time (issue_id, user_id, time, created) VALUES ($1, $2, $3, COALESCE($4, now())) RETURNING *',
    [issue.id, user.id, time, created ?? null],
  );
  await addTimelineComment(tx, issue, user, { type: commentType.add_time_manual, content: seconds(time), time_id: row.id });
  return row;
}

/** Deletes every time `user` tracked on the issue (Gitea's DeleteIssueUserTimes); 404 when there is none. */
export async function resetTrackedTimes(tx: Tx, issue: IssueRow, user: UserRow): Promise<void> {
  const removed = await tx.query<{ time: number }>(
    'UPDATE tracked_time SET deleted = true WHERE issue_id = $1 AND user_id = $2 AND NOT deleted RETURNING time',
    [issue.id, user.id],
  );
  if (removed.length === 0) throw notFound('no tracked time of this user on the issue');
  const total = removed.reduce((sum, { time }) => sum + time, 0);
  await addTimelineComment(tx, issue, user, { type: commentType.delete_time_manual, content: seconds(total) });
}

/** Deletes one tracked time; the timeline entry names the user whose time it was. */
export async function deleteTrackedTime(tx: Tx, issue: IssueRow, time: TrackedTimeRow, owner: UserRow): Promise<void> {
  const [row] = await tx.query<TrackedTimeRow>('UPDATE tracked_time SET deleted = true WHERE id = $1 AND NOT deleted RETURNING *', [time.id]);
  if (!row) throw notFound(`tracked time ${time.id} does not exist`);
  await addTimelineComment(tx, issue, owner, { type: commentType.delete_time_manual, content: seconds(row.time), time_id: row.id });
}
