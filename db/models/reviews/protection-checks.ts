import type { Queryable } from '../../data-source.js';
import { methodNotAllowed } from '../../errors.js';
import { compileGlob } from '../../glob.js';
import { changedPaths } from '../../git/pulls.js';
import type { GitStore } from '../../git/store.js';
import { effectiveProtection, filePatterns, matchesFilePattern, type ProtectionRow } from '../code/branch-protection.js';
import { combineStates, listLatestCommitStatuses, type CommitStatusState } from '../code/commit-statuses.js';
import { pullHeadRef, type PullRow } from '../pulls/pull-row.js';
import { accessModes, type AccessMode, type RepoRow } from '../repos/repo-row.js';
import type { UserRow } from '../users/user-row.js';
import { baseBranchRule } from './official.js';
import { reviewTypes } from './review-row.js';

/** Gitea's ErrDisallowedToMerge as its merge API answers it (405). */
export const disallowedToMerge = (reason: string) => methodNotAllowed(`not allowed to merge [reason: ${reason}]`);

const statusRank: Record<CommitStatusState, number> = { error: 0, failure: 1, warning: 2, pending: 3, success: 4 };

/**
 * Gitea's MergeRequiredContextsCommitStatus over the latest status of each context: every required context (a glob,
 * `*` crossing `/`) takes the first status it matches, the worst of them wins, and a required context nothing
 * matches makes the whole pending. Without required contexts (or when none matched and nothing is worse), the
 * combined state of all contexts; no status at all is no state ('').
 */
export function requiredContextsState(latest: Array<{ context: string; state: CommitStatusState }>, required: string[]): CommitStatusState | '' {
  let matched = 0;
  let result: CommitStatusState = 'success';
  const patterns = [...new Set(required)].map((glob) => compileGlob(glob)).filter((pattern): pattern is RegExp => pattern !== null);
  for (const pattern of patterns) {
    const status = latest.find((s) => pattern.test(s.context));
    if (!status) {
      if (statusRank.pending <= statusRank[result]) result = 'pending';
      break;
    }
    matched++;
    if (statusRank[status.state] <= statusRank[result]) result = status.state;
  }
  if (matched === 0 && result === 'success') return latest.length ? combineStates(latest.map((s) => s.state)) : '';
  return result;
}

/** The commit the pull request's head ref holds in the base repository. */
async function headOf(git: GitStore, repo: RepoRow, pull: PullRow): Promise<string> {
  return (await git.open(repo).resolve(pullHeadRef(pull.index))) ?? pull.head_commit_id;
}

/** Gitea's GetPullRequestCommitStatusState: the state of the head commit's statuses (in the base repository) under the rule. */
export async function pullStatusState(db: Queryable, git: GitStore, repo: RepoRow, pull: PullRow, rule: ProtectionRow | null): Promise<CommitStatusState | ''> {
  const head = await headOf(git, repo, pull);
  const { rows } = await listLatestCommitStatuses(db, repo.id, head, { limit: 10_000, offset: 0 });
  return requiredContextsState(rows, rule?.status_check_contexts ?? []);
}

/** The files of the pull request (from its merge base to its head) that the rule's protected file patterns match. */
export async function changedProtectedFiles(git: GitStore, repo: RepoRow, pull: PullRow, rule: ProtectionRow): Promise<string[]> {
  const patterns = filePatterns(rule.protected_file_patterns);
  if (patterns.length === 0) return [];
  const repoGit = git.open(repo);
  const head = await headOf(git, repo, pull);
  const base = pull.merge_base || (await repoGit.mergeBase(`refs/heads/${pull.base_branch}`, head));
  if (!base) return [];
  const files = await changedPaths(repoGit, base, head);
  return files.map((f) => f.filename).filter((path) => matchesFilePattern(patterns, path));
}

/**
 * Gitea's CheckPullBranchProtections: why the base branch's rule refuses the merge now, or null. In Gitea's order:
 * required status checks, required official approvals (not dismissed; not stale when the rule ignores stale ones),
 * official rejections, official review requests, an outdated head, changed protected files.
 */
export async function protectionBlock(db: Queryable, git: GitStore, repo: RepoRow, pull: PullRow, rules?: ProtectionRow[]): Promise<string | null> {
  const rule = rules ? effectiveProtection(rules, pull.base_branch) : await baseBranchRule(db, pull);
  if (!rule) return null;
  if (rule.enable_status_check && (await pullStatusState(db, git, repo, pull, rule)) !== 'success') return 'Not all required status checks successful';
  const [counts] = await db.query<{ approvals: number; rejections: number; requests: number }>(
    `SELECT count(*) FILTER (WHERE type = $2 AND NOT dismissed AND (NOT $3 OR NOT stale))::int AS approvals,
            count(*) FILTER (WHERE type = $4 AND NOT dismissed)::int AS rejections,
            count(*) FILTER (WHERE type = $5)::int AS requests
     FROM review WHERE issue_id = $1 AND official`,
    [pull.issue_id, reviewTypes.approve, rule.ignore_stale_approvals, reviewTypes.reject, reviewTypes.request],
  );
  if (rule.required_approvals > 0 && counts.approvals < rule.required_approvals) return 'Does not have enough approvals';
  if (rule.block_on_rejected_reviews && counts.rejections > 0) return 'There are requested changes';
  if (rule.block_on_official_review_requests && counts.requests > 0) return 'There are official review requests';
  if (rule.block_on_outdated_branch && pull.commits_behind > 0) return 'The head branch is behind the base branch';
  if ((await changedProtectedFiles(git, repo, pull, rule)).length > 0) return 'Changed protected files';
  return null;
}

export interface ProtectionGate {
  /** The merge API's `force_merge`: site and repository administrators merge past unmet protection. */
  force: boolean;
  /** The caller's mode in the base repository. */
  repoMode: AccessMode;
  /** Scheduling a merge for when checks pass (merge_when_checks_succeed): unmet protection is what it waits for. */
  scheduling?: boolean;
  /** The repository's protection rules, when the caller has read them in the same transaction. */
  rules?: ProtectionRow[];
}

/** Gitea's branch-protection step of CheckPullMergeable: 405 with the reason, unless the gate lets the caller past. */
export async function assertProtectionAllowsMerge(
  db: Queryable, git: GitStore, repo: RepoRow, pull: PullRow, doer: UserRow, gate: ProtectionGate,
): Promise<void> {
  const reason = await protectionBlock(db, git, repo, pull, gate.rules);
  if (!reason || gate.scheduling) return;
  if (gate.force && (doer.is_admin || gate.repoMode >= accessModes.admin)) return;
  throw disallowedToMerge(reason);
}
