import { z } from 'zod';
import type { Tx } from '../../data-source.js';
import type { GitRepo } from '../../git/repo.js';
import { fileDiff } from '../../git/review-diff.js';
import { cutDiffAroundLine } from '../reviews/diff-around-line.js';
import { reviewTypes, type ReviewType } from '../reviews/review-row.js';
import { commentType } from '../issues/issue-row.js';
import { testMergeability, type Mergeability } from '../pulls/pulls.js';
import { pullHeadRef, pullStatus, type PullStatus } from '../pulls/pull-row.js';
import type { IssueRow } from '../issues/issue-row.js';
import type { RepoRow } from '../repos/repo-row.js';
import type { UserRow } from '../users/user-row.js';
import type { SourceApi } from './source-api.js';

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

/**
 * A pull request ready to be written: its head commit here, how it merges now (null when merged or no base), and the
 * diff around each code comment of its reviews (`patches[r][c]`: comment c of review r), as Gitea's uploader cuts it.
 */
export interface PullFacts {
  headSha: string;
  mergeability: Mergeability | null;
  patches: string[][];
}

/** An account of the source as its API shows it (Gogs names it `username`). */
export const sourceAccount = z.object({ id: z.number().optional(), login: z.string().optional(), username: z.string().optional() }).nullish();
const sourceReview = z.object({
  id: z.number().int().positive(),
  user: sourceAccount,
  state: z.string(),
  body: z.string().nullish(),
  commit_id: z.string().nullish(),
  official: z.boolean().optional(),
  stale: z.boolean().optional(),
  dismissed: z.boolean().optional(),
  submitted_at: z.string().nullish(),
  updated_at: z.string().nullish(),
});
const sourceReviewComment = z.object({
  body: z.string().nullish(),
  user: sourceAccount,
  path: z.string(),
  commit_id: z.string().nullish(),
  // the new file's line, or the old file's (Gitea's LineNum and OldLineNum)
  position: z.number().int().nullish(),
  original_position: z.number().int().nullish(),
  created_at: z.string().nullish(),
  updated_at: z.string().nullish(),
});
export type SourceReview = z.infer<typeof sourceReview> & { comments: Array<z.infer<typeof sourceReviewComment>> };

/**
 * A pull request's reviews with their code comments, as Gitea's downloader reads them; a review with no user (a
 * team's review request) is left out, as there.
 */
export async function readSourceReviews(api: SourceApi, number: number): Promise<SourceReview[]> {
  const reviews: SourceReview[] = [];
  for (const review of await api.list(`pulls/${number}/reviews`, sourceReview)) {
    if (!review.user) continue;
    reviews.push({ ...review, comments: await api.list(`pulls/${number}/reviews/${review.id}/comments`, sourceReviewComment) });
  }
  return reviews;
}

/** A code comment's signed line: the new file's, or minus the old file's. */
const lineOf = (comment: SourceReview['comments'][number]): number =>
  comment.original_position && comment.original_position > 0 ? -comment.original_position : (comment.position ?? 0);

const codeCommentLines = 4;

/**
 * The diff around each code comment, between the merge base and the head. Without a merge base the comment keeps no
 * diff (Gitea's uploader drops such comments; Hearth keeps what they say).
 */
