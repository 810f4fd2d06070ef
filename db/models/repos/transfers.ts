import type { Queryable, Tx } from '../../data-source.js';
import { conflict, forbidden, invalid, isUniqueViolation, notFound } from '../../errors.js';
import { emit } from '../../events/emit.js';
import { accessModeOf } from '../access.js';
import { isBlocked } from '../users/blocks.js';
import { isOrgMember, orgPermissionsOf, type OrgRow } from '../orgs/orgs.js';
import type { RepoContext } from './repos.js';
import { accessModes, type RepoRow } from './repo-row.js';
import { addTeamRepo, findTeam, type TeamView } from '../orgs/teams.js';
import { toUserRow, userTypes, visibilities, type UserRow } from '../users/user-row.js';
import { findUsersByIds } from '../users/users.js';
import { unwatchRepository, watchRepository } from './watches.js';

/** A repository waiting for its recipient to accept or reject it (Gitea's RepoTransfer). */
export interface PendingTransfer {
  repoId: number;
  doer: UserRow;
  recipient: UserRow;
  teams: TeamView[];
}

const isOrganization = (user: UserRow): boolean => user.type === userTypes.organization;

export async function findPendingTransfer(db: Queryable, repoId: number): Promise<PendingTransfer | null> {
  const [row] = await db.query<{ doer_id: number; recipient_id: number; team_ids: Array<string | number> }>(
    'SELECT doer_id, recipient_id, team_ids FROM repo_transfer WHERE repo_id = $1',
    [repoId],
  );
  if (!row) return null;
  const users = await findUsersByIds(db, [row.doer_id, row.recipient_id]);
  const doer = users.get(row.doer_id);
  const recipient = users.get(row.recipient_id);
  if (!doer || !recipient) return null;
  const teams = await Promise.all(row.team_ids.map((id) => findTeam(db, Number(id))));
  return { repoId, doer, recipient, teams: teams.filter((team): team is TeamView => team !== null) };
}

/**
 * The teams a transfer to an organization grants: team_ids is only for organizations, and each team must
 * exist (422) and belong to the recipient (403).
 */
async function resolveTransferTeams(db: Queryable, recipient: UserRow, teamIds: number[] | undefined): Promise<TeamView[]> {
  if (teamIds === undefined) return [];
  if (!isOrganization(recipient)) throw invalid('Teams can only be added to organization-owned repositories');
  const teams: TeamView[] = [];
  for (const id of teamIds) {
    const team = await findTeam(db, id);
    if (!team) throw invalid(`team ${id} not found`);
    if (team.org_id !== recipient.id) throw forbidden(`team ${id} belongs not to org ${recipient.id}`);
    teams.push(team);
  }
  return teams;
}

/** The recipient may not already hold a repository of that name, as a row or as files on disk. */
async function assertNameFree(tx: Tx, ctx: RepoContext, recipient: UserRow, name: string): Promise<void> {
  const taken = await tx.query('SELECT 1 FROM repository WHERE owner_id = $1 AND lower_name = $2', [recipient.id, name.toLowerCase()]);
  if (taken.length > 0 || ctx.git.exists(recipient.name, name)) {
    throw invalid(`repository already exists [uname: ${recipient.name}, name: ${name}]`);
  }
}

async function lockRepo(tx: Tx, repoId: number): Promise<RepoRow> {
  const [row] = await tx.query<RepoRow>('SELECT * FROM repository WHERE id = $1 FOR UPDATE', [repoId]);
  if (!row) throw notFound();
  return row;
}

/** Who may accept or reject: the recipient user, or for an organization whoever may create repositories in it. */
export async function canAcceptTransfer(db: Queryable, transfer: PendingTransfer, user: UserRow): Promise<boolean> {
  if (!isOrganization(transfer.recipient)) return transfer.recipient.id === user.id;
  return (await orgPermissionsOf(db, transfer.recipient as OrgRow, user)).canCreateRepository;
}

export type TransferStart = { repo: RepoRow; pending: boolean };

/**
 * Gitea's StartRepositoryTransfer. Administrators, a user taking a repository back and members who may create
 * repositories in the recipient organization transfer at once; otherwise the transfer waits for the recipient,
 * who gets read access meanwhile so they can see what they are offered.
 */
