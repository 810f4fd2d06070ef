import type { Queryable, Tx } from '../../data-source.js';
import { forbidden, invalid, isUniqueViolation } from '../../errors.js';
import { emit } from '../../events/emit.js';
import { previousValues } from '../../events/previous-values.js';
import { selectPage, updateRow, type RowChanges } from '../../sql.js';
import { isBlocked } from '../users/blocks.js';
import { accessModes, type AccessMode, type RepoRow } from '../repos/repo-row.js';
import { toUserRow, userTypes, type UserRow } from '../users/user-row.js';
import { accessModeNames, unitKeys, type AccessModeName, type UnitKey } from './team-units.js';

export { accessModeNames, unitKeys, type AccessModeName, type UnitKey };

/** External units can only ever be read. */
const readOnlyUnits = new Set<UnitKey>(['repo.ext_wiki', 'repo.ext_issues']);

export const ownerTeamName = 'Owners';

/** A row of the `team` table. */
export interface TeamRow {
  id: number;
  org_id: number;
  lower_name: string;
  name: string;
  description: string;
  authorize: AccessMode;
  includes_all_repositories: boolean;
  can_create_org_repo: boolean;
  created: Date;
  updated: Date;
}

/** A team with its unit permissions: what every team answer renders. */
export interface TeamView extends TeamRow {
  units: Partial<Record<UnitKey, AccessMode>>;
}

export function isOwnerTeam(team: Pick<TeamRow, 'lower_name'>): boolean {
  return team.lower_name === ownerTeamName.toLowerCase();
}

function isUnitKey(key: string): key is UnitKey {
  return (unitKeys as readonly string[]).includes(key);
}

function parseUnit(key: string): UnitKey {
  if (!isUnitKey(key)) throw invalid(`invalid unit: ${key} (known units: ${unitKeys.join(', ')})`);
  return key;
}

/** units_map values: none, read, write and admin (owner is reserved for the Owners team). */
function parseUnitMode(unit: string, name: string): AccessMode {
  const mode = (['none', 'read', 'write', 'admin'] as const).indexOf(name as 'none');
  if (mode < 0) throw invalid(`invalid permission "${name}" for unit ${unit}: must be none, read, write or admin`);
  return mode as AccessMode;
}

/** Gitea's MinUnitAccessMode: the smallest granted mode, ignoring external units; none when nothing is granted. */
function minUnitMode(units: Partial<Record<UnitKey, AccessMode>>): AccessMode {
  let result: AccessMode = accessModes.none;
  for (const [unit, mode] of Object.entries(units) as Array<[UnitKey, AccessMode]>) {
    if (readOnlyUnits.has(unit)) continue;
    if (mode > accessModes.none && (result === accessModes.none || mode < result)) result = mode;
  }
  return result;
}

/** Every unit at `mode` (external units read): what admin and owner teams hold. */
function allUnits(mode: AccessMode): Partial<Record<UnitKey, AccessMode>> {
  return Object.fromEntries(unitKeys.map((unit) => [unit, readOnlyUnits.has(unit) ? accessModes.read : mode]));
}

const validTeamName = /^[\w.-]+$/;

function assertUsableTeamName(name: string): void {
  if (!name || name.length > 255) throw invalid('[Name]: team name must be between 1 and 255 characters');
  if (!validTeamName.test(name)) throw invalid(`[Name]: team name must be valid alpha or numeric or dash(-_) or dot characters: ${name}`);
  if (name.toLowerCase() === 'new') throw invalid(`name is reserved [name: ${name}]`);
}

export interface TeamFilter {
  teamId?: number;
  orgId?: number;
  /** Teams this user is a member of. */
  memberId?: number;
  /** Teams that give access to this repository (listed in team_repo, or including all repositories of its organization). */
  repoId?: number;
  lowerName?: string;
  keyword?: string;
  /** With `keyword`: also match the description. */
  includeDesc?: boolean;
}

