import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { BlobStore } from '../../blob-store.js';
import type { Queryable, Tx } from '../../data-source.js';
import { forbidden, invalid, isUniqueViolation, notFound } from '../../errors.js';
import { emit } from '../../events/emit.js';
import { selectPage, updateRow, type RowChanges } from '../../sql.js';
import { accessModeOf, readableReposCondition } from '../access.js';
import { queryFeed, type FeedEntry } from '../activity/activity-feeds.js';
import { assertAvatarImage } from '../repos/repo-avatars.js';
import { assertUsableName, assertValidEmail } from '../users/names.js';
import { createRepository, deleteRepository, type NewRepo, type RepoContext } from '../repos/repos.js';
import { accessModes, type AccessMode, type RepoRow } from '../repos/repo-row.js';
import { createOwnerTeam, ownerTeamName } from './teams.js';
import { findUsersByIds, toUserRow, userTypes, visibilities, type UserRow, type Visibility } from '../users/user-row.js';

/** An organization: a row of "user" with type 1. */
export interface OrgRow extends UserRow {
  repo_admin_change_team_access: boolean;
}

const ownerTeam = ownerTeamName.toLowerCase();

export async function findOrgByName(db: Queryable, name: string): Promise<OrgRow | null> {
  const [raw] = await db.query('SELECT * FROM "user" WHERE lower_name = $1 AND type = $2', [name.toLowerCase(), userTypes.organization]);
  return raw ? (toUserRow(raw) as OrgRow) : null;
}

export async function findOrgsByIds(db: Queryable, ids: number[]): Promise<OrgRow[]> {
  const users = await findUsersByIds(db, ids);
  return [...users.values()].filter((user) => user.type === userTypes.organization) as OrgRow[];
}

export async function isOrgMember(db: Queryable, orgId: number, userId: number): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM org_user WHERE org_id = $1 AND uid = $2', [orgId, userId]);
  return rows.length > 0;
}

/** An owner is a member of the organization's Owners team. */
export async function isOrgOwner(db: Queryable, orgId: number, userId: number): Promise<boolean> {
  const rows = await db.query(
    `SELECT 1 FROM team t JOIN team_user tu ON tu.team_id = t.id WHERE t.org_id = $1 AND t.lower_name = $2 AND tu.uid = $3`,
    [orgId, ownerTeam, userId],
  );
  return rows.length > 0;
}

/**
 * Gitea's HasOrgOrUserVisible: public organizations are visible to everyone, limited ones to signed-in users,
 * private ones (and every one, for a restricted user) to their members; administrators see all.
 */
export async function canSeeOrg(db: Queryable, viewer: UserRow | null, org: OrgRow): Promise<boolean> {
  const visibility = visibilities[org.visibility];
  if (visibility === 'public' && !viewer?.restricted) return true;
  if (!viewer) return false;
  if (viewer.is_admin) return true;
  if (visibility === 'private' || viewer.restricted) return isOrgMember(db, org.id, viewer.id);
  return true;
}

export interface OrgInput {
  full_name?: string;
  email?: string;
  description?: string;
  website?: string;
  location?: string;
  visibility?: Visibility;
  repo_admin_change_team_access?: boolean;
}

/** Gitea's bindings: a valid address, and an http(s) URL as website (either may be empty). */
function assertOrgFields(input: OrgInput): void {
  if (input.email) assertValidEmail(input.email);
  const website = input.website && URL.canParse(input.website) ? new URL(input.website) : null;
  if (input.website && !['http:', 'https:'].includes(website?.protocol ?? '')) throw invalid(`[Website]: invalid url: ${input.website}`);
}

/** Gitea's CanCreateOrganization. */
export function canCreateOrganization(user: UserRow): boolean {
  return user.is_admin || user.allow_create_organization;
}

/**
 * Creates an organization owned by `owner`: the row in "user", the Owners team (every unit at owner, every
 * repository) with `owner` as its member. Names share the user namespace and rules.
 */
