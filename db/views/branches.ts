import type { Queryable } from '../data-source.js';
import type { HeadCommit } from '../git/commit-fields.js';
import type { GitStore } from '../git/store.js';
import {
  canUserPush, effectiveProtection, isUserAllowedToMerge, listProtections, whitelistedTeamIds, type ProtectionRow,
} from '../models/code/branch-protection.js';
import type { ListedBranch } from '../models/code/branches.js';
import { unitModeWithOwner } from '../models/access.js';
import { accessModes } from '../models/repos/repo-row.js';
import { findUsersByEmails } from '../models/users/emails.js';
import type { UserRow } from '../models/users/user-row.js';
import type { RepoView } from './repo.js';

/** Everything a branch's JSON needs: its head, the rule that governs it and what the viewer may do. */
export interface BranchView {
  head: HeadCommit;
  /** The site users whose addresses the head's author and committer use ('' for none). */
  authorUsername: string;
  committerUsername: string;
  rule: ProtectionRow | null;
  canPush: boolean;
  canMerge: boolean;
  /** Only repository administrators are told which rule applies. */
  showRuleName: boolean;
}

type AttributedHead = Pick<BranchView, 'head' | 'authorUsername' | 'committerUsername'>;

/**
 * The named branches as git has them now (missing ones left out), in the order asked, with what the viewer (whose
 * mode `repo.mode` is) may do under the repository's protection rules (read here unless the caller already has them).
 */
export async function loadBranchViews(
  db: Queryable, git: GitStore, repoView: RepoView, viewer: UserRow | null, names: string[], protections?: ProtectionRow[],
): Promise<BranchView[]> {
  if (names.length === 0) return [];
  const [heads, rules] = await Promise.all([git.open(repoView.repo).readHeads(names), protections ?? listProtections(db, repoView.repo.id)]);
  const users = await findUsersByEmails(db, heads.flatMap((h) => [h.authorEmail, h.committerEmail]));
  const username = (email: string): string => users.get(email.toLowerCase())?.name ?? '';
  const byName = new Map(heads.map((h) => [h.branch, h]));
  const attributed = names.flatMap((name) => {
    const head = byName.get(name);
    return head ? [{ head, authorUsername: username(head.authorEmail), committerUsername: username(head.committerEmail) }] : [];
  });
  return withPermissions(db, repoView, viewer, attributed, rules);
}

/** A page of branches as their rows record them (rows without their head yet are left out), as loadBranchViews answers. */
export async function listedBranchViews(
  db: Queryable, repoView: RepoView, viewer: UserRow | null, branches: ListedBranch[], protections?: ProtectionRow[],
): Promise<BranchView[]> {
  const attributed = branches.flatMap(({ head, authorUsername, committerUsername }) => (head ? [{ head, authorUsername, committerUsername }] : []));
  if (attributed.length === 0) return [];
  return withPermissions(db, repoView, viewer, attributed, protections ?? (await listProtections(db, repoView.repo.id)));
}

/** What the viewer may do on each branch: the rules' own answers (canUserPush, isUserAllowedToMerge) for their code mode. */
async function withPermissions(
  db: Queryable, { repo, owner, mode }: RepoView, viewer: UserRow | null, heads: AttributedHead[], rules: ProtectionRow[],
): Promise<BranchView[]> {
  const [teamIds, codeMode] = await Promise.all([
    whitelistedTeamIds(db, viewer, rules),
    viewer ? unitModeWithOwner(db, viewer, repo, owner, 'repo.code', mode) : accessModes.none,
  ]);
  return heads.map(({ head, authorUsername, committerUsername }) => {
    const rule = effectiveProtection(rules, head.branch);
    return {
      head, authorUsername, committerUsername, rule, showRuleName: mode >= accessModes.admin,
      canPush: canUserPush(rule, viewer, codeMode, teamIds),
      canMerge: isUserAllowedToMerge(rule, viewer, codeMode, teamIds),
    };
  });
}