/**
 * The one way teams are read, with their units: the organization's team list, the caller's teams, team search,
 * a repository's teams and every single-team answer go through here.
 */
export async function listTeams(
  db: Queryable,
  filter: TeamFilter,
  page?: { limit: number; offset: number },
): Promise<{ teams: TeamView[]; total: number }> {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (clause: (n: number) => string, value: unknown): void => {
    params.push(value);
    where.push(clause(params.length));
  };
  if (filter.teamId !== undefined) add((n) => `t.id = $${n}`, filter.teamId);
  if (filter.orgId !== undefined) add((n) => `t.org_id = $${n}`, filter.orgId);
  if (filter.lowerName !== undefined) add((n) => `t.lower_name = $${n}`, filter.lowerName.toLowerCase());
  if (filter.memberId !== undefined) add((n) => `EXISTS (SELECT 1 FROM team_user tu WHERE tu.team_id = t.id AND tu.uid = $${n})`, filter.memberId);
  if (filter.repoId !== undefined) {
    add(
      (n) => `t.org_id = (SELECT owner_id FROM repository WHERE id = $${n})
        AND (t.includes_all_repositories OR EXISTS (SELECT 1 FROM team_repo tr WHERE tr.team_id = t.id AND tr.repo_id = $${n}))`,
      filter.repoId,
    );
  }
  if (filter.keyword) {
    const pattern = `%${filter.keyword.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    add((n) => (filter.includeDesc ? `(t.lower_name LIKE $${n} OR lower(t.description) LIKE $${n})` : `t.lower_name LIKE $${n}`), pattern);
  }
  const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const { rows, total } = await selectPage<Omit<TeamView, 'units'> & { units: Record<string, AccessMode> }>(db, {
    select: `t.*, COALESCE((SELECT jsonb_object_agg(u.type, u.access_mode) FROM team_unit u WHERE u.team_id = t.id), '{}') AS units`,
    from: `team t ${clause}`, params, orderBy: 't.lower_name, t.id', page,
  });
  const teams = rows.map((row) => ({
    ...row,
    units: Object.fromEntries(Object.entries(row.units).filter(([key]) => isUnitKey(key))) as TeamView['units'],
  }));
  return { teams, total };
}

export async function findTeam(db: Queryable, id: number): Promise<TeamView | null> {
  const { teams } = await listTeams(db, { teamId: id });
  return teams[0] ?? null;
}

export async function findTeamByName(db: Queryable, orgId: number, name: string): Promise<TeamView | null> {
  const { teams } = await listTeams(db, { orgId, lowerName: name });
  return teams[0] ?? null;
}

export interface TeamInput {
  name?: string;
  description?: string;
  permission?: 'none' | 'read' | 'write' | 'admin';
  includes_all_repositories?: boolean;
  can_create_org_repo?: boolean;
  units?: string[];
  units_map?: Record<string, string>;
}

/** The mode and units a create or edit asks for; `null` units mean "keep what the team has". */
function resolvePermissions(
  input: TeamInput,
  current: { authorize: AccessMode; units: TeamView['units'] } | null,
): { authorize: AccessMode; units: TeamView['units'] | null } {
  const unitsMap = input.units_map && Object.keys(input.units_map).length > 0 ? input.units_map : null;
  const unitList = input.units && input.units.length > 0 ? input.units : null;
  const parsedMap = unitsMap
    ? Object.fromEntries(Object.entries(unitsMap).map(([unit, name]) => [parseUnit(unit), parseUnitMode(unit, name)]))
    : null;
  const parsedList = unitList ? unitList.map(parseUnit) : null;
  let authorize: AccessMode = input.permission
    ? (accessModeNames.indexOf(input.permission) as AccessMode)
    : current?.authorize ?? (parsedMap ? accessModes.none : accessModes.read);
  if (authorize < accessModes.admin && parsedMap && (input.permission || !current)) authorize = minUnitMode(parsedMap);
  if (authorize >= accessModes.admin) return { authorize, units: allUnits(authorize) };
  if (parsedMap) return { authorize, units: parsedMap };
  if (parsedList) return { authorize, units: Object.fromEntries(parsedList.map((unit) => [unit, authorize])) };
  if (!current) throw invalid('units permission should not be empty: give units or units_map');
  // A team that leaves admin keeps its units at its new mode.
  if (current.authorize >= accessModes.admin) return { authorize, units: allUnits(authorize) };
  return { authorize, units: null };
}

async function writeUnits(tx: Tx, team: Pick<TeamRow, 'id' | 'org_id'>, units: TeamView['units']): Promise<void> {
  await tx.query('DELETE FROM team_unit WHERE team_id = $1', [team.id]);
  const entries = Object.entries(units);
  if (entries.length === 0) return;
  await tx.query(
    `INSERT INTO team_unit (team_id, org_id, type, access_mode)
     SELECT $1, $2, unnest($3::text[]), unnest($4::smallint[])`,
    [team.id, team.org_id, entries.map(([unit]) => unit), entries.map(([, mode]) => mode)],
  );
}

async function insertTeam(tx: Tx, org: UserRow, row: Omit<TeamRow, 'id' | 'org_id' | 'lower_name' | 'created' | 'updated'>): Promise<TeamRow> {
  try {
    const [team] = await tx.query<TeamRow>(
      `INSERT INTO team (org_id, lower_name, name, description, authorize, includes_all_repositories, can_create_org_repo)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
      [org.id, row.name.toLowerCase(), row.name, row.description, row.authorize, row.includes_all_repositories, row.can_create_org_repo],
    );
    return team;
  } catch (error) {
    if (isUniqueViolation(error)) throw invalid(`team already exists [org_id: ${org.id}, name: ${row.name}]`);
    throw error;
  }
}

