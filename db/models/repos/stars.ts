import type { Queryable, Tx } from '../../data-source.js';
import { selectPage } from '../../sql.js';
import { forbidden } from '../../errors.js';
import { readableReposCondition } from '../access.js';
import { isBlocked } from '../users/blocks.js';
import type { RepoRow } from './repo-row.js';
import { toUserRow, type UserRow } from '../users/user-row.js';

// repository.num_stars and user.num_stars follow the star rows through a trigger (migration 1732000005000).

/** Stars the repository; a user the repository's owner blocks may not (403, like Gitea). */
export async function starRepository(tx: Tx, user: Pick<UserRow, 'id'>, repo: RepoRow): Promise<void> {
  if (await isBlocked(tx, repo.owner_id, user.id)) throw forbidden('user is blocked by the owner of the repository');
  await tx.query('INSERT INTO star (uid, repo_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [user.id, repo.id]);
}

export async function unstarRepository(tx: Tx, userId: number, repoId: number): Promise<void> {
  await tx.query('DELETE FROM star WHERE uid = $1 AND repo_id = $2', [userId, repoId]);
}

export async function isStarring(db: Queryable, userId: number, repoId: number): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM star WHERE uid = $1 AND repo_id = $2', [userId, repoId]);
  return rows.length > 0;
}

export async function listStargazers(
  db: Queryable,
  repoId: number,
  page: { limit: number; offset: number },
): Promise<{ users: UserRow[]; total: number }> {
  const { rows, total } = await selectPage<Record<string, unknown>>(db, {
    select: 'u.*', from: 'star s JOIN "user" u ON u.id = s.uid WHERE s.repo_id = $1', params: [repoId], orderBy: 's.created, u.id', page,
  });
  return { users: rows.map(toUserRow), total };
}

/**
 * Repositories `userId` starred, as `viewer` may see them: Gitea shows private ones only to the user
 * themself, and then only those they can still read.
 */
export async function listStarredRepos(
  db: Queryable,
  userId: number,
  viewer: UserRow | null,
  page: { limit: number; offset: number },
): Promise<{ repos: RepoRow[]; total: number }> {
  const where = `s.uid = $1 AND ${readableReposCondition('r', '$2')} AND (NOT r.is_private OR $2 = $1)`;
  const params = [userId, viewer?.id ?? null];
  const { rows, total } = await selectPage<RepoRow>(db, {
    select: 'r.*', from: `star s JOIN repository r ON r.id = s.repo_id WHERE ${where}`, params, orderBy: 's.created DESC, r.id', page,
  });
  return { repos: rows, total };
}