export async function startTransfer(
  tx: Tx,
  ctx: RepoContext,
  repo: RepoRow,
  doer: UserRow,
  recipient: UserRow,
  teamIds?: number[],
): Promise<TransferStart> {
  if (isOrganization(recipient) && !doer.is_admin && visibilities[recipient.visibility] === 'private' && !(await isOrgMember(tx, recipient.id, doer.id))) {
    throw notFound('The new owner does not exist or cannot be found');
  }
  const teams = await resolveTransferTeams(tx, recipient, teamIds);
  if (await isBlocked(tx, recipient.id, doer.id)) throw forbidden('user is blocked by the new owner');
  const locked = await lockRepo(tx, repo.id);
  const [pending] = await tx.query('SELECT 1 FROM repo_transfer WHERE repo_id = $1', [repo.id]);
  if (pending) throw conflict(`repository is already being transferred [uname: ${locked.owner_name}, name: ${locked.name}]`);
  if (doer.is_admin || doer.id === recipient.id) return { repo: await transferOwnership(tx, ctx, locked, doer, recipient, teams), pending: false };
  if (await isBlocked(tx, doer.id, recipient.id)) throw forbidden('the new owner is blocked by the user');
  if (isOrganization(recipient) && (await orgPermissionsOf(tx, recipient as OrgRow, doer)).canCreateRepository) {
    return { repo: await transferOwnership(tx, ctx, locked, doer, recipient, teams), pending: false };
  }
  await assertNameFree(tx, ctx, recipient, locked.name);
  if ((await accessModeOf(tx, recipient, locked)) < accessModes.read) {
    await tx.query('INSERT INTO collaboration (repo_id, user_id, mode) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [locked.id, recipient.id, accessModes.read]);
  }
  try {
    await tx.query('INSERT INTO repo_transfer (repo_id, doer_id, recipient_id, team_ids) VALUES ($1, $2, $3, $4)', [
      locked.id, doer.id, recipient.id, teams.map((t) => t.id),
    ]);
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(`repository is already being transferred [uname: ${locked.owner_name}, name: ${locked.name}]`);
    throw error;
  }
  await emit(tx, { kind: 'repository.transfer_pending', repoId: locked.id, doerId: doer.id, payload: { recipient_id: recipient.id, recipient: recipient.name } });
  return { repo: locked, pending: true };
}

/**
 * Gitea's transferOwnership: the row changes owner, the new owner and members of a recipient organization stop
 * being collaborators, the old organization's teams let go, the counters follow, the old path redirects, and the
 * git directory (with its wiki) moves, moved back if the transaction does not commit.
 */
export async function transferOwnership(tx: Tx, ctx: RepoContext, repo: RepoRow, doer: UserRow, recipient: UserRow, teams: TeamView[]): Promise<RepoRow> {
  const locked = await lockRepo(tx, repo.id);
  const [oldOwnerRaw] = await tx.query('SELECT * FROM "user" WHERE id = $1', [locked.owner_id]);
  const oldOwner = toUserRow(oldOwnerRaw);
  await assertNameFree(tx, ctx, recipient, locked.name);
  let moved: RepoRow;
  try {
    [moved] = await tx.query<RepoRow>('UPDATE repository SET owner_id = $2, owner_name = $3, updated = now() WHERE id = $1 RETURNING *', [
      locked.id, recipient.id, recipient.name,
    ]);
  } catch (error) {
    if (isUniqueViolation(error)) throw invalid(`repository already exists [uname: ${recipient.name}, name: ${locked.name}]`);
    throw error;
  }
  await tx.query(
    'DELETE FROM collaboration WHERE repo_id = $1 AND (user_id = $2 OR user_id IN (SELECT uid FROM org_user WHERE org_id = $2))',
    [locked.id, recipient.id],
  );
  await tx.query('DELETE FROM team_repo WHERE repo_id = $1 AND org_id <> $2', [locked.id, recipient.id]);
  await tx.query('UPDATE "user" SET num_repos = num_repos + 1 WHERE id = $1', [recipient.id]);
  await tx.query('UPDATE "user" SET num_repos = GREATEST(num_repos - 1, 0) WHERE id = $1', [oldOwner.id]);
  await tx.query('DELETE FROM repo_transfer WHERE repo_id = $1', [locked.id]);
  await tx.query('DELETE FROM repo_redirect WHERE owner_id = $1 AND lower_name = $2', [recipient.id, locked.lower_name]);
  await tx.query(
    `INSERT INTO repo_redirect (owner_id, lower_name, redirect_repo_id) VALUES ($1, $2, $3)
     ON CONFLICT (owner_id, lower_name) DO UPDATE SET redirect_repo_id = EXCLUDED.redirect_repo_id`,
    [oldOwner.id, locked.lower_name, locked.id],
  );
  for (const team of teams) await addTeamRepo(tx, team, moved, doer);
  moved = await watchRepository(tx, doer, moved);
  if (isOrganization(oldOwner)) await unwatchRepository(tx, oldOwner.id, locked.id);
  await moveDirectory(tx, ctx, oldOwner.name, recipient.name, locked.name);
  await moveDirectory(tx, ctx, oldOwner.name, recipient.name, `${locked.name}.wiki`);
  await emit(tx, {
    kind: 'repository.transferred', repoId: locked.id, doerId: doer.id,
    payload: { previous: { owner_id: oldOwner.id, owner: oldOwner.name }, owner_id: recipient.id, owner: recipient.name, name: locked.name },
  });
  return moved;
}

async function moveDirectory(tx: Tx, ctx: RepoContext, from: string, to: string, name: string): Promise<void> {
  if (!ctx.git.exists(from, name)) return;
  await ctx.git.move(from, name, to, name);
  tx.onRollback(() => ctx.git.move(to, name, from, name));
}

async function loadAcceptablePending(tx: Tx, repo: RepoRow, user: UserRow): Promise<PendingTransfer> {
  await lockRepo(tx, repo.id);
  const transfer = await findPendingTransfer(tx, repo.id);
  if (!transfer) throw notFound('no pending transfer for this repository');
  if (!(await canAcceptTransfer(tx, transfer, user))) throw forbidden('user does not have permissions to do this');
  return transfer;
}

/** The recipient takes the repository, on the terms (and in the name of the doer) the transfer was started with. */
export async function acceptTransfer(tx: Tx, ctx: RepoContext, repo: RepoRow, user: UserRow): Promise<RepoRow> {
  const transfer = await loadAcceptablePending(tx, repo, user);
  return transferOwnership(tx, ctx, repo, transfer.doer, transfer.recipient, transfer.teams);
}

/** The recipient declines; the repository stays where it is (the read access it was given stays too, as in Gitea). */
export async function rejectTransfer(tx: Tx, repo: RepoRow, user: UserRow): Promise<RepoRow> {
  const transfer = await loadAcceptablePending(tx, repo, user);
  await tx.query('DELETE FROM repo_transfer WHERE repo_id = $1', [repo.id]);
  await emit(tx, { kind: 'repository.transfer_rejected', repoId: repo.id, doerId: user.id, payload: { recipient_id: transfer.recipient.id, recipient: transfer.recipient.name } });
  const [row] = await tx.query<RepoRow>('SELECT * FROM repository WHERE id = $1', [repo.id]);
  return row;
}