/** The Owners team, created with its organization: every unit at owner, every repository, the creator as member. */
export async function createOwnerTeam(tx: Tx, org: UserRow, creator: UserRow): Promise<TeamRow> {
  const team = await insertTeam(tx, org, {
    name: ownerTeamName, description: '', authorize: accessModes.owner, includes_all_repositories: true, can_create_org_repo: true,
  });
  await writeUnits(tx, team, allUnits(accessModes.owner));
  await tx.query('INSERT INTO team_user (team_id, org_id, uid) VALUES ($1, $2, $3)', [team.id, org.id, creator.id]);
  await tx.query('INSERT INTO org_user (org_id, uid) VALUES ($1, $2) ON CONFLICT DO NOTHING', [org.id, creator.id]);
  return team;
}

export async function createTeam(tx: Tx, org: UserRow, input: TeamInput & { name: string }, doer: UserRow): Promise<TeamView> {
  assertUsableTeamName(input.name);
  const { authorize, units } = resolvePermissions(input, null);
  const team = await insertTeam(tx, org, {
    name: input.name,
    description: input.description ?? '',
    authorize,
    includes_all_repositories: input.includes_all_repositories ?? false,
    can_create_org_repo: input.can_create_org_repo ?? false,
  });
  await writeUnits(tx, team, units ?? {});
  await emit(tx, { kind: 'team.created', doerId: doer.id, payload: { org_id: org.id, team_id: team.id, name: team.name } });
  return (await findTeam(tx, team.id))!;
}

const editableTeamFields = ['name', 'description', 'authorize', 'includes_all_repositories', 'can_create_org_repo', 'units'] as const;

