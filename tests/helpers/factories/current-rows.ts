import type { Queryable } from '../../../db/data-source.js';
import { listTeamMembers, findTeamByName, ownerTeamName } from '../../../db/models/orgs/teams.js';
import { findRepoById } from '../../../db/models/repos/repos.js';
import type { RepoRow } from '../../../db/models/repos/repo-row.js';
import { findUserByName } from '../../../db/models/users/users.js';
import { toUserRow, userTypes, type UserRow } from '../../../db/models/users/user-row.js';
import type { TestUser } from '../hearth.js';

/** A user or organization as tests hold one: the row, what `build.user` returned, or the name. */
export type Someone = UserRow | TestUser | string;

/**
 * The row as it is now in the database, as a request would load it: a row a test kept may be stale
 * (a later edit, a new repository count).
 */
export async function currentRow(db: Queryable, someone: Someone): Promise<UserRow> {
  if (typeof someone === 'string') {
    const row = await findUserByName(db, someone);
    if (!row) throw new Error(`user ${someone} does not exist`);
    return row;
  }
  return userById(db, 'user' in someone ? someone.user.id : someone.id);
}

export async function userById(db: Queryable, id: number): Promise<UserRow> {
  const [raw] = await db.query('SELECT * FROM "user" WHERE id = $1', [id]);
  if (!raw) throw new Error(`user ${id} does not exist`);
  return toUserRow(raw);
}

/** The repository's row as it is now (emptiness, default branch and counters change under a kept row). */
export async function currentRepo(db: Queryable, repo: RepoRow): Promise<RepoRow> {
  const row = await findRepoById(db, repo.id);
  if (!row) throw new Error(`repository ${repo.owner_name}/${repo.name} does not exist`);
  return row;
}

/** Who acts when a test names nobody: the given user, or an owner of the organization that `owner` is. */
export async function doerFor(db: Queryable, owner: UserRow, by: Someone | undefined): Promise<UserRow> {
  if (by) return currentRow(db, by);
  if (owner.type !== userTypes.organization) return owner;
  const owners = await findTeamByName(db, owner.id, ownerTeamName);
  const [first] = owners ? (await listTeamMembers(db, owners.id, { limit: 1, offset: 0 })).users : [];
  if (!first) throw new Error(`organization ${owner.name} has no owner to act for it`);
  return first;
}