export async function createOrganization(tx: Tx, owner: UserRow, input: OrgInput & { username: string }, doer: UserRow): Promise<OrgRow> {
  if (!canCreateOrganization(owner)) throw forbidden(`user is not allowed to create organizations [uid: ${owner.id}]`);
  assertUsableName(input.username);
  assertOrgFields(input);
  const [taken] = await tx.query('SELECT 1 FROM "user" WHERE lower_name = $1', [input.username.toLowerCase()]);
  if (taken) throw invalid(`user already exists [name: ${input.username}]`);
  let org: OrgRow;
  try {
    const [raw] = await tx.query(
      `INSERT INTO "user" (lower_name, name, full_name, email, type, visibility, description, website, location,
         repo_admin_change_team_access, max_repo_creation)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, -1) RETURNING *`,
      [
        input.username.toLowerCase(), input.username, input.full_name ?? '', input.email ?? '', userTypes.organization,
        visibilities.indexOf(input.visibility ?? 'public'), input.description ?? '', input.website ?? '', input.location ?? '',
        input.repo_admin_change_team_access ?? false,
      ],
    );
    org = toUserRow(raw) as OrgRow;
  } catch (error) {
    if (isUniqueViolation(error)) throw invalid(`user already exists [name: ${input.username}]`);
    throw error;
  }
  await createOwnerTeam(tx, org, owner);
  await emit(tx, { kind: 'organization.created', doerId: doer.id, payload: { org_id: org.id, name: org.name, owner_id: owner.id } });
  return org;
}

/** orgEdit: only the fields present change. */
export async function editOrganization(tx: Tx, org: OrgRow, edit: OrgInput): Promise<OrgRow> {
  assertOrgFields(edit);
  const sets: RowChanges<'user'> = {};
  for (const column of ['full_name', 'email', 'description', 'website', 'location', 'repo_admin_change_team_access'] as const) {
    if (edit[column] !== undefined) sets[column] = edit[column];
  }
  if (edit.visibility !== undefined) sets.visibility = visibilities.indexOf(edit.visibility);
  const raw = await updateRow(tx, 'user', org.id, sets, { where: { type: userTypes.organization } });
  if (!raw) throw notFound();
  return toUserRow(raw) as OrgRow;
}

async function ownedRepos(tx: Queryable, ownerId: number): Promise<RepoRow[]> {
  return tx.query<RepoRow>('SELECT * FROM repository WHERE owner_id = $1 ORDER BY id FOR UPDATE', [ownerId]);
}

/**
 * Deletes an organization with its teams, memberships, labels and blocks. It must own no repository, unless
 * `purge`, which deletes them first (their directories go once the deletion is durable).
 */
export async function deleteOrganization(
  tx: Tx,
  ctx: RepoContext & AvatarContext,
  org: OrgRow,
  doer: UserRow,
  options: { purge?: boolean } = {},
): Promise<void> {
  const repos = await ownedRepos(tx, org.id);
  if (repos.length > 0 && !options.purge) throw invalid(`user still has ownership of repositories [uid: ${org.id}]`);
  for (const repo of repos) await deleteRepository(tx, ctx, repo, doer);
  const deleted = await tx.query('DELETE FROM "user" WHERE id = $1 AND type = $2 RETURNING id', [org.id, userTypes.organization]);
  if (deleted.length === 0) throw notFound();
  await emit(tx, { kind: 'organization.deleted', doerId: doer.id, payload: { org_id: org.id, name: org.name } });
  forgetAvatar(tx, ctx, org.avatar);
}

/** The owners of an organization, locked: the last one cannot leave. */
async function lockedOwnerIds(tx: Tx, orgId: number): Promise<number[]> {
  const rows = await tx.query<{ uid: number }>(
    `SELECT tu.uid FROM team_user tu JOIN team t ON t.id = tu.team_id WHERE t.org_id = $1 AND t.lower_name = $2 ORDER BY tu.uid FOR UPDATE OF tu`,
    [orgId, ownerTeam],
  );
  return rows.map((row) => row.uid);
}

/** Removes a user from the organization and all its teams; the last owner cannot be removed. */
export async function removeOrgMember(tx: Tx, org: OrgRow, user: UserRow, doer: UserRow): Promise<void> {
  if (!(await isOrgMember(tx, org.id, user.id))) return;
  const owners = await lockedOwnerIds(tx, org.id);
  if (owners.length === 1 && owners[0] === user.id) throw invalid(`user is the last member of owner team [uid: ${user.id}]`);
  await tx.query('DELETE FROM team_user WHERE org_id = $1 AND uid = $2', [org.id, user.id]);
  await tx.query('DELETE FROM org_user WHERE org_id = $1 AND uid = $2', [org.id, user.id]);
  await emit(tx, { kind: 'organization.member_removed', doerId: doer.id, payload: { org_id: org.id, user_id: user.id } });
}

/** Publicize or conceal one's own membership. */
export async function setMembershipVisibility(tx: Tx, org: OrgRow, user: UserRow, isPublic: boolean): Promise<void> {
  const updated = await tx.query('UPDATE org_user SET is_public = $3 WHERE org_id = $1 AND uid = $2 RETURNING uid', [org.id, user.id, isPublic]);
  if (updated.length === 0) throw notFound(`user ${user.name} is not a member of ${org.name}`);
}

