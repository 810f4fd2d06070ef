import type { Queryable, Tx } from '../../data-source.js';
import { selectPage } from '../../sql.js';
import { invalid } from '../../errors.js';
import { emit } from '../../events/emit.js';
import { unfollow } from './follows.js';
import { toUserRow, userTypes, type UserRow } from './user-row.js';

/** Whether `blockerId` (a user or an organization) blocks `blockeeId`. */
export async function isBlocked(db: Queryable, blockerId: number, blockeeId: number): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM user_blocking WHERE blocker_id = $1 AND blockee_id = $2', [blockerId, blockeeId]);
  return rows.length > 0;
}

async function isOrgMember(db: Queryable, orgId: number, userId: number): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM org_user WHERE org_id = $1 AND uid = $2', [orgId, userId]);
  return rows.length > 0;
}

/**
 * Gitea's BlockUser: a user (or organization) blocks another user. Neither an organization nor oneself can be
 * blocked, nor an organization's own member; the two stop following each other and lose each other's collaborations.
 * Who may act for `blocker` (the user themselves, an organization owner, an administrator) is the caller's check.
 */
export async function blockUser(tx: Tx, doer: UserRow, blocker: UserRow, blockee: UserRow, note: string): Promise<void> {
  if (blockee.type === userTypes.organization) throw invalid('cannot block an organization');
  const refused =
    blocker.id === blockee.id || doer.id === blockee.id || (await isBlocked(tx, blocker.id, blockee.id)) ||
    (blocker.type === userTypes.organization && (await isOrgMember(tx, blocker.id, blockee.id)));
  if (refused) throw invalid(`user can not be blocked [uid: ${blockee.id}]`);
  await unfollow(tx, blocker, blockee);
  await unfollow(tx, blockee, blocker);
  for (const [owner, collaborator] of [[blocker, blockee], [blockee, blocker]]) {
    await tx.query(
      `DELETE FROM collaboration c USING repository r WHERE c.repo_id = r.id AND r.owner_id = $1 AND c.user_id = $2`,
      [owner.id, collaborator.id],
    );
  }
  await tx.query('INSERT INTO user_blocking (blocker_id, blockee_id, note) VALUES ($1, $2, $3)', [blocker.id, blockee.id, note]);
  await emit(tx, { kind: 'user.blocked', doerId: doer.id, payload: { blocker_id: blocker.id, blockee_id: blockee.id } });
}

export async function unblockUser(tx: Tx, doer: UserRow, blocker: UserRow, blockee: UserRow): Promise<void> {
  if (blockee.type === userTypes.organization) throw invalid('cannot block an organization');
  if (doer.id === blockee.id) throw invalid(`user can not be unblocked [uid: ${blockee.id}]`);
  const removed = await tx.query('DELETE FROM user_blocking WHERE blocker_id = $1 AND blockee_id = $2 RETURNING id', [blocker.id, blockee.id]);
  if (removed.length === 0) throw invalid(`user can not be unblocked [uid: ${blockee.id}]`);
  await emit(tx, { kind: 'user.unblocked', doerId: doer.id, payload: { blocker_id: blocker.id, blockee_id: blockee.id } });
}

export async function listBlocked(db: Queryable, blockerId: number, page: { limit: number; offset: number }): Promise<{ users: UserRow[]; total: number }> {
  const { rows, total } = await selectPage<Record<string, unknown>>(db, {
    select: 'u.*', from: 'user_blocking b JOIN "user" u ON u.id = b.blockee_id WHERE b.blocker_id = $1', params: [blockerId], orderBy: 'b.created DESC, b.id DESC', page,
  });
  return { users: rows.map(toUserRow), total };
}
