import { z } from 'zod';
import type { Tx } from '../../data-source.js';
import type { GitRepo } from '../../git/repo.js';
import { testMergeability, type Mergeability } from '../pulls/pulls.js';
import { pullHeadRef, pullStatus, type PullStatus } from '../pulls/pull-row.js';
import type { IssueRow } from '../issues/issue-row.js';
import type { RepoRow } from '../repos/repo-row.js';
import type { UserRow } from '../users/user-row.js';

// Pull requests of a Gitea or Forgejo source, as Gitea's migration brings them: a pull request issue with the
// source's number, its head commit kept as `refs/pull/N/head` (fetched with the branches), its base branch, state
// and merge. The head branch is this repository's when the source's was in the same repository; a fork's head
// repository is not here, so only the kept head names its commit.

const branchInfo = z.object({
  ref: z.string(),
  sha: z.string().nullish(),
  repo_id: z.number().nullish(),
  repo: z.object({ full_name: z.string() }).nullish(),
});
export const sourcePullFields = {
  merged: z.boolean().nullish(),
  merged_at: z.string().nullish(),
  merge_commit_sha: z.string().nullish(),
  merge_base: z.string().nullish(),
  head: branchInfo,
  base: branchInfo,
};
const sourcePullShape = z.object(sourcePullFields);
export type SourcePullFields = z.infer<typeof sourcePullShape>;

/** A pull request ready to be written: its head commit here, and how it merges now (null when merged or no base). */
export interface PullFacts {
  headSha: string;
  mergeability: Mergeability | null;
}

const objectId = /^([0-9a-f]{40}|[0-9a-f]{64})$/;

const sameRepository = (pull: SourcePullFields): boolean =>
  (pull.head.repo_id != null && pull.head.repo_id === pull.base.repo_id) ||
  (!!pull.head.repo?.full_name && pull.head.repo.full_name === pull.base.repo?.full_name);

/**
 * The git facts of a source's pull request, read after the fetch and before any transaction: its head commit (the
 * fetched `refs/pull/N/head`, else the source's head commit when this repository has it, then kept under that
 * ref), and, when not merged, its mergeability against the base branch. Null when the head commit is not here.
 */
export async function readPullFacts(repoGit: GitRepo, number: number, pull: SourcePullFields): Promise<PullFacts | null> {
  const ref = pullHeadRef(number);
  let headSha = await repoGit.objects.refTarget(ref);
  if (!headSha && pull.head.sha && objectId.test(pull.head.sha) && (await repoGit.objects.resolve(`${pull.head.sha}^{commit}`))) {
    if (await repoGit.updateRef(ref, pull.head.sha, null)) headSha = pull.head.sha;
  }
  if (!headSha) return null;
  if (pull.merged) return { headSha, mergeability: null };
  const baseSha = await repoGit.branchHead(pull.base.ref);
  return { headSha, mergeability: baseSha ? await testMergeability(repoGit, baseSha, headSha) : null };
}

/** The pull request row of an imported pull request issue (the issue's state and authorship are the caller's). */
export async function insertImportedPull(tx: Tx, repo: RepoRow, issue: IssueRow, doer: UserRow, pull: SourcePullFields, facts: PullFacts): Promise<void> {
  const found = facts.mergeability;
  const status: PullStatus = pull.merged ? pullStatus.mergeable : (found?.status ?? pullStatus.error);
  const mergedAt = pull.merged_at ? new Date(pull.merged_at) : null;
  await tx.query(
    `INSERT INTO pull_request (issue_id, index, head_repo_id, base_repo_id, head_branch, base_branch, head_commit_id, merge_base, status,
       conflicted_files, commits_ahead, commits_behind, allow_maintainer_edit, has_merged, merged_commit_id, merger_id, merged_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
    [
      issue.id, issue.index, sameRepository(pull) ? repo.id : null, repo.id, pull.head.ref, pull.base.ref, facts.headSha,
      found?.mergeBase ?? pull.merge_base ?? '', status, found?.conflictedFiles ?? [], found?.commitsAhead ?? 0, found?.commitsBehind ?? 0,
      repo.default_allow_maintainer_edit, pull.merged ?? false, pull.merged ? (pull.merge_commit_sha ?? '') : '', pull.merged ? doer.id : null,
      mergedAt && !Number.isNaN(mergedAt.getTime()) ? mergedAt : null,
    ],
  );
}
