import { inTx } from '../../../db/data-source.js';
import { createOrganization, type OrgRow } from '../../../db/models/orgs/orgs.js';
import { addTeamMember, addTeamRepo, createTeam, type TeamView } from '../../../db/models/orgs/teams.js';
import type { RepoRow } from '../../../db/models/repos/repo-row.js';
import type { Visibility } from '../../../db/models/users/user-row.js';
import type { TestHearth } from '../hearth.js';
import { currentRepo, currentRow, doerFor, type Someone } from './current-rows.js';

export interface OrgOptions {
  /** `org1`, `org2`, … when not given. */
  name?: string;
  fullName?: string;
  visibility?: Visibility;
}

let unnamedOrgs = 0;

/** An organization whose Owners team holds `owner`, who creates it. */
export async function org(h: TestHearth, owner: Someone, options: OrgOptions = {}): Promise<OrgRow> {
  return inTx(h.deps, async (tx) => {
    const creator = await currentRow(tx, owner);
    const input = { username: options.name ?? `org${++unnamedOrgs}`, full_name: options.fullName, visibility: options.visibility };
    return createOrganization(tx, creator, input, creator);
  });
}

export interface TeamOptions {
  /** `team1`, `team2`, … when not given. */
  name?: string;
  description?: string;
  /** The team's mode; with `units` its units get it. */
  permission?: 'read' | 'write' | 'admin';
  /** Unit names (`repo.code`, …); `repo.code` when neither units nor unitsMap are given. */
  units?: string[];
  /** A mode per unit, e.g. `{ 'repo.code': 'write', 'repo.releases': 'read' }`. */
  unitsMap?: Record<string, string>;
  includesAllRepositories?: boolean;
  canCreateOrgRepo?: boolean;
  members?: Someone[];
  repos?: RepoRow[];
  /** Who creates it and adds members and repositories: an owner of the organization when not given. */
  by?: Someone;
}

let unnamedTeams = 0;

/** A team of `organization`, with its members and repositories. */
export async function team(h: TestHearth, organization: Someone, options: TeamOptions = {}): Promise<TeamView> {
  return inTx(h.deps, async (tx) => {
    const orgRow = await currentRow(tx, organization);
    const doer = await doerFor(tx, orgRow, options.by);
    const units = options.units ?? (options.unitsMap ? undefined : ['repo.code']);
    const made = await createTeam(tx, orgRow, {
      name: options.name ?? `team${++unnamedTeams}`, description: options.description, permission: options.permission, units,
      units_map: options.unitsMap, includes_all_repositories: options.includesAllRepositories, can_create_org_repo: options.canCreateOrgRepo,
    }, doer);
    for (const member of options.members ?? []) await addTeamMember(tx, made, await currentRow(tx, member), doer);
    for (const repo of options.repos ?? []) await addTeamRepo(tx, made, await currentRepo(tx, repo), doer);
    return made;
  });
}
