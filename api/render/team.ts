import { accessModes } from '../../db/models/repos/repo-row.js';
import { accessModeNames, unitKeys } from '../../db/models/orgs/team-units.js';
import type { UserRow } from '../../db/models/users/user-row.js';
import type { TeamWithOrg } from '../../db/views/teams.js';
import { renderOrganization, type ApiOrganization } from './org.js';
import type { RenderContext } from './user.js';

/** The Team definition of the Gitea 1.22 API description. */
export interface ApiTeam {
  id: number;
  name: string;
  description: string;
  organization: ApiOrganization | null;
  includes_all_repositories: boolean;
  can_create_org_repo: boolean;
  permission: string;
  units: string[];
  units_map: Record<string, string>;
}

/**
 * Shapes a team as Gitea's ToTeam does: admin and owner teams hold every unit at their own mode; `org` fills
 * `organization` where Gitea loads it (single teams, the caller's teams) and is null in an organization's team list.
 */
export function renderTeam({ team, org }: TeamWithOrg, viewer: UserRow | null, ctx: RenderContext): ApiTeam {
  const admin = team.authorize >= accessModes.admin;
  const units = admin ? [...unitKeys] : unitKeys.filter((unit) => team.units[unit] !== undefined);
  return {
    id: team.id,
    name: team.name,
    description: team.description,
    organization: org ? renderOrganization(org, viewer, ctx) : null,
    includes_all_repositories: team.includes_all_repositories,
    can_create_org_repo: team.can_create_org_repo,
    permission: accessModeNames[team.authorize],
    units,
    units_map: Object.fromEntries(units.map((unit) => [unit, accessModeNames[admin ? team.authorize : team.units[unit]!]])),
  };
}