/** orgEditTeam: every field optional, absent fields unchanged; the Owners team keeps its name, mode and repositories. */
export async function editTeam(tx: Tx, team: TeamView, input: TeamInput, doer: UserRow): Promise<TeamView> {
  const owners = isOwnerTeam(team);
  const sets: RowChanges<'team'> = {};
  if (input.name !== undefined && input.name !== '' && input.name !== team.name) {
    if (owners) throw invalid('the Owners team cannot be renamed');
    assertUsableTeamName(input.name);
    sets.name = input.name;
    sets.lower_name = input.name.toLowerCase();
  }
  if (input.description !== undefined) sets.description = input.description;
  if (input.can_create_org_repo !== undefined) sets.can_create_org_repo = owners || input.can_create_org_repo;
  let units: TeamView['units'] | null = null;
  if (!owners) {
    const resolved = resolvePermissions(input, team);
    if (resolved.authorize !== team.authorize) sets.authorize = resolved.authorize;
    units = resolved.units;
    if (input.includes_all_repositories !== undefined && input.includes_all_repositories !== team.includes_all_repositories) {
      sets.includes_all_repositories = input.includes_all_repositories;
      // Like Gitea, a team that stops including everything keeps the repositories it had.
      if (!input.includes_all_repositories) {
        await tx.query(
          `INSERT INTO team_repo (team_id, org_id, repo_id) SELECT $1, $2, id FROM repository WHERE owner_id = $2 ON CONFLICT DO NOTHING`,
          [team.id, team.org_id],
        );
      }
    }
  }
  if (Object.keys(sets).length > 0) {
    try {
      await updateRow(tx, 'team', team.id, sets);
    } catch (error) {
      if (isUniqueViolation(error)) throw invalid(`team already exists [org_id: ${team.org_id}, name: ${input.name}]`);
      throw error;
    }
  }
  if (units) await writeUnits(tx, team, units);
  const edited = (await findTeam(tx, team.id))!;
  await emit(tx, {
    kind: 'team.edited', doerId: doer.id,
    payload: { org_id: team.org_id, team_id: team.id, previous: previousValues(team, edited, editableTeamFields) },
  });
  return edited;
}

/** Members who are in no other team of the organization stop being members of it. */
async function dropOrphanMemberships(tx: Tx, orgId: number, userIds: number[]): Promise<void> {
  await tx.query(
    `DELETE FROM org_user ou WHERE ou.org_id = $1 AND ou.uid = ANY($2::bigint[])
       AND NOT EXISTS (SELECT 1 FROM team_user tu WHERE tu.org_id = $1 AND tu.uid = ou.uid)`,
    [orgId, userIds],
  );
}

export async function deleteTeam(tx: Tx, team: TeamView, doer: UserRow): Promise<void> {
  if (isOwnerTeam(team)) throw invalid('the Owners team cannot be deleted');
  const members = await tx.query<{ uid: number }>('DELETE FROM team_user WHERE team_id = $1 RETURNING uid', [team.id]);
  await tx.query('DELETE FROM team WHERE id = $1', [team.id]);
  await dropOrphanMemberships(tx, team.org_id, members.map((m) => m.uid));
  await emit(tx, { kind: 'team.deleted', doerId: doer.id, payload: { org_id: team.org_id, team_id: team.id, name: team.name } });
}

export async function isTeamMember(db: Queryable, teamId: number, userId: number): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM team_user WHERE team_id = $1 AND uid = $2', [teamId, userId]);
  return rows.length > 0;
}

/** Adds a user to a team (and so to its organization); a user the organization blocked cannot join. */
export async function addTeamMember(tx: Tx, team: TeamRow, user: UserRow, doer: UserRow): Promise<void> {
  if (user.type !== userTypes.individual) throw invalid(`${user.name} is an organization, not a user`);
  if (await isBlocked(tx, team.org_id, user.id)) throw forbidden(`user is blocked by the organization [uid: ${user.id}]`);
  const added = await tx.query(
    'INSERT INTO team_user (team_id, org_id, uid) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING uid',
    [team.id, team.org_id, user.id],
  );
  if (added.length === 0) return;
  await tx.query('INSERT INTO org_user (org_id, uid) VALUES ($1, $2) ON CONFLICT DO NOTHING', [team.org_id, user.id]);
  await emit(tx, { kind: 'team.member_added', doerId: doer.id, payload: { org_id: team.org_id, team_id: team.id, user_id: user.id } });
}

