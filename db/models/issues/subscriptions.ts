import type { Queryable, Tx } from '../../data-source.js';
import { selectPage, type PageWindow } from '../../sql.js';
import { watchModes } from '../repos/watches.js';
import { toUserRow, type UserRow } from '../users/user-row.js';
import { commentType, type IssueRow } from './issue-row.js';

/** Comment types that make their author a participant of the issue (Gitea: comment, code comment, review). */
const participating = [commentType.comment, commentType.code, commentType.review];

/**
 * Subscribes a user who takes part in an issue (posting it, commenting, being assigned), as Gitea does, unless
 * they chose otherwise before: an explicit unsubscription stays. Called by the operations that create issues and
 * comments and assign users, in their transaction.
 */
export async function autoSubscribe(tx: Tx, issueId: number, userId: number): Promise<void> {
  await tx.query(
    'INSERT INTO issue_watch (issue_id, user_id, is_watching) VALUES ($1, $2, true) ON CONFLICT (issue_id, user_id) DO NOTHING',
    [issueId, userId],
  );
}

/**
 * Gitea's CheckIssueWatch: the user's explicit choice when there is one; otherwise whether they watch the
 * repository or take part in the issue (its poster, or the author of a comment).
 */
export async function isSubscribed(db: Queryable, user: UserRow, issue: IssueRow): Promise<boolean> {
  const [row] = await db.query<{ subscribed: boolean }>(
    `SELECT COALESCE(
       (SELECT is_watching FROM issue_watch WHERE issue_id = $1 AND user_id = $2),
       EXISTS (SELECT 1 FROM watch WHERE user_id = $2 AND repo_id = $3 AND mode IN (${watchModes.normal}, ${watchModes.auto}))
         OR $4::bigint = $2
         OR EXISTS (SELECT 1 FROM comment WHERE issue_id = $1 AND poster_id = $2 AND type = ANY($5::int[]))
     ) AS subscribed`,
    [issue.id, user.id, issue.repo_id, issue.poster_id, participating],
  );
  return row.subscribed;
}

/** Records the user's explicit choice; answers whether it changed what isSubscribed says. */
export async function setSubscription(tx: Tx, user: UserRow, issue: IssueRow, watching: boolean): Promise<boolean> {
  if ((await isSubscribed(tx, user, issue)) === watching) return false;
  await tx.query(
    `INSERT INTO issue_watch (issue_id, user_id, is_watching) VALUES ($1, $2, $3)
     ON CONFLICT (issue_id, user_id) DO UPDATE SET is_watching = EXCLUDED.is_watching, updated = now()`,
    [issue.id, user.id, watching],
  );
  return true;
}

/**
 * Gitea's GetIssueSubscribers: users subscribed explicitly, and authors of comments who did not unsubscribe;
 * only active accounts that may sign in.
 */
export async function listSubscribers(db: Queryable, issueId: number, page?: PageWindow): Promise<{ users: UserRow[]; total: number }> {
  const { rows, total } = await selectPage<Record<string, unknown>>(db, {
    select: 'u.*',
    from: `"user" u WHERE u.is_active AND NOT u.prohibit_login AND (
        u.id IN (SELECT user_id FROM issue_watch WHERE issue_id = $1 AND is_watching)
        OR u.id IN (SELECT c.poster_id FROM comment c WHERE c.issue_id = $1 AND c.type = ANY($2::int[])
          AND c.poster_id NOT IN (SELECT user_id FROM issue_watch WHERE issue_id = $1 AND NOT is_watching)))`,
    params: [issueId, participating],
    orderBy: 'u.id',
    page,
  });
  return { users: rows.map(toUserRow), total };
}
