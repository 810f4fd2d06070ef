import { forbidden, notFound, unauthorized } from '../../db/errors.js';
import { canSeeOrg, findOrgByName, isOrgMember, isOrgOwner, type OrgRow } from '../../db/models/orgs/orgs.js';
import { findTeam, isTeamMember, type TeamView } from '../../db/models/orgs/teams.js';
import type { UserRow } from '../../db/models/users/user-row.js';
import type { Caller } from '../auth/caller.js';
import type { Deps } from '../deps.js';

/** What a route declares about the organization in `{org}`: orgAssignment, then reqOrgMembership or reqOrgOwnership. */
export interface OrgGuard {
  role?: 'member' | 'owner';
}

/** What a route declares about the team in `/teams/{id}`: reqTeamMembership, and reqOrgOwnership with `owner`. */
export interface TeamGuard {
  role?: 'owner';
}

/** The organization a path names, if the caller may see it; missing and invisible answer the same 404. */
async function loadOrg(deps: Deps, caller: Caller, name: string): Promise<OrgRow> {
  const org = await findOrgByName(deps.db, name);
  if (!org || !(await canSeeOrg(deps.db, caller.user, org))) throw notFound(`organization ${name} does not exist`);
  return org;
}

export async function loadGuardedOrg(deps: Deps, caller: Caller, name: string, guard: OrgGuard): Promise<OrgRow> {
  const org = await loadOrg(deps, caller, name);
  if (guard.role === 'owner') await requireOrgOwner(deps, caller, org);
  if (guard.role === 'member') await requireOrgMember(deps, caller, org);
  return org;
}

/** reqOrgOwnership with an organization in the path: administrators and owners pass, other callers get a 403. */
export async function requireOrgOwner(deps: Deps, caller: Caller, org: OrgRow): Promise<UserRow> {
  const doer = signedIn(caller);
  if (!doer.is_admin && !(await isOrgOwner(deps.db, org.id, doer.id))) throw forbidden('Must be an organization owner');
  return doer;
}

/** reqOrgMembership with an organization in the path. */
async function requireOrgMember(deps: Deps, caller: Caller, org: OrgRow): Promise<UserRow> {
  const doer = signedIn(caller);
  if (!doer.is_admin && !(await isOrgMember(deps.db, org.id, doer.id))) throw forbidden('Must be an organization member');
  return doer;
}

/**
 * The team a path names, as Gitea's orgAssignment + reqTeamMembership: administrators, organization owners and
 * the team's members pass; other members of the organization get a 403, everyone else a 404. With `owner`, a team
 * member who is not an owner of the organization gets a 404, as in Gitea.
 */
export async function loadGuardedTeam(deps: Deps, caller: Caller, id: number, guard: TeamGuard): Promise<TeamView> {
  const team = await findTeam(deps.db, id);
  if (!team) throw notFound(`team ${id} does not exist`);
  const doer = signedIn(caller);
  const owner = doer.is_admin || (await isOrgOwner(deps.db, team.org_id, doer.id));
  if (guard.role === 'owner') {
    if (owner) return team;
    if (await isTeamMember(deps.db, team.id, doer.id)) throw notFound();
  } else if (owner || (await isTeamMember(deps.db, team.id, doer.id))) {
    return team;
  }
  if (await isOrgMember(deps.db, team.org_id, doer.id)) throw forbidden('Must be a team member');
  throw notFound(`team ${id} does not exist`);
}

function signedIn(caller: Caller): UserRow {
  if (!caller.user) throw unauthorized('token is required');
  return caller.user;
}