/** Removes a user from a team; the Owners team always keeps one member. */
export async function removeTeamMember(tx: Tx, team: TeamRow, user: UserRow, doer: UserRow): Promise<void> {
  if (isOwnerTeam(team)) {
    const members = await tx.query<{ uid: number }>('SELECT uid FROM team_user WHERE team_id = $1 ORDER BY uid FOR UPDATE', [team.id]);
    if (members.length === 1 && members[0].uid === user.id) {
      throw invalid(`user is the last member of owner team [uid: ${user.id}]`);
    }
  }
  const removed = await tx.query('DELETE FROM team_user WHERE team_id = $1 AND uid = $2 RETURNING uid', [team.id, user.id]);
  if (removed.length === 0) return;
  await dropOrphanMemberships(tx, team.org_id, [user.id]);
  await emit(tx, { kind: 'team.member_removed', doerId: doer.id, payload: { org_id: team.org_id, team_id: team.id, user_id: user.id } });
}

export async function listTeamMembers(db: Queryable, teamId: number, page: { limit: number; offset: number }): Promise<{ users: UserRow[]; total: number }> {
  const { rows, total } = await selectPage<Record<string, unknown>>(db, {
    select: 'u.*', from: 'team_user tu JOIN "user" u ON u.id = tu.uid WHERE tu.team_id = $1', params: [teamId], orderBy: 'u.lower_name', page,
  });
  return { users: rows.map(toUserRow), total };
}

export async function teamHasRepo(db: Queryable, team: TeamRow, repo: RepoRow): Promise<boolean> {
  if (repo.owner_id !== team.org_id) return false;
  if (team.includes_all_repositories) return true;
  const rows = await db.query('SELECT 1 FROM team_repo WHERE team_id = $1 AND repo_id = $2', [team.id, repo.id]);
  return rows.length > 0;
}

/** A team including every repository already has this one; adding it again changes nothing. */
export async function addTeamRepo(tx: Tx, team: TeamRow, repo: RepoRow, doer: UserRow): Promise<void> {
  if (repo.owner_id !== team.org_id) throw invalid('the repository does not belong to the organization of the team');
  if (team.includes_all_repositories) return;
  const added = await tx.query(
    'INSERT INTO team_repo (team_id, org_id, repo_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING repo_id',
    [team.id, team.org_id, repo.id],
  );
  if (added.length > 0) await emit(tx, { kind: 'team.repo_added', repoId: repo.id, doerId: doer.id, payload: { org_id: team.org_id, team_id: team.id } });
}

/** Like Gitea, removing a repository from a team that includes all repositories is ignored. */
export async function removeTeamRepo(tx: Tx, team: TeamRow, repo: RepoRow, doer: UserRow): Promise<void> {
  if (team.includes_all_repositories) return;
  const removed = await tx.query('DELETE FROM team_repo WHERE team_id = $1 AND repo_id = $2 RETURNING repo_id', [team.id, repo.id]);
  if (removed.length > 0) await emit(tx, { kind: 'team.repo_removed', repoId: repo.id, doerId: doer.id, payload: { org_id: team.org_id, team_id: team.id } });
}

export async function listTeamRepos(db: Queryable, team: TeamRow, page: { limit: number; offset: number }): Promise<{ repos: RepoRow[]; total: number }> {
  const where = team.includes_all_repositories
    ? 'r.owner_id = $1'
    : 'r.owner_id = $1 AND EXISTS (SELECT 1 FROM team_repo tr WHERE tr.team_id = $2 AND tr.repo_id = r.id)';
  const params = team.includes_all_repositories ? [team.org_id] : [team.org_id, team.id];
  const { rows, total } = await selectPage<RepoRow>(db, { select: 'r.*', from: `repository r WHERE ${where}`, params, orderBy: 'r.lower_name', page });
  return { repos: rows, total };
}
