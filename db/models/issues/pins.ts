import type { Queryable, Tx } from '../../data-source.js';
import { invalid } from '../../errors.js';
import type { UserRow } from '../users/user-row.js';
import { addTimelineComment } from './issue-facts.js';
import { commentType, type IssueRow } from './issue-row.js';
import { lockIssue } from './issues.js';

/** Pinned issues (or pull requests) of a repository, in pin order. */
export async function listPinned(db: Queryable, repoId: number, isPull: boolean): Promise<IssueRow[]> {
  return db.query<IssueRow>('SELECT * FROM issue WHERE repo_id = $1 AND is_pull = $2 AND pin_order > 0 ORDER BY pin_order', [repoId, isPull]);
}

/** Gitea's IsNewPinAllowed: fewer than `[repository.issue] MAX_PINNED` are pinned. */
export async function isNewPinAllowed(db: Queryable, repoId: number, isPull: boolean, maxPinned: number): Promise<boolean> {
  const [{ pinned }] = await db.query<{ pinned: number }>(
    'SELECT count(*)::int AS pinned FROM issue WHERE repo_id = $1 AND is_pull = $2 AND pin_order > 0', [repoId, isPull],
  );
  return pinned < maxPinned;
}

/** Serialises pin changes of one repository's issues (or pull requests). */
async function lockPins(tx: Tx, issue: IssueRow): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(7302100, $1::int)', [issue.repo_id % 2_147_483_647]);
}

/** Pins the issue last; pinning a pinned one changes nothing; past MAX_PINNED it is a 422. */
export async function pinIssue(tx: Tx, issue: IssueRow, doer: UserRow, maxPinned: number): Promise<void> {
  await lockPins(tx, issue);
  const row = await lockIssue(tx, issue);
  if (row.pin_order > 0) return;
  const [{ max }] = await tx.query<{ max: number }>(
    'SELECT COALESCE(max(pin_order), 0)::int AS max FROM issue WHERE repo_id = $1 AND is_pull = $2', [row.repo_id, row.is_pull],
  );
  if (max >= maxPinned) throw invalid('the maximum number of pinned issues has been reached');
  await tx.query('UPDATE issue SET pin_order = $2 WHERE id = $1', [row.id, max + 1]);
  await addTimelineComment(tx, row, doer, { type: commentType.pin });
}

/** Unpins the issue and closes the gap in the order. */
export async function unpinIssue(tx: Tx, issue: IssueRow, doer: UserRow): Promise<void> {
  await lockPins(tx, issue);
  const row = await lockIssue(tx, issue);
  if (row.pin_order === 0) return;
  await tx.query('UPDATE issue SET pin_order = 0 WHERE id = $1', [row.id]);
  await tx.query('UPDATE issue SET pin_order = pin_order - 1 WHERE repo_id = $1 AND is_pull = $2 AND pin_order > $3', [row.repo_id, row.is_pull, row.pin_order]);
  await addTimelineComment(tx, row, doer, { type: commentType.unpin });
}

/** Moves a pinned issue to `position` (1 is first; past the end is last); an unpinned issue stays as it is. */
export async function moveIssuePin(tx: Tx, issue: IssueRow, position: number): Promise<void> {
  if (position < 1) throw invalid('the position cannot be lower than 1');
  await lockPins(tx, issue);
  const row = await lockIssue(tx, issue);
  if (row.pin_order === 0) return;
  const order = (await listPinned(tx, row.repo_id, row.is_pull)).map((pinned) => pinned.id).filter((id) => id !== row.id);
  order.splice(Math.min(position, order.length + 1) - 1, 0, row.id);
  await tx.query(
    'UPDATE issue i SET pin_order = o.n FROM unnest($1::bigint[]) WITH ORDINALITY AS o(id, n) WHERE i.id = o.id',
    [order],
  );
}
