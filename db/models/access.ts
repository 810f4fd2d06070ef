import type { Queryable } from '../data-source.js';
import { accessModes, type AccessMode, type RepoRow } from './repo-row.js';
import type { UserRow } from './user-row.js';

/**
 * The one place that decides what a user may do in a repository: ownership, site administration,
 * collaboration (and, once organizations exist, team membership). Used by every route and by git over HTTP.
 */
export async function accessModeOf(db: Queryable, user: UserRow | null, repo: RepoRow): Promise<AccessMode> {
  const floor: AccessMode = repo.is_private ? accessModes.none : accessModes.read;
  if (!user) return floor;
  if (user.id === repo.owner_id) return accessModes.owner;
  if (user.is_admin) return accessModes.admin;
  const [row] = await db.query<{ mode: number }>(
    'SELECT mode FROM collaboration WHERE repo_id = $1 AND user_id = $2',
    [repo.id, user.id],
  );
  return Math.max(floor, row?.mode ?? accessModes.none) as AccessMode;
}
