import type { Queryable } from '../data-source.js';
import { teamNamesOf, type ProtectionRow } from '../models/code/branch-protection.js';
import type { UserRow } from '../models/users/user-row.js';
import { findUsersByIds } from '../models/users/users.js';

/** A protection rule with the names of the users and teams its lists hold (deleted ones are absent). */
export interface ProtectionView {
  rule: ProtectionRow;
  users: Map<number, UserRow>;
  teamNames: Map<number, string>;
}

/** The views of a list of rules in two queries, whatever its length. */
export async function loadProtectionViews(db: Queryable, rules: ProtectionRow[]): Promise<ProtectionView[]> {
  const userIds = rules.flatMap((r) => [...r.whitelist_user_ids, ...r.merge_whitelist_user_ids, ...r.approvals_whitelist_user_ids]);
  const teamIds = rules.flatMap((r) => [...r.whitelist_team_ids, ...r.merge_whitelist_team_ids, ...r.approvals_whitelist_team_ids]);
  const [users, teamNames] = await Promise.all([findUsersByIds(db, userIds), teamNamesOf(db, [...new Set(teamIds)])]);
  return rules.map((rule) => ({ rule, users, teamNames }));
}

export async function loadProtectionView(db: Queryable, rule: ProtectionRow): Promise<ProtectionView> {
  return (await loadProtectionViews(db, [rule]))[0];
}
