import type { Queryable } from '../data-source.js';
import { accessModes, repoRowFromJson, type AccessMode, type RepoRow } from './repos/repo-row.js';
import type { OrgRow } from './orgs/orgs.js';
import type { UnitKey } from './orgs/teams.js';
import { userRowFromJson, userTypes, visibilities, type UserRow } from './users/user-row.js';

/**
 * The one place that decides what a user may do in a repository: ownership, site administration,
 * collaboration and team membership, within what the owner's visibility lets the user see (Gitea's
 * GetUserRepoPermission). Used by every route and by git over HTTP.
 *
 * Organization owners (and members of admin teams) get owner mode on the organization's repositories; other
 * team members the highest mode of their teams that include the repository. With `unit` (e.g. 'repo.code'),
 * a non-admin team counts with its mode for that unit instead of its overall mode.
 */
export async function accessModeOf(db: Queryable, user: UserRow | null, repo: RepoRow, unit?: UnitKey): Promise<AccessMode> {
  if (user && user.id === repo.owner_id) return accessModes.owner;
  if (user?.is_admin) return accessModes.admin;
  return (await ownerAndAccess(db, user, repo, unit))?.mode ?? accessModes.none;
}

/** The repository column that switches a unit off; units without one are always on. */
const unitSwitches: Partial<Record<UnitKey, keyof RepoRow>> = {
  'repo.issues': 'has_issues', 'repo.pulls': 'has_pull_requests', 'repo.releases': 'has_releases', 'repo.wiki': 'has_wiki',
  'repo.projects': 'has_projects', 'repo.packages': 'has_packages', 'repo.actions': 'has_actions',
};

export function isUnitEnabled(repo: RepoRow, unit: UnitKey): boolean {
  const column = unitSwitches[unit];
  return column === undefined || Boolean(repo[column]);
}

/**
 * The user's mode for one unit of a repository in which their overall mode is `repoMode` (Gitea's
 * Permission.UnitAccessMode): a disabled unit reads as none, and repository administrators keep their mode in every unit.
 */
export async function unitModeOf(db: Queryable, user: UserRow | null, repo: RepoRow, unit: UnitKey, repoMode: AccessMode): Promise<AccessMode> {
  return withRepoMode(isUnitEnabled(repo, unit) ? await accessModeOf(db, user, repo, unit) : accessModes.none, repoMode);
}

/**
 * unitModeOf for a caller whose mode in the repository is known together with its owner's row: only teams give a mode
 * per unit and only organizations have teams, so for an anonymous caller, or in a repository no organization owns, the
 * unit's mode is the repository's (when the unit is on) and no query is needed.
 */
export async function unitModeWithOwner(db: Queryable, user: UserRow | null, repo: RepoRow, owner: UserRow, unit: UnitKey, repoMode: AccessMode): Promise<AccessMode> {
  if (user && owner.type === userTypes.organization) return unitModeOf(db, user, repo, unit, repoMode);
  return withRepoMode(isUnitEnabled(repo, unit) ? repoMode : accessModes.none, repoMode);
}

/** Repository administrators keep their mode in every unit. */
function withRepoMode(unitMode: AccessMode, repoMode: AccessMode): AccessMode {
  return repoMode >= accessModes.admin ? (Math.max(unitMode, repoMode) as AccessMode) : unitMode;
}

/**
 * The user's mode in the repository's own wiki (Gitea's UnitAccessMode(TypeWiki)): none while the wiki unit is off or
 * points at an external wiki, whoever asks, administrators included.
 */
export async function wikiModeOf(db: Queryable, user: UserRow | null, repo: RepoRow, repoMode: AccessMode): Promise<AccessMode> {
  if (!isUnitEnabled(repo, 'repo.wiki') || repo.external_wiki) return accessModes.none;
  return unitModeOf(db, user, repo, 'repo.wiki', repoMode);
}

/**
 * Who may add or remove the teams of an organization's repository (Gitea's reqRepoAdmin + the organization's
 * RepoAdminChangeTeamAccess): owners and site administrators always, repository administrators when the organization allows it.
 */
export function mayChangeRepoTeams(org: OrgRow, repoMode: AccessMode, user: UserRow | null): boolean {
  return org.repo_admin_change_team_access || repoMode >= accessModes.owner || Boolean(user?.is_admin);
}

