import type { Queryable, Tx } from '../../data-source.js';
import { forbidden } from '../../errors.js';
import { emit } from '../../events/emit.js';
import { selectPage, type PageWindow } from '../../sql.js';
import { isBlocked } from '../users/blocks.js';
import type { UserRow } from '../users/user-row.js';
import { issueFacts } from './issue-facts.js';
import type { CommentRow, IssueRow } from './issue-row.js';

/** A row of the `reaction` table: a user's reaction to an issue (`comment_id` null) or to one of its comments. */
export interface ReactionRow {
  id: number;
  type: string;
  issue_id: number;
  comment_id: number | null;
  user_id: number;
  original_author_id: number;
  original_author: string;
  created: Date;
}

/** What a reaction is on: an issue, or a comment of it. */
export interface ReactionTarget {
  issue: IssueRow;
  comment?: CommentRow | null;
}

/**
 * The reactions to an issue itself or to one comment, oldest first, each user's separately; only the kinds the
 * instance allows now are shown (Gitea's FindReactions, filtered by [ui] REACTIONS).
 */
export async function listReactions(
  db: Queryable, { issue, comment }: ReactionTarget, allowed: readonly string[], page?: PageWindow,
): Promise<{ rows: ReactionRow[]; total: number }> {
  return selectPage<ReactionRow>(db, {
    select: '*',
    from: 'reaction WHERE issue_id = $1 AND comment_id IS NOT DISTINCT FROM $2 AND type = ANY($3::text[])',
    params: [issue.id, comment?.id ?? null, allowed],
    orderBy: 'created, id',
    page,
  });
}

/**
 * Adds `doer`'s reaction `content`, one of the `allowed` kinds (403 otherwise, as for a user blocked by the
 * repository owner or by the author). An existing reaction is answered as it is, with `created` false.
 */
export async function addReaction(
  tx: Tx, target: ReactionTarget, doer: UserRow, content: string, allowed: readonly string[], repoOwnerId: number,
): Promise<{ reaction: ReactionRow; created: boolean }> {
  if (!allowed.includes(content)) throw forbidden(`'${content}' is not an allowed reaction`);
  const author = target.comment ? target.comment.poster_id : target.issue.poster_id;
  for (const blocker of new Set([repoOwnerId, author])) {
    if (blocker && blocker !== doer.id && (await isBlocked(tx, blocker, doer.id))) throw forbidden('user is blocked by the poster or repository owner');
  }
  const commentId = target.comment?.id ?? null;
  const [inserted] = await tx.query<ReactionRow>(
    `INSERT INTO reaction (type, issue_id, comment_id, user_id) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING *`,
    [content, target.issue.id, commentId, doer.id],
  );
  if (!inserted) {
    const [existing] = await tx.query<ReactionRow>(
      `SELECT * FROM reaction WHERE issue_id = $1 AND comment_id IS NOT DISTINCT FROM $2 AND user_id = $3 AND type = $4 AND original_author_id = 0`,
      [target.issue.id, commentId, doer.id, content],
    );
    return { reaction: existing, created: false };
  }
  await emit(tx, {
    kind: 'issue.reaction_added', repoId: target.issue.repo_id, doerId: doer.id,
    payload: { ...issueFacts(target.issue), comment_id: commentId, reaction_id: inserted.id, content },
  });
  return { reaction: inserted, created: true };
}

/** Removes `doer`'s reaction `content`; removing one that is not there changes nothing and is no error. */
export async function removeReaction(tx: Tx, target: ReactionTarget, doer: UserRow, content: string): Promise<void> {
  const commentId = target.comment?.id ?? null;
  const removed = await tx.query<{ id: number }>(
    `DELETE FROM reaction WHERE issue_id = $1 AND comment_id IS NOT DISTINCT FROM $2 AND user_id = $3 AND type = $4 AND original_author_id = 0
     RETURNING id`,
    [target.issue.id, commentId, doer.id, content],
  );
  if (removed.length === 0) return;
  await emit(tx, {
    kind: 'issue.reaction_removed', repoId: target.issue.repo_id, doerId: doer.id,
    payload: { ...issueFacts(target.issue), comment_id: commentId, content },
  });
}
