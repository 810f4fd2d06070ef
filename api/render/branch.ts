import { isGlobRule } from '../../db/models/code/glob-rule.js';
import type { HeadCommit } from '../../db/git/commit-fields.js';
import type { ProtectionView } from '../../db/views/branch-protections.js';
import type { BranchView } from '../../db/views/branches.js';
import type { ApiPayloadCommit } from './git.js';
import { iso } from './time.js';

/** The Branch definition. */
export interface ApiBranch {
  name: string;
  commit: ApiPayloadCommit;
  protected: boolean;
  required_approvals: number;
  enable_status_check: boolean;
  status_check_contexts: string[];
  user_can_push: boolean;
  user_can_merge: boolean;
  effective_branch_protection_name: string;
}

/** The BranchProtection definition. */
export interface ApiBranchProtection {
  branch_name: string;
  rule_name: string;
  enable_push: boolean;
  enable_push_whitelist: boolean;
  push_whitelist_usernames: string[];
  push_whitelist_teams: string[];
  push_whitelist_deploy_keys: boolean;
  enable_merge_whitelist: boolean;
  merge_whitelist_usernames: string[];
  merge_whitelist_teams: string[];
  enable_status_check: boolean;
  status_check_contexts: string[];
  required_approvals: number;
  enable_approvals_whitelist: boolean;
  approvals_whitelist_username: string[];
  approvals_whitelist_teams: string[];
  block_on_rejected_reviews: boolean;
  block_on_official_review_requests: boolean;
  block_on_outdated_branch: boolean;
  dismiss_stale_approvals: boolean;
  ignore_stale_approvals: boolean;
  require_signed_commits: boolean;
  protected_file_patterns: string;
  unprotected_file_patterns: string;
  created_at: string;
  updated_at: string;
}

/** Go writes a zero UTC offset as `Z`; git writes it as `+00:00`. */
const rfc3339 = (gitDate: string): string => gitDate.replace(/[+-]00:00$/, 'Z');

/** A branch head as a PayloadCommit; `usernames` are the site users of its author's and committer's addresses ('' for none). */
export function renderPayloadCommit(head: HeadCommit, repoHtmlUrl: string, usernames: { author: string; committer: string }): ApiPayloadCommit {
  return {
    id: head.sha,
    message: head.message,
    url: `${repoHtmlUrl}/commit/${head.sha}`,
    author: { name: head.authorName, email: head.authorEmail, username: usernames.author },
    committer: { name: head.committerName, email: head.committerEmail, username: usernames.committer },
    verification: { verified: false, reason: 'gpg.error.not_signed_commit', signature: '', signer: null, payload: '' },
    timestamp: rfc3339(head.authorDate),
    added: null,
    removed: null,
    modified: null,
  };
}

export function renderBranch(view: BranchView, repoHtmlUrl: string): ApiBranch {
  const { head, rule } = view;
  return {
    name: head.branch,
    commit: renderPayloadCommit(head, repoHtmlUrl, { author: view.authorUsername, committer: view.committerUsername }),
    protected: rule !== null,
    required_approvals: rule?.required_approvals ?? 0,
    enable_status_check: rule?.enable_status_check ?? false,
    status_check_contexts: rule?.status_check_contexts ?? [],
    user_can_push: view.canPush,
    user_can_merge: view.canMerge,
    effective_branch_protection_name: rule && view.showRuleName ? rule.rule_name : '',
  };
}

/** Ids of users and teams deleted since the rule was saved are left out. */
export function renderBranchProtection({ rule, users, teamNames: teams }: ProtectionView): ApiBranchProtection {
  const usernames = (ids: number[]): string[] => ids.flatMap((id) => (users.has(id) ? [users.get(id)!.name] : []));
  const teamNames = (ids: number[]): string[] => ids.flatMap((id) => (teams.has(id) ? [teams.get(id)!] : []));
  return {
    branch_name: isGlobRule(rule.rule_name) ? '' : rule.rule_name,
    rule_name: rule.rule_name,
    enable_push: rule.can_push,
    enable_push_whitelist: rule.enable_whitelist,
    push_whitelist_usernames: usernames(rule.whitelist_user_ids),
    push_whitelist_teams: teamNames(rule.whitelist_team_ids),
    push_whitelist_deploy_keys: rule.whitelist_deploy_keys,
    enable_merge_whitelist: rule.enable_merge_whitelist,
    merge_whitelist_usernames: usernames(rule.merge_whitelist_user_ids),
    merge_whitelist_teams: teamNames(rule.merge_whitelist_team_ids),
    enable_status_check: rule.enable_status_check,
    status_check_contexts: rule.status_check_contexts,
    required_approvals: rule.required_approvals,
    enable_approvals_whitelist: rule.enable_approvals_whitelist,
    approvals_whitelist_username: usernames(rule.approvals_whitelist_user_ids),
    approvals_whitelist_teams: teamNames(rule.approvals_whitelist_team_ids),
    block_on_rejected_reviews: rule.block_on_rejected_reviews,
    block_on_official_review_requests: rule.block_on_official_review_requests,
    block_on_outdated_branch: rule.block_on_outdated_branch,
    dismiss_stale_approvals: rule.dismiss_stale_approvals,
    ignore_stale_approvals: rule.ignore_stale_approvals,
    require_signed_commits: rule.require_signed_commits,
    protected_file_patterns: rule.protected_file_patterns,
    unprotected_file_patterns: rule.unprotected_file_patterns,
    created_at: iso(rule.created),
    updated_at: iso(rule.updated),
  };
}