async function readReviewPatches(repoGit: GitRepo, mergeBase: string, headSha: string, reviews: SourceReview[]): Promise<string[][]> {
  const diffs = new Map<string, string>();
  const patches: string[][] = [];
  for (const review of reviews) {
    const cut: string[] = [];
    for (const comment of review.comments) {
      if (!mergeBase || !objectId.test(mergeBase)) {
        cut.push('');
        continue;
      }
      if (!diffs.has(comment.path)) diffs.set(comment.path, await fileDiff(repoGit, mergeBase, headSha, comment.path));
      const line = lineOf(comment);
      cut.push(cutDiffAroundLine(diffs.get(comment.path)!, Math.abs(line), line < 0, codeCommentLines));
    }
    patches.push(cut);
  }
  return patches;
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
export async function readPullFacts(repoGit: GitRepo, number: number, pull: SourcePullFields, reviews: SourceReview[]): Promise<PullFacts | null> {
  const ref = pullHeadRef(number);
  let headSha = await repoGit.objects.refTarget(ref);
  if (!headSha && pull.head.sha && objectId.test(pull.head.sha) && (await repoGit.objects.resolve(`${pull.head.sha}^{commit}`))) {
    if (await repoGit.updateRef(ref, pull.head.sha, null)) headSha = pull.head.sha;
  }
  if (!headSha) return null;
  const baseSha = pull.merged ? null : await repoGit.branchHead(pull.base.ref);
  const mergeability = baseSha ? await testMergeability(repoGit, baseSha, headSha) : null;
  const patches = await readReviewPatches(repoGit, mergeability?.mergeBase ?? pull.merge_base ?? '', headSha, reviews);
  return { headSha, mergeability, patches };
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

/** Review states of the source's API that are imported, as the review types they were there. */
const importedReviewTypes: Record<string, ReviewType> = { APPROVED: reviewTypes.approve, REQUEST_CHANGES: reviewTypes.reject, COMMENT: reviewTypes.comment };

const dateOrNull = (text: string | null | undefined): Date | null => {
  const date = text ? new Date(text) : null;
  return date && !Number.isNaN(date.getTime()) ? date : null;
};

/**
 * The submitted reviews of an imported pull request (Gitea's CreateReviews): each written as its reviewer left it
 * (verdict, body, official, stale and dismissed states, commit, date), with its timeline entry and its code comments,
 * posted by the migrating user with the source's reviewer kept as `original_author`. Pending reviews (their
 * reviewer's alone) and review requests (they would name the migrating user as the one asked) are not imported.
 */
export async function insertImportedReviews(tx: Tx, issue: IssueRow, doer: UserRow, pull: { reviews: SourceReview[] }, facts: PullFacts): Promise<void> {
  for (const [r, review] of pull.reviews.entries()) {
    const type = importedReviewTypes[review.state];
    if (type === undefined) continue;
    const author = { name: review.user?.login || review.user?.username || '', id: review.user?.id ?? 0 };
    const created = dateOrNull(review.submitted_at) ?? issue.created;
    const commitId = review.commit_id && objectId.test(review.commit_id) ? review.commit_id : facts.headSha;
    const [row] = await tx.query<{ id: number }>(
      `INSERT INTO review (type, reviewer_id, original_author, original_author_id, issue_id, content, official, commit_id, stale, dismissed, created, updated)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::timestamptz, COALESCE($12::timestamptz, $11::timestamptz)) RETURNING id`,
      [type, doer.id, author.name, author.id, issue.id, review.body ?? '', review.official ?? false, commitId, review.stale ?? false,
        review.dismissed ?? false, created, dateOrNull(review.updated_at)],
    );
    await tx.query(
      `INSERT INTO comment (type, poster_id, original_author, original_author_id, issue_id, content, review_id, created, updated)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::timestamptz, $8::timestamptz)`,
      [commentType.review, doer.id, author.name, author.id, issue.id, review.body ?? '', row.id, created],
    );
    for (const [c, comment] of review.comments.entries()) {
      const commentAuthor = { name: comment.user?.login || comment.user?.username || author.name, id: comment.user?.id ?? author.id };
      const commentCreated = dateOrNull(comment.created_at) ?? created;
      await tx.query(
        `INSERT INTO comment (type, poster_id, original_author, original_author_id, issue_id, content, tree_path, line, commit_sha, review_id, patch, created, updated)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::timestamptz, COALESCE($13::timestamptz, $12::timestamptz))`,
        [commentType.code, doer.id, commentAuthor.name, commentAuthor.id, issue.id, comment.body ?? '', comment.path, lineOf(comment),
          comment.commit_id && objectId.test(comment.commit_id) ? comment.commit_id : facts.headSha, row.id, facts.patches[r]?.[c] ?? '',
          commentCreated, dateOrNull(comment.updated_at)],
      );
    }
  }
}
