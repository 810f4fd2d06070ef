import type { Tx } from '../../data-source.js';
import { methodNotAllowed, notFound } from '../../errors.js';
import { accessModeOf } from '../access.js';
import type { IssueRow } from '../issues/issue-row.js';
import type { GitStore } from '../../git/store.js';
import { assertProtectionAllowsMerge } from '../reviews/protection-checks.js';
import { listProtections, mayMergeInto, type ProtectionRow } from '../code/branch-protection.js';
import type { RepoRow } from '../repos/repo-row.js';
import type { UserRow } from '../users/user-row.js';
import { isWorkInProgress, pullStatus, type PullRow } from './pull-row.js';

/** Gitea's merge styles (MergeStyle), as `MergePullRequestOption.Do` names them. */
export const mergeStyles = ['merge', 'rebase', 'rebase-merge', 'squash', 'fast-forward-only', 'manually-merged'] as const;
export type MergeStyle = (typeof mergeStyles)[number];

/** What a merge was asked to do, as checks see it. */
export interface MergeRequest {
  style: MergeStyle;
  /** `force_merge`: merge past unmet protection, for those allowed (repository administrators). */
  force: boolean;
  /** A scheduled auto-merge running in the worker rather than a request. */
  auto: boolean;
  /** merge_when_checks_succeed: the merge is scheduled, so unmet branch protection is what it waits for. */
  scheduling?: boolean;
}

/** What every check is handed: the pull request and its issue (locked by the merge), its base repository, the doer. */
export interface MergeContext {
  tx: Tx;
  git: GitStore;
  base: RepoRow;
  pull: PullRow;
  issue: IssueRow;
  doer: UserRow;
  request: MergeRequest;
  /** The base repository's protection rules, read once for every check. */
  rules?: ProtectionRow[];
}

/** One check that may refuse a merge by throwing an HttpError (its status and message reach the caller). */
export type MergeCheck = (ctx: MergeContext) => Promise<void>;

/** Gitea's IsMergeStyleAllowed: each style only when the repository enables it. */
export function isMergeStyleAllowed(repo: RepoRow, style: MergeStyle): boolean {
  switch (style) {
    case 'merge': return repo.allow_merge_commits;
    case 'rebase': return repo.allow_rebase;
    case 'rebase-merge': return repo.allow_rebase_explicit;
    case 'squash': return repo.allow_squash_merge;
    case 'fast-forward-only': return repo.allow_fast_forward_only_merge;
    case 'manually-merged': return repo.allow_manual_merge;
  }
}

/**
 * Gitea's CheckPullMergeable, the part that is not branch protection: state, who may merge into the base branch (its
 * merge whitelist, else write access: the doer who scheduled an auto-merge is held to it when the worker merges),
 * mergeability, style.
 */
const baseChecks: MergeCheck = async ({ tx, base, pull, issue, doer, request, rules }) => {
  if (issue.is_closed && !pull.has_merged) throw notFound('pull request is closed');
  if (pull.has_merged) throw methodNotAllowed('PR already merged');
  if (!(await mayMergeInto(tx, base, pull.base_branch, doer, rules))) throw methodNotAllowed('User not allowed to merge PR');
  if (request.style !== 'manually-merged') {
    if (isWorkInProgress(issue.title)) throw methodNotAllowed('Work in progress PRs cannot be merged');
    if (pull.status === pullStatus.checking || pull.status === pullStatus.conflict || pull.status === pullStatus.error) {
      throw methodNotAllowed('PR not in mergeable state: Please try again later');
    }
  }
  if (!isMergeStyleAllowed(base, request.style)) throw methodNotAllowed(`${request.style} is not allowed an allowed merge style for this repository`);
};

/**
 * Gitea's CheckPullBranchProtections step (not for a manually merged pull request): required statuses and approvals,
 * blocking reviews and requests, an outdated head, protected files; `force_merge` lets administrators past, a scheduled
 * merge waits for it, the worker's run of a scheduled merge is held to all of it.
 */
const protectionCheck: MergeCheck = async ({ tx, git, base, pull, doer, request, rules }) => {
  if (request.style === 'manually-merged') return;
  const repoMode = await accessModeOf(tx, doer, base);
  await assertProtectionAllowsMerge(tx, git, base, pull, doer, { force: request.force && !request.auto, repoMode, scheduling: request.scheduling, rules });
};

/**
 * The checks a merge passes before anything is written, in order. Branch protection (required approvals, status
 * checks, blocked reviews, outdated branch, protected files) adds its check to this list.
 */
const checks: MergeCheck[] = [baseChecks, protectionCheck];

/** Runs every merge check; the first that refuses ends the merge with its status (405, 404, 409…). */
export async function checkMergeAllowed(ctx: MergeContext): Promise<void> {
  const withRules = { ...ctx, rules: ctx.rules ?? (await listProtections(ctx.tx, ctx.base.id)) };
  for (const check of checks) await check(withRules);
}
