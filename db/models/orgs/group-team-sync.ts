import type { Tx } from '../../data-source.js';
import { HttpError } from '../../errors.js';
import { findUserByName } from '../users/users.js';
import { userTypes, type UserRow } from '../users/user-row.js';
import { addTeamMember, findTeamByName, removeTeamMember } from './teams.js';

/** Gitea's group-to-team map: `{"cn=devs,ou=groups,dc=example,dc=org": {"OrgName": ["TeamName"]}}`. */
export type GroupTeamMap = Record<string, Record<string, string[]>>;

/** Checks a map as a login source stores it; the message names what is wrong. */
export function parseGroupTeamMap(raw: string): GroupTeamMap {
  if (!raw.trim()) return {};
  const value: unknown = JSON.parse(raw);
  const isMap = typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((orgs) =>
    typeof orgs === 'object' && orgs !== null && !Array.isArray(orgs) && Object.values(orgs).every((teams) => Array.isArray(teams) && teams.every((t) => typeof t === 'string')));
  if (!isMap) throw new Error('the group team map must be {"group": {"organization": ["team", ...]}}');
  return value as GroupTeamMap;
}

/**
 * Gitea's SyncGroupsToTeams at a sign-in: the user joins every mapped team of the groups they are in and, with
 * `removal`, leaves the mapped teams of the groups they are not in. Groups are compared case-insensitively (DNs);
 * an organization or team that does not exist, or the last owner leaving Owners, is skipped, not an error.
 */
export async function syncGroupTeams(tx: Tx, user: UserRow, groups: readonly string[], map: GroupTeamMap, removal: boolean): Promise<void> {
  const member = new Set(groups.map((g) => g.toLowerCase()));
  const wanted = new Map<string, { org: string; team: string; join: boolean }>();
  for (const [group, orgs] of Object.entries(map)) {
    const join = member.has(group.toLowerCase());
    for (const [org, teams] of Object.entries(orgs)) {
      for (const team of teams) {
        const key = `${org.toLowerCase()}\u0000${team.toLowerCase()}`;
        // a team mapped from several groups is kept when any of them holds the user
        if (!wanted.get(key)?.join) wanted.set(key, { org, team, join });
      }
    }
  }
  for (const { org, team, join } of wanted.values()) {
    if (!join && !removal) continue;
    const orgRow = await findUserByName(tx, org);
    if (!orgRow || orgRow.type !== userTypes.organization) continue;
    const teamRow = await findTeamByName(tx, orgRow.id, team.toLowerCase());
    if (!teamRow) continue;
    try {
      await (join ? addTeamMember(tx, teamRow, user, user) : removeTeamMember(tx, teamRow, user, user));
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
    }
  }
}
