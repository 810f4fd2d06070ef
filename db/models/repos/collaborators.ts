import type { Queryable, Tx } from '../../data-source.js';
import { selectPage } from '../../sql.js';
import { forbidden, invalid } from '../../errors.js';
import { emit } from '../../events/emit.js';
import { isBlocked } from '../users/blocks.js';
import { accessModes, type AccessMode, type RepoRow } from './repo-row.js';
import { toUserRow, userTypes, type UserRow } from '../users/user-row.js';
import { unwatchRepository } from './watches.js';

export type CollaboratorMode = typeof accessModes.read | typeof accessModes.write | typeof accessModes.admin;

export async function listCollaborators(
  db: Queryable,
  repoId: number,
  page: { limit: number; offset: number },
): Promise<{ users: UserRow[]; total: number }> {
  const { rows, total } = await selectPage<Record<string, unknown>>(db, {
    select: 'u.*', from: 'collaboration c JOIN "user" u ON u.id = c.user_id WHERE c.repo_id = $1', params: [repoId], orderBy: 'u.lower_name', page,
  });
  return { users: rows.map(toUserRow), total };
}

export async function isCollaborator(db: Queryable, repoId: number, userId: number): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM collaboration WHERE repo_id = $1 AND user_id = $2', [repoId, userId]);
  return rows.length > 0;
}

/** Adds the user as a collaborator, or changes the mode of an existing collaboration; refused between blocked users (403). */
export async function addCollaborator(tx: Tx, repo: RepoRow, user: UserRow, mode: CollaboratorMode, doer: UserRow): Promise<void> {
  if (user.id === repo.owner_id) throw invalid(`user ${user.name} is the owner of the repository and cannot be a collaborator`);
  if (user.type !== userTypes.individual) throw invalid(`${user.name} is not an individual user`);
  if (!user.is_active) throw invalid(`collaborator's account is inactive [name: ${user.name}]`);
  if ((await isBlocked(tx, repo.owner_id, user.id)) || (await isBlocked(tx, user.id, repo.owner_id))) {
    throw forbidden('user is blocked');
  }
  const [previous] = await tx.query<{ mode: number }>(
    'SELECT mode FROM collaboration WHERE repo_id = $1 AND user_id = $2 FOR UPDATE',
    [repo.id, user.id],
  );
  if (previous?.mode === mode) return;
  await tx.query(
    `INSERT INTO collaboration (repo_id, user_id, mode) VALUES ($1, $2, $3)
     ON CONFLICT (repo_id, user_id) DO UPDATE SET mode = EXCLUDED.mode`,
    [repo.id, user.id, mode],
  );
  if (previous) {
    await emit(tx, {
      kind: 'repository.collaborator_changed', repoId: repo.id, doerId: doer.id,
      payload: { user_id: user.id, previous: { mode: previous.mode }, mode },
    });
  } else {
    await emit(tx, { kind: 'repository.collaborator_added', repoId: repo.id, doerId: doer.id, payload: { user_id: user.id, mode } });
  }
}

/** Ends the collaboration; like Gitea, the former collaborator stops watching the repository. */
export async function removeCollaborator(tx: Tx, repo: RepoRow, user: UserRow, doer: UserRow): Promise<void> {
  const removed = await tx.query('DELETE FROM collaboration WHERE repo_id = $1 AND user_id = $2 RETURNING user_id', [repo.id, user.id]);
  if (removed.length === 0) return;
  await unwatchRepository(tx, user.id, repo.id);
  await emit(tx, { kind: 'repository.collaborator_removed', repoId: repo.id, doerId: doer.id, payload: { user_id: user.id } });
}

/**
 * Active users holding at least `atLeast` on the repository through a grant, then the owner when the owner
 * is a person (Gitea's order for assignees and reviewers). The one query behind both lists: organizations
 * add their team members here.
 */
export async function listUsersWithAccess(db: Queryable, repo: RepoRow, atLeast: AccessMode): Promise<UserRow[]> {
  const rows = await db.query(
    `SELECT u.* FROM "user" u
     WHERE u.is_active AND (
       u.id IN (SELECT c.user_id FROM collaboration c WHERE c.repo_id = $1 AND c.mode >= $2)
       OR u.id IN (SELECT tu.uid FROM team t JOIN team_user tu ON tu.team_id = t.id
         WHERE t.org_id = $3
           AND (t.includes_all_repositories OR EXISTS (SELECT 1 FROM team_repo tr WHERE tr.team_id = t.id AND tr.repo_id = $1))
           AND (t.authorize >= ${accessModes.admin} OR EXISTS (SELECT 1 FROM team_unit un WHERE un.team_id = t.id AND un.access_mode >= $2)))
       OR (u.id = $3 AND u.type = ${userTypes.individual}))
     ORDER BY u.id = $3, u.lower_name`,
    [repo.id, atLeast, repo.owner_id],
  );
  return rows.map(toUserRow);
}

/** Users who may be assigned to issues and pull requests: write access or more. */
export async function listWriters(db: Queryable, repo: RepoRow): Promise<UserRow[]> {
  return listUsersWithAccess(db, repo, accessModes.write);
}