export interface OwnerAndAccess {
  owner: UserRow;
  mode: AccessMode;
  /** Whether a transfer of the repository waits for its recipient. */
  transferPending: boolean;
}

/** A repository found by its owner's and its own name, with its owner and the caller's modes, in one round trip. */
export interface RepoAndAccess extends OwnerAndAccess {
  repo: RepoRow;
  /** The caller's mode in `unit` (Gitea's UnitAccessMode, the unit switch included) when one was asked for. */
  unitMode: AccessMode | null;
  /** What the preload read, as its `read` made it (undefined without one). */
  preloaded: unknown;
}

/**
 * A route's own read run for the repository the guard finds, as one more column of the guard's statement, so that a
 * hot read is one round trip. The caller may not see what it read: it is handed on only once the guard let the caller in.
 */
export interface RepoPreload<T> {
  /** A scalar subquery over the found repository `r` (a constant text); its parameters $1, $2, ... are `values`. */
  sql: string;
  values: unknown[];
  /** Turns the column's value (JSON, already parsed by pg) into what the route needs. */
  read(value: unknown): T;
  /** Its one generic plan is good for every parameter: the guard's statement carrying it is planned once (QueryOptions). */
  planOnce?: boolean;
}

/**
 * The columns that decide a user's mode, for the owner row `o`, the repository id `repoId`, the user id `userId`
 * and a unit name `unit` (SQL expressions): membership, collaboration, the teams' overall mode and their mode in the unit.
 */
function accessColumns(repoId: string, userId: string, unit: string): string {
  const teamMode = (unitMode: string) => `(SELECT max(CASE WHEN t.authorize >= ${accessModes.admin} THEN ${accessModes.owner} ELSE ${unitMode} END)
          FROM team t JOIN team_user tu ON tu.team_id = t.id AND tu.uid = ${userId}
          LEFT JOIN team_unit tu2 ON tu2.team_id = t.id AND tu2.type = ${unit}
          WHERE t.org_id = o.id
            AND (t.includes_all_repositories OR EXISTS (SELECT 1 FROM team_repo tr WHERE tr.team_id = t.id AND tr.repo_id = ${repoId})))`;
  return `EXISTS (SELECT 1 FROM org_user ou WHERE ou.org_id = o.id AND ou.uid = ${userId}) AS access_member,
       (SELECT c.mode FROM collaboration c WHERE c.repo_id = ${repoId} AND c.user_id = ${userId}) AS access_collaboration,
       ${teamMode('t.authorize')} AS access_team,
       ${teamMode('COALESCE(tu2.access_mode, 0)')} AS access_team_unit,
       EXISTS (SELECT 1 FROM repo_transfer rt WHERE rt.repo_id = ${repoId}) AS access_transfer`;
}

/**
 * accessColumns for an anonymous caller, who is no member, collaborator or team member: constants, so the statement
 * has no per-user subqueries and PostgreSQL keeps one generic plan for it (with the user id as a NULL parameter it
 * would plan every execution anew, as the custom plan folds those subqueries away and looks cheaper).
 */
function anonymousAccessColumns(repoId: string): string {
  return `false AS access_member, NULL::smallint AS access_collaboration, NULL::int AS access_team, NULL::int AS access_team_unit,
       EXISTS (SELECT 1 FROM repo_transfer rt WHERE rt.repo_id = ${repoId}) AS access_transfer`;
}

// The guard's statements, spelled once: a text built anew per request would be rebuilt and hashed again to find its prepared statement.
const ownerAndAccessSql = {
  user: `SELECT row_to_json(o) AS access_owner, ${accessColumns('$2', '$3::bigint', '$4::text')} FROM "user" o WHERE o.id = $1`,
  anonymous: `SELECT row_to_json(o) AS access_owner, ${anonymousAccessColumns('$2')} FROM "user" o WHERE o.id = $1`,
};
const repoAndAccessFrom = 'FROM repository r JOIN "user" o ON o.id = r.owner_id WHERE o.lower_name = $1 AND r.lower_name = $2';
const repoAndAccessSql = {
  user: `SELECT row_to_json(r) AS access_repo, row_to_json(o) AS access_owner, ${accessColumns('r.id', '$3::bigint', '$4::text')}`,
  anonymous: `SELECT row_to_json(r) AS access_repo, row_to_json(o) AS access_owner, ${anonymousAccessColumns('r.id')}`,
};
const guardParamCount = { user: 4, anonymous: 2 };

