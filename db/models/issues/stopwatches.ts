import type { Queryable, Tx } from '../../data-source.js';
import { conflict } from '../../errors.js';
import { selectPage, type PageWindow } from '../../sql.js';
import type { UserRow } from '../users/user-row.js';
import { addTimelineComment } from './issue-facts.js';
import { commentType, type IssueRow } from './issue-row.js';
import type { TrackedTimeRow } from './tracked-times.js';

/** A running stopwatch of a user on an issue. */
export interface StopwatchRow {
  id: number;
  issue_id: number;
  user_id: number;
  created: Date;
}

/** A stopwatch with what its JSON shows: the issue and its repository, and the seconds run so far. */
export interface StopwatchView extends StopwatchRow {
  seconds: number;
  issue_index: number;
  issue_title: string;
  repo_name: string;
  repo_owner_name: string;
}

/** The user's stopwatch on the issue, locked for a change; the user's row is locked first, so a user's starts and stops queue. */
async function lockStopwatch(tx: Tx, user: UserRow, issueId: number): Promise<StopwatchRow | null> {
  await tx.query('SELECT 1 FROM "user" WHERE id = $1 FOR UPDATE', [user.id]);
  const [row] = await tx.query<StopwatchRow>('SELECT * FROM stopwatch WHERE user_id = $1 AND issue_id = $2', [user.id, issueId]);
  return row ?? null;
}

/** Turns a stopwatch into tracked time (whole seconds since it started) with its timeline entry, and removes it. */
async function finish(tx: Tx, issue: IssueRow, user: UserRow, stopwatch: StopwatchRow): Promise<TrackedTimeRow> {
  const [time] = await tx.query<TrackedTimeRow>(
    `INSERT INTO tracked_time (issue_id, user_id, time)
     VALUES ($1, $2, GREATEST(0, floor(extract(epoch FROM now() - $3::timestamptz)))::bigint) RETURNING *`,
    [issue.id, user.id, stopwatch.created],
  );
  await addTimelineComment(tx, issue, user, { type: commentType.stop_tracking, content: `|${time.time}`, time_id: time.id });
  await tx.query('DELETE FROM stopwatch WHERE id = $1', [stopwatch.id]);
  return time;
}

/**
 * Starts the user's stopwatch on the issue: 409 when it runs already. A stopwatch the user runs on another
 * issue is stopped first and its time recorded, as Gitea does (one running stopwatch per user).
 */
export async function startStopwatch(tx: Tx, issue: IssueRow, user: UserRow): Promise<StopwatchRow> {
  if (await lockStopwatch(tx, user, issue.id)) throw conflict('cannot start a stopwatch again if it already exists');
  const others = await tx.query<StopwatchRow>('SELECT * FROM stopwatch WHERE user_id = $1', [user.id]);
  for (const other of others) {
    const [otherIssue] = await tx.query<IssueRow>('SELECT * FROM issue WHERE id = $1', [other.issue_id]);
    await finish(tx, otherIssue, user, other);
  }
  const [row] = await tx.query<StopwatchRow>('INSERT INTO stopwatch (issue_id, user_id) VALUES ($1, $2) RETURNING *', [issue.id, user.id]);
  await addTimelineComment(tx, issue, user, { type: commentType.start_tracking });
  return row;
}

/** Stops the user's stopwatch on the issue and records its time: 409 when none runs. */
export async function stopStopwatch(tx: Tx, issue: IssueRow, user: UserRow): Promise<TrackedTimeRow> {
  const stopwatch = await lockStopwatch(tx, user, issue.id);
  if (!stopwatch) throw conflict('cannot stop a non-existent stopwatch');
  return finish(tx, issue, user, stopwatch);
}

/** Removes the user's stopwatch on the issue without recording time: 409 when none runs. */
export async function cancelStopwatch(tx: Tx, issue: IssueRow, user: UserRow): Promise<void> {
  const stopwatch = await lockStopwatch(tx, user, issue.id);
  if (!stopwatch) throw conflict('cannot cancel a non-existent stopwatch');
  await tx.query('DELETE FROM stopwatch WHERE id = $1', [stopwatch.id]);
  await addTimelineComment(tx, issue, user, { type: commentType.cancel_tracking });
}

/** The user's running stopwatches, with their issues and repositories. */
export async function listStopwatches(db: Queryable, userId: number, page?: PageWindow): Promise<{ rows: StopwatchView[]; total: number }> {
  return selectPage<StopwatchView>(db, {
    select: `s.*, GREATEST(0, floor(extract(epoch FROM now() - s.created)))::bigint AS seconds, i.index AS issue_index,
      i.title AS issue_title, r.name AS repo_name, r.owner_name AS repo_owner_name`,
    from: 'stopwatch s JOIN issue i ON i.id = s.issue_id JOIN repository r ON r.id = i.repo_id WHERE s.user_id = $1',
    params: [userId],
    orderBy: 's.id',
    page,
  });
}