export async function isPublicMember(db: Queryable, orgId: number, userId: number): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM org_user WHERE org_id = $1 AND uid = $2 AND is_public', [orgId, userId]);
  return rows.length > 0;
}

type Page = { limit: number; offset: number };

export async function listMembers(db: Queryable, org: OrgRow, publicOnly: boolean, page: Page): Promise<{ users: UserRow[]; total: number }> {
  const where = `ou.org_id = $1${publicOnly ? ' AND ou.is_public' : ''}`;
  const { rows, total } = await selectPage<Record<string, unknown>>(db, {
    select: 'u.*', from: `org_user ou JOIN "user" u ON u.id = ou.uid WHERE ${where}`, params: [org.id], orderBy: 'u.lower_name', page,
  });
  return { users: rows.map(toUserRow), total };
}

/**
 * Organizations a viewer may list (Gitea's SearchUsers for organizations): anonymous callers see public ones,
 * signed-in users also limited ones, administrators all; a restricted user only those they belong to.
 */
export async function listOrgs(db: Queryable, viewer: UserRow | null, page: Page): Promise<{ orgs: OrgRow[]; total: number }> {
  let where = 'u.type = 1 AND u.visibility = 0';
  const params: unknown[] = [];
  if (viewer?.is_admin) where = 'u.type = 1';
  else if (viewer?.restricted) {
    params.push(viewer.id);
    where = 'u.type = 1 AND u.visibility < 2 AND EXISTS (SELECT 1 FROM org_user ou WHERE ou.org_id = u.id AND ou.uid = $1)';
  } else if (viewer) where = 'u.type = 1 AND u.visibility < 2';
  return pageOfOrgs(db, where, params, page);
}

/**
 * A user's organizations as `viewer` may see them: all of them for the user and administrators; for others only
 * public memberships of organizations the viewer may list (never private ones).
 */
export async function listUserOrgs(db: Queryable, user: UserRow, viewer: UserRow | null, page: Page): Promise<{ orgs: OrgRow[]; total: number }> {
  const everything = viewer !== null && (viewer.is_admin || viewer.id === user.id);
  const where = everything
    ? 'u.type = 1 AND EXISTS (SELECT 1 FROM org_user ou WHERE ou.org_id = u.id AND ou.uid = $1)'
    : `u.type = 1 AND u.visibility ${viewer ? '< 2' : '= 0'} AND EXISTS (SELECT 1 FROM org_user ou WHERE ou.org_id = u.id AND ou.uid = $1 AND ou.is_public)`;
  return pageOfOrgs(db, where, [user.id], page);
}

async function pageOfOrgs(db: Queryable, where: string, params: unknown[], page: Page): Promise<{ orgs: OrgRow[]; total: number }> {
  const { rows, total } = await selectPage<Record<string, unknown>>(db, { select: 'u.*', from: `"user" u WHERE ${where}`, params, orderBy: 'u.lower_name', page });
  return { orgs: rows.map((raw) => toUserRow(raw) as OrgRow), total };
}

export interface OrgPermissions {
  /** The highest mode of the user's teams in the organization (owner for the Owners team). */
  mode: AccessMode;
  canCreateRepository: boolean;
}

/** GetOrgUserMaxAuthorizeLevel and CanCreateOrgRepo in one query. */
export async function orgPermissionsOf(db: Queryable, org: OrgRow, user: UserRow): Promise<OrgPermissions> {
  const [row] = await db.query<{ mode: number | null; can_create: boolean | null }>(
    `SELECT max(t.authorize) AS mode, bool_or(t.can_create_org_repo OR t.lower_name = $3) AS can_create
     FROM team t JOIN team_user tu ON tu.team_id = t.id WHERE t.org_id = $1 AND tu.uid = $2`,
    [org.id, user.id, ownerTeam],
  );
  return { mode: (row?.mode ?? accessModes.none) as AccessMode, canCreateRepository: row?.can_create ?? false };
}

/**
 * Creates a repository owned by the organization. When the creator does not administer it through a team
 * (a member of a team that may create repositories), they become its administrator as a collaborator, as in Gitea.
 */
export async function createOrgRepository(tx: Tx, ctx: RepoContext, org: OrgRow, doer: UserRow, input: NewRepo): Promise<RepoRow> {
  const repo = await createRepository(tx, ctx, org, doer, input);
  if ((await accessModeOf(tx, doer, repo)) < accessModes.admin) {
    await tx.query(
      `INSERT INTO collaboration (repo_id, user_id, mode) VALUES ($1, $2, $3)
       ON CONFLICT (repo_id, user_id) DO UPDATE SET mode = EXCLUDED.mode`,
      [repo.id, doer.id, accessModes.admin],
    );
  }
  return repo;
}

