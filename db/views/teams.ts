import type { Queryable } from '../data-source.js';
import { findOrgsByIds, type OrgRow } from '../models/orgs/orgs.js';
import type { TeamView } from '../models/orgs/teams.js';

/** A team with what its JSON shows besides the row: its organization, where Gitea loads it (else null). */
export interface TeamWithOrg {
  team: TeamView;
  org: OrgRow | null;
}

/**
 * The views of a list of teams: `withOrg` (single teams and the caller's teams, as in Gitea) loads the teams'
 * organizations in one query; an organization's own team list shows none.
 */
export async function loadTeamViews(db: Queryable, teams: TeamView[], withOrg: boolean): Promise<TeamWithOrg[]> {
  const orgs = withOrg ? await findOrgsByIds(db, [...new Set(teams.map((team) => team.org_id))]) : [];
  const byId = new Map(orgs.map((org) => [org.id, org]));
  return teams.map((team) => ({ team, org: byId.get(team.org_id) ?? null }));
}

export async function loadTeamView(db: Queryable, team: TeamView): Promise<TeamWithOrg> {
  return (await loadTeamViews(db, [team], true))[0];
}
