import type { Queryable, Tx } from '../../data-source.js';
import { selectPage } from '../../sql.js';
import { toUserRow, type UserRow } from './user-row.js';

export async function follow(tx: Tx, follower: UserRow, target: UserRow): Promise<void> {
  if (follower.id === target.id) return;
  const inserted = await tx.query(
    'INSERT INTO follow (user_id, follow_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING user_id',
    [follower.id, target.id],
  );
  if (inserted.length === 0) return;
  await tx.query('UPDATE "user" SET num_following = num_following + 1 WHERE id = $1', [follower.id]);
  await tx.query('UPDATE "user" SET num_followers = num_followers + 1 WHERE id = $1', [target.id]);
}

export async function unfollow(tx: Tx, follower: UserRow, target: UserRow): Promise<void> {
  const deleted = await tx.query('DELETE FROM follow WHERE user_id = $1 AND follow_id = $2 RETURNING user_id', [follower.id, target.id]);
  if (deleted.length === 0) return;
  await tx.query('UPDATE "user" SET num_following = num_following - 1 WHERE id = $1', [follower.id]);
  await tx.query('UPDATE "user" SET num_followers = num_followers - 1 WHERE id = $1', [target.id]);
}

export async function isFollowing(tx: Queryable, followerId: number, targetId: number): Promise<boolean> {
  const rows = await tx.query('SELECT 1 FROM follow WHERE user_id = $1 AND follow_id = $2', [followerId, targetId]);
  return rows.length > 0;
}

/** `direction: 'followers'` lists who follows `userId`; `'following'` whom `userId` follows. */
export async function listFollows(
  tx: Queryable,
  userId: number,
  direction: 'followers' | 'following',
  page: { limit: number; offset: number },
): Promise<{ users: UserRow[]; total: number }> {
  const [mine, theirs] = direction === 'followers' ? ['follow_id', 'user_id'] : ['user_id', 'follow_id'];
  const { rows, total } = await selectPage<Record<string, unknown>>(tx, {
    select: 'u.*', from: `follow f JOIN "user" u ON u.id = f.${theirs} WHERE f.${mine} = $1`, params: [userId], orderBy: 'f.created DESC, u.id', page,
  });
  return { users: rows.map(toUserRow), total };
}
