import type { Queryable } from '../../data-source.js';
import { accessModeOf, unitModeOf } from '../access.js';
import { effectiveProtection, listProtections, type ProtectionRow } from '../code/branch-protection.js';
import type { TeamView } from '../orgs/teams.js';
import { accessModes, type RepoRow } from '../repos/repo-row.js';
import type { UserRow } from '../users/user-row.js';

/** Gitea's GetFirstMatchProtectedBranchRule for a pull request's base branch. */
export async function baseBranchRule(db: Queryable, pull: { base_repo_id: number; base_branch: string }): Promise<ProtectionRow | null> {
  return effectiveProtection(await listProtections(db, pull.base_repo_id), pull.base_branch);
}

/**
 * Gitea's IsOfficialReviewer: whose approvals count towards the base branch's required approvals. Without a rule,
 * or with a rule without an approvals whitelist, every writer of the code; with the whitelist, its users and teams.
 */
export async function isOfficialReviewer(db: Queryable, repo: RepoRow, rule: ProtectionRow | null, user: UserRow): Promise<boolean> {
  if (!rule || !rule.enable_approvals_whitelist) {
    return (await unitModeOf(db, user, repo, 'repo.code', await accessModeOf(db, user, repo))) >= accessModes.write;
  }
  if (rule.approvals_whitelist_user_ids.includes(user.id)) return true;
  if (rule.approvals_whitelist_team_ids.length === 0) return false;
  const rows = await db.query('SELECT 1 FROM team_user WHERE uid = $1 AND team_id = ANY($2::bigint[]) LIMIT 1', [user.id, rule.approvals_whitelist_team_ids]);
  return rows.length > 0;
}

/** Gitea's IsOfficialReviewerTeam: only under a rule; a team that writes the code, or one the approvals whitelist names. */
export function isOfficialReviewerTeam(rule: ProtectionRow | null, team: TeamView): boolean {
  if (!rule) return false;
  if (rule.enable_approvals_whitelist) return rule.approvals_whitelist_team_ids.includes(team.id);
  if (team.authorize >= accessModes.admin) return true;
  return (team.units['repo.code'] ?? accessModes.none) >= accessModes.write;
}
