import type { Queryable, Tx } from '../../data-source.js';
import { selectPage } from '../../sql.js';
import { forbidden } from '../../errors.js';
import { readableReposCondition } from '../access.js';
import { isBlocked } from '../users/blocks.js';
import type { RepoRow } from './repo-row.js';
import { toUserRow, type UserRow } from '../users/user-row.js';

/** Gitea's watch modes; `dont` remembers that an automatic watch was declined. repository.num_watches counts normal and auto. */
export const watchModes = { normal: 1, dont: 2, auto: 3 } as const;

export interface WatchRow {
  user_id: number;
  repo_id: number;
  mode: number;
  created: Date;
  updated: Date;
}

/**
 * Watches the repository (whatever the earlier mode) and answers the repository as it now stands.
 * A user the repository's owner blocks may not (403, like Gitea).
 */
export async function watchRepository(tx: Tx, user: Pick<UserRow, 'id'>, repo: RepoRow): Promise<RepoRow> {
  if (await isBlocked(tx, repo.owner_id, user.id)) throw forbidden('user is blocked by the owner of the repository');
  await tx.query(
    `INSERT INTO watch (user_id, repo_id, mode) VALUES ($1, $2, ${watchModes.normal})
     ON CONFLICT (user_id, repo_id) DO UPDATE SET mode = EXCLUDED.mode, updated = now() WHERE watch.mode <> EXCLUDED.mode`,
    [user.id, repo.id],
  );
  const [row] = await tx.query<RepoRow>('SELECT * FROM repository WHERE id = $1', [repo.id]);
  return row;
}

/** Stops watching. An automatic watch becomes "don't watch", so it is not added back on the next comment. */
export async function unwatchRepository(tx: Tx, userId: number, repoId: number): Promise<void> {
  const [current] = await tx.query<{ mode: number }>('SELECT mode FROM watch WHERE user_id = $1 AND repo_id = $2 FOR UPDATE', [userId, repoId]);
  if (!current) return;
  if (current.mode === watchModes.auto) {
    await tx.query(`UPDATE watch SET mode = ${watchModes.dont}, updated = now() WHERE user_id = $1 AND repo_id = $2`, [userId, repoId]);
  } else {
    await tx.query('DELETE FROM watch WHERE user_id = $1 AND repo_id = $2', [userId, repoId]);
  }
}

/** The user's watch of the repository when it is one that notifies (normal or automatic). */
export async function findWatch(db: Queryable, userId: number, repoId: number): Promise<WatchRow | null> {
  const [row] = await db.query<WatchRow>(
    `SELECT * FROM watch WHERE user_id = $1 AND repo_id = $2 AND mode IN (${watchModes.normal}, ${watchModes.auto})`,
    [userId, repoId],
  );
  return row ?? null;
}

export async function listWatchers(
  db: Queryable,
  repoId: number,
  page: { limit: number; offset: number },
): Promise<{ users: UserRow[]; total: number }> {
  const where = `w.repo_id = $1 AND w.mode IN (${watchModes.normal}, ${watchModes.auto})`;
  const { rows, total } = await selectPage<Record<string, unknown>>(db, {
    select: 'u.*', from: `watch w JOIN "user" u ON u.id = w.user_id WHERE ${where}`, params: [repoId], orderBy: 'w.created, u.id', page,
  });
  return { users: rows.map(toUserRow), total };
}

/**
 * Repositories `userId` watches, as `viewer` may see them: Gitea shows private ones only to the user
 * themself, and then only those they can still read.
 */
export async function listWatchedRepos(
  db: Queryable,
  userId: number,
  viewer: UserRow | null,
  page: { limit: number; offset: number },
): Promise<{ repos: RepoRow[]; total: number }> {
  const where = `w.user_id = $1 AND w.mode IN (${watchModes.normal}, ${watchModes.auto})
    AND ${readableReposCondition('r', '$2')} AND (NOT r.is_private OR $2 = $1)`;
  const params = [userId, viewer?.id ?? null];
  const { rows, total } = await selectPage<RepoRow>(db, {
    select: 'r.*', from: `watch w JOIN repository r ON r.id = w.repo_id WHERE ${where}`, params, orderBy: 'w.created DESC, r.id', page,
  });
  return { repos: rows, total };
}