/** The organization's repositories the viewer may read, oldest first (Gitea's ListOrgRepos order). */
export async function listOrgRepos(db: Queryable, org: OrgRow, viewer: UserRow | null, page: Page): Promise<{ repos: RepoRow[]; total: number }> {
  const where = `r.owner_id = $1 AND ${readableReposCondition('r', '$2')}`;
  const params = [org.id, viewer?.id ?? null];
  const { rows, total } = await selectPage<RepoRow>(db, { select: 'r.*', from: `repository r WHERE ${where}`, params, orderBy: 'r.id', page });
  return { repos: rows, total };
}

export interface AvatarContext {
  blobs: BlobStore;
}

/** Stores a new avatar for a user or organization; the previous image goes once the change is durable. */
export async function updateAvatar(tx: Tx, ctx: AvatarContext, owner: UserRow, image: Buffer): Promise<UserRow> {
  if (image.length === 0) throw invalid('the avatar image is empty');
  assertAvatarImage(image);
  const key = `avatar-${owner.id}-${createHash('md5').update(image).digest('hex')}`;
  const [raw] = await tx.query('UPDATE "user" SET avatar = $2, updated = now() WHERE id = $1 RETURNING *', [owner.id, key]);
  if (!raw) throw notFound();
  if (key !== owner.avatar) {
    await ctx.blobs.put(key, Readable.from(image));
    tx.onRollback(() => ctx.blobs.delete(key));
    forgetAvatar(tx, ctx, owner.avatar);
  }
  return toUserRow(raw);
}

export async function deleteAvatar(tx: Tx, ctx: AvatarContext, owner: UserRow): Promise<UserRow> {
  const [raw] = await tx.query(`UPDATE "user" SET avatar = '', updated = now() WHERE id = $1 RETURNING *`, [owner.id]);
  if (!raw) throw notFound();
  forgetAvatar(tx, ctx, owner.avatar);
  return toUserRow(raw);
}

function forgetAvatar(tx: Tx, ctx: AvatarContext, key: string): void {
  if (key.startsWith('avatar-')) tx.afterCommit(() => ctx.blobs.delete(key));
}

/** How a user is removed: `purge` also deletes what they own instead of refusing. */
export interface UserRemoval {
  ctx: RepoContext & AvatarContext;
  doer: UserRow;
  purge: boolean;
}

/**
 * What deleting a user does to what they hold (Gitea's DeleteUser). Without `purge`, a user who owns
 * repositories or belongs to organizations cannot be deleted. With it, their repositories are deleted, and so is
 * every organization they are the only owner of, with its repositories; other memberships simply end.
 */
export async function releaseHoldings(tx: Tx, user: UserRow, { ctx, doer, purge }: UserRemoval): Promise<void> {
  const repos = await ownedRepos(tx, user.id);
  if (repos.length > 0 && !purge) throw invalid(`user still has ownership of repositories [uid: ${user.id}]`);
  const orgs = await tx.query<{ org_id: number }>('SELECT org_id FROM org_user WHERE uid = $1 ORDER BY org_id', [user.id]);
  if (orgs.length > 0 && !purge) throw invalid(`user still has membership of organizations [uid: ${user.id}]`);
  for (const repo of repos) await deleteRepository(tx, ctx, repo, doer);
  for (const org of await findOrgsByIds(tx, orgs.map((row) => row.org_id))) {
    const owners = await lockedOwnerIds(tx, org.id);
    if (owners.length === 1 && owners[0] === user.id) await deleteOrganization(tx, ctx, org, doer, { purge: true });
  }
  forgetAvatar(tx, ctx, user.avatar);
}

export interface OrgFeedFilter {
  orgId: number;
  /** Only repositories this team gives access to. */
  teamId?: number;
  includePrivate: boolean;
  /** YYYY-MM-DD: only that day (UTC). */
  day?: string;
}

/** Activities on the organization's (or one team's) repositories, newest first: the organization and team feeds. */
export async function listOrgFeed(db: Queryable, filter: OrgFeedFilter, page: Page): Promise<{ entries: FeedEntry[]; total: number }> {
  const where = ['r.owner_id = $1'];
  const params: unknown[] = [filter.orgId];
  if (!filter.includePrivate) where.push('NOT r.is_private');
  if (filter.teamId !== undefined) {
    params.push(filter.teamId);
    where.push(`EXISTS (SELECT 1 FROM team t WHERE t.id = $2 AND (t.includes_all_repositories
      OR EXISTS (SELECT 1 FROM team_repo tr WHERE tr.team_id = t.id AND tr.repo_id = r.id)))`);
  }
  return queryFeed(db, where, params, filter.day, page);
}
