import type { Queryable } from '../data-source.js';
import type { HeadCommit } from '../git/commit-fields.js';
import type { GitStore } from '../git/store.js';
import {
  canUserMerge, canUserPush, effectiveProtection, listProtections, whitelistedTeamIds, type ProtectionRow,
} from '../models/code/branch-protection.js';
import { accessModes } from '../models/repos/repo-row.js';
import { findUsersByEmails } from '../models/users/emails.js';
import type { UserRow } from '../models/users/user-row.js';
import type { RepoView } from './repo.js';

/** Everything a branch's JSON needs: its head, the rule that governs it and what the viewer may do. */
export interface BranchView {
  head: HeadCommit;
  rule: ProtectionRow | null;
  canPush: boolean;
  canMerge: boolean;
  /** Only repository administrators are told which rule applies. */
  showRuleName: boolean;
  /** Site users by (lower-cased) commit e-mail address. */
  users: Map<string, UserRow>;
}

/**
 * The named branches as git has them now (missing ones left out), in the order asked, with what the viewer (whose
 * mode `repo.mode` is) may do under the repository's protection rules (read here unless the caller already has them).
 */
export async function loadBranchViews(
  db: Queryable, git: GitStore, { repo, mode }: RepoView, viewer: UserRow | null, names: string[], protections?: ProtectionRow[],
): Promise<BranchView[]> {
  if (names.length === 0) return [];
  const [heads, rules] = await Promise.all([
    git.open(repo).readHeads(names),
    protections ?? listProtections(db, repo.id),
  ]);
  const [users, teamIds] = await Promise.all([
    findUsersByEmails(db, heads.flatMap((h) => [h.authorEmail, h.committerEmail])),
    whitelistedTeamIds(db, viewer, rules),
  ]);
  const byName = new Map(heads.map((h) => [h.branch, h]));
  const writer = viewer !== null && mode >= accessModes.write;
  return names.flatMap((name) => {
    const head = byName.get(name);
    if (!head) return [];
    const rule = effectiveProtection(rules, name);
    return [{
      head, rule, users, showRuleName: mode >= accessModes.admin,
      canPush: rule ? canUserPush(rule, viewer, mode, teamIds) : writer,
      canMerge: rule ? canUserMerge(rule, viewer, mode, teamIds) : writer,
    }];
  });
}