type CallerKind = keyof typeof repoAndAccessSql;
const plainRepoAndAccessTexts: Record<CallerKind, string> = {
  user: `${repoAndAccessSql.user} ${repoAndAccessFrom}`,
  anonymous: `${repoAndAccessSql.anonymous} ${repoAndAccessFrom}`,
};
/** By preload text (a constant, so finding it costs no hashing of a new string): the guard's statements carrying it. */
const preloadingTexts = new Map<string, Record<CallerKind, string>>();

/** The guard's statement for a caller kind, with a preload's subquery as one more column, its parameters after the guard's. */
function repoAndAccessText(kind: CallerKind, preloadSql: string | undefined): string {
  if (preloadSql === undefined) return plainRepoAndAccessTexts[kind];
  let texts = preloadingTexts.get(preloadSql);
  if (!texts) {
    const withPreload = (k: CallerKind): string => {
      const column = preloadSql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + guardParamCount[k]}`);
      return `${repoAndAccessSql[k]}, ${column} AS access_preloaded ${repoAndAccessFrom}`;
    };
    texts = { user: withPreload('user'), anonymous: withPreload('anonymous') };
    preloadingTexts.set(preloadSql, texts);
  }
  return texts[kind];
}

export interface AccessColumns {
  access_member: boolean;
  access_collaboration: number | null;
  access_team: number | null;
  access_team_unit: number | null;
  access_transfer: boolean;
}

/**
 * The repository's owner row and the user's mode in one round trip: the hot path of every repository route.
 * `null` when the owner row is gone. With `unit`, teams count with their mode in that unit.
 */
export async function ownerAndAccess(db: Queryable, user: UserRow | null, repo: RepoRow, unit?: UnitKey): Promise<OwnerAndAccess | null> {
  const [raw] = await db.query<AccessColumns & { access_owner: Record<string, unknown> }>(
    user ? ownerAndAccessSql.user : ownerAndAccessSql.anonymous,
    user ? [repo.owner_id, repo.id, user.id, unit ?? null] : [repo.owner_id, repo.id],
  );
  if (!raw) return null;
  const owner = userRowFromJson(raw.access_owner);
  const team = unit ? raw.access_team_unit : raw.access_team;
  return { owner, mode: modeFrom(owner, user, repo, raw.access_member, raw.access_collaboration, team), transferPending: raw.access_transfer };
}

/**
 * SQL columns that read, beside a repository `r` (any statement that has it), what ownerAndAccess answers for an
 * anonymous caller: its owner `o` as JSON (join "user" o ON o.id = r.owner_id) and whether a transfer waits.
 * anonymousAccessOf reads them back.
 */
export const anonymousAccessSql = `row_to_json(o) AS access_owner, ${anonymousAccessColumns('r.id')}`;

export function anonymousAccessOf(repo: RepoRow, raw: AccessColumns & { access_owner: Record<string, unknown> | null }): OwnerAndAccess | null {
  if (!raw.access_owner) return null;
  const owner = userRowFromJson(raw.access_owner);
  return { owner, mode: modeFrom(owner, null, repo, false, null, null), transferPending: raw.access_transfer };
}

/**
 * The repository `ownerName/repoName`, its owner and the user's modes (overall and in `unit`) in one query: what every
 * repository route's guard needs. `null` when no such repository exists (a renamed one is found by its redirect elsewhere).
 */
export async function findRepoAndAccess(
  db: Queryable, ownerName: string, repoName: string, user: UserRow | null, unit?: UnitKey, preload?: RepoPreload<unknown>,
): Promise<RepoAndAccess | null> {
  const names = [ownerName.toLowerCase(), repoName.toLowerCase()];
  const params = user ? [...names, user.id, unit ?? null] : names;
  // Rows as JSON: pg builds a result row by copying an object of all its columns, which for ~60 columns costs
  // twice what parsing the same row as one JSON value does.
  const [raw] = await db.query<AccessColumns & { access_repo: Record<string, unknown>; access_owner: Record<string, unknown>; access_preloaded?: unknown }>(
    repoAndAccessText(user ? 'user' : 'anonymous', preload?.sql),
    preload ? [...params, ...preload.values] : params,
    { planOnce: preload?.planOnce },
  );
  if (!raw) return null;
  const { access_member, access_collaboration, access_team, access_team_unit, access_transfer } = raw;
  const repo = repoRowFromJson(raw.access_repo);
  const owner = userRowFromJson(raw.access_owner);
  const mode = modeFrom(owner, user, repo, access_member, access_collaboration, access_team);
  const unitMode = unit
    ? withRepoMode(isUnitEnabled(repo, unit) ? modeFrom(owner, user, repo, access_member, access_collaboration, access_team_unit) : accessModes.none, mode)
    : null;
  const preloaded = preload && mode >= accessModes.read ? preload.read(raw.access_preloaded) : undefined;
  return { repo, owner, mode, unitMode, transferPending: access_transfer, preloaded };
}

function modeFrom(owner: UserRow, user: UserRow | null, repo: RepoRow, member: boolean, collaboration: number | null, team: number | null): AccessMode {
  // a task token: its run's repository and nothing else, even public ones (Gitea's repoAssignment for the actions user)
  if (user?.actions_task) return user.actions_task.repo_id === repo.id ? user.actions_task.mode : accessModes.none;
  if (user && user.id === repo.owner_id) return accessModes.owner;
  if (user?.is_admin) return accessModes.admin;
  const ownerVisible = isOwnerVisible(visibilities[owner.visibility], user, member);
  if (!ownerVisible && collaboration === null) return accessModes.none;
  const granted = Math.max(collaboration ?? accessModes.none, team ?? accessModes.none);
  const floor = !repo.is_private && ownerVisible && !user?.restricted ? accessModes.read : accessModes.none;
  return Math.max(floor, granted) as AccessMode;
}

/**
 * Gitea's HasOrgOrUserVisible for a caller who is neither the owner nor an administrator: public owners are
 * visible to all, limited ones to signed-in users, private ones (and any owner, for a restricted user) only to members.
 */
function isOwnerVisible(visibility: (typeof visibilities)[number], viewer: UserRow | null, member: boolean): boolean {
  if (!viewer) return visibility === 'public';
  if (visibility === 'private' || viewer.restricted) return member;
  return true;
}

/**
 * SQL that is true when the user `userId` (a SQL expression) has been granted access to the repository row
 * `repo` (an alias of `repository`) by someone: a collaboration, or a team of the owning organization that includes it.
 * Ownership and public visibility are not grants.
 */
export function grantedAccessCondition(repo: string, userId: string): string {
  return `(EXISTS (SELECT 1 FROM collaboration granted WHERE granted.repo_id = ${repo}.id AND granted.user_id = ${userId})
    OR EXISTS (SELECT 1 FROM team granted_team JOIN team_user granted_member ON granted_member.team_id = granted_team.id
      WHERE granted_member.uid = ${userId} AND granted_team.org_id = ${repo}.owner_id AND granted_team.authorize > 0
        AND (granted_team.includes_all_repositories
          OR EXISTS (SELECT 1 FROM team_repo granted_repo WHERE granted_repo.team_id = granted_team.id AND granted_repo.repo_id = ${repo}.id))))`;
}

/**
 * SQL that is true for the rows of `repository` (aliased `repo`) the viewer may read: the same rule as
 * accessModeOf, written once for lists and searches. `viewer` is a SQL expression for the viewer's id (a parameter such as
 * `$2`, or a column) that is NULL for an anonymous caller.
 */
export function readableReposCondition(repo: string, viewer: string): string {
  // typed once here: a parameter first met in `IS NULL` would otherwise have no type
  const viewerId = `(${viewer})::bigint`;
  const ownerVisible = `EXISTS (SELECT 1 FROM "user" repo_owner WHERE repo_owner.id = ${repo}.owner_id AND (
    (${viewerId} IS NULL AND repo_owner.visibility = 0)
    OR EXISTS (SELECT 1 FROM "user" viewer WHERE viewer.id = ${viewerId} AND NOT viewer.restricted AND (repo_owner.visibility < 2
      OR EXISTS (SELECT 1 FROM org_user viewer_org WHERE viewer_org.org_id = repo_owner.id AND viewer_org.uid = viewer.id)))))`;
  return `((NOT ${repo}.is_private AND ${ownerVisible}) OR (${viewerId} IS NOT NULL AND (
    ${repo}.owner_id = ${viewerId}
    OR EXISTS (SELECT 1 FROM "user" viewer WHERE viewer.id = ${viewerId} AND viewer.is_admin)
    OR ${grantedAccessCondition(repo, viewerId)})))`;
}

/**
 * The user's mode on the packages of an owner (Gitea's package determineAccessMode): site administrators and
 * the owner itself own them; in an organization, members get their teams' highest mode (the packages unit's mode
 * when the team's overall mode is below write); anyone else reads when the owner is visible to them.
 */
export async function packageAccessOf(db: Queryable, user: UserRow | null, owner: UserRow): Promise<AccessMode> {
  if (user && (!user.is_active || user.prohibit_login)) return accessModes.none;
  if (user?.is_admin || (user && user.id === owner.id)) return accessModes.owner;
  let mode: number = accessModes.none;
  let member = false;
  if (user && owner.type === 1) {
    const [row] = await db.query<{ member: boolean; authorize: number | null; unit: number | null }>(
      `SELECT EXISTS (SELECT 1 FROM org_user WHERE org_id = $1 AND uid = $2) AS member,
         (SELECT max(t.authorize) FROM team t JOIN team_user tu ON tu.team_id = t.id AND tu.uid = $2 WHERE t.org_id = $1) AS authorize,
         (SELECT max(u.access_mode) FROM team t JOIN team_user tu ON tu.team_id = t.id AND tu.uid = $2
            JOIN team_unit u ON u.team_id = t.id AND u.type = 'repo.packages' WHERE t.org_id = $1) AS unit`,
      [owner.id, user.id],
    );
    member = row.member;
    mode = row.authorize ?? accessModes.none;
    if (mode < accessModes.write) mode = Math.max(mode, row.unit ?? accessModes.none);
  }
  if (mode === accessModes.none && isOwnerVisible(visibilities[owner.visibility], user, member)) mode = accessModes.read;
  return mode as AccessMode;
}

/** Gitea's CanReadIssuesOrPulls / CanWriteIssuesOrPulls for any repository, as a mode: the unit of issues, or of pull requests. */
export async function issuesUnitModeOf(db: Queryable, user: UserRow | null, repo: RepoRow, isPull: boolean): Promise<AccessMode> {
  return unitModeOf(db, user, repo, isPull ? 'repo.pulls' : 'repo.issues', await accessModeOf(db, user, repo));
}

/** Gitea's IsDependenciesEnabled: the repository's own issue tracker, with dependencies switched on. */
export function areDependenciesEnabled(repo: RepoRow): boolean {
  return isUnitEnabled(repo, 'repo.issues') && !repo.external_tracker && repo.internal_tracker.enable_issue_dependencies;
}

/** Gitea's IsTimetrackerEnabled: time tracking on for the instance ([service] ENABLE_TIMETRACKING) and in the repository's own tracker. */
export function isTimetrackerEnabled(repo: RepoRow, instanceEnabled: boolean): boolean {
  return instanceEnabled && isUnitEnabled(repo, 'repo.issues') && !repo.external_tracker && repo.internal_tracker.enable_time_tracker;
}

/**
 * Gitea's CanUseTimetracker: when the repository lets only contributors track time, the writers of the issue's unit,
 * its poster and its assignees may; otherwise everyone who may read it. `unitMode` is the user's mode in that unit.
 */
export async function mayTrackTime(
  db: Queryable, repo: RepoRow, issue: { id: number; poster_id: number | null }, user: UserRow, unitMode: AccessMode,
): Promise<boolean> {
  if (!repo.internal_tracker.allow_only_contributors_to_track_time) return unitMode >= accessModes.read;
  if (unitMode >= accessModes.write || issue.poster_id === user.id) return true;
  const [assigned] = await db.query('SELECT 1 FROM issue_assignees WHERE issue_id = $1 AND assignee_id = $2', [issue.id, user.id]);
  return Boolean(assigned);
}

/** Gitea's canUserWriteIssueAttachment: the poster, repository and site administrators, and writers of the issue's unit. */
export function mayEditIssueAttachments(issue: { poster_id: number | null }, user: UserRow, unitMode: AccessMode, repoMode: AccessMode): boolean {
  return issue.poster_id === user.id || repoMode >= accessModes.admin || user.is_admin || unitMode >= accessModes.write;
}

/** Gitea's canUserWriteIssueCommentAttachment: a writer of the unit who wrote the comment or administers the repository (or the site). */
export function mayEditCommentAttachments(comment: { poster_id: number | null }, user: UserRow, unitMode: AccessMode, repoMode: AccessMode): boolean {
  return unitMode >= accessModes.write && (comment.poster_id === user.id || repoMode >= accessModes.admin || user.is_admin);
}
