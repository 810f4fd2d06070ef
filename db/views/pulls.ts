import type { Queryable } from '../data-source.js';
import { shortStat } from '../git/pulls.js';
import type { GitStore } from '../git/store.js';
import type { IssueRow } from '../models/issues/issue-row.js';
import { pullHeadRef, type PullRow } from '../models/pulls/pull-row.js';
import { reviewTypes } from '../models/reviews/review-row.js';
import type { RepoRow } from '../models/repos/repo-row.js';
import { findUsersByIds } from '../models/users/users.js';
import type { UserRow } from '../models/users/user-row.js';
import { loadIssueViews, type IssueView } from './issues.js';
import { loadRepoViews, type RepoView } from './repo.js';

/** A pull request with everything its JSON shows: its issue, both repositories as the viewer sees them, the commits now. */
export interface PullView {
  pull: PullRow;
  issue: IssueView;
  base: RepoView;
  /** Null once the head repository is gone (a deleted fork). */
  head: RepoView | null;
  baseSha: string;
  headSha: string;
  /** Whether the head branch still exists (Gitea then names it as the head's ref, else refs/pull/N/head). */
  headBranchExists: boolean;
  merger: UserRow | null;
  stats: { files: number; additions: number; deletions: number };
  reviewComments: number;
  /** Users asked to review; the reviews area fills this (see `requestedReviewersOf`). */
  requestedReviewers: UserRow[];
}

/** Who is asked to review each pull request (by issue id): the users of its open review requests (Gitea's LoadRequestedReviewers). */
export async function requestedReviewersOf(db: Queryable, issueIds: number[]): Promise<Map<number, UserRow[]>> {
  const byIssue = new Map<number, UserRow[]>(issueIds.map((id) => [id, []]));
  if (issueIds.length === 0) return byIssue;
  const rows = await db.query<{ issue_id: number; reviewer_id: number }>(
    'SELECT issue_id, reviewer_id FROM review WHERE issue_id = ANY($1::bigint[]) AND type = $2 AND reviewer_id IS NOT NULL ORDER BY id',
    [issueIds, reviewTypes.request],
  );
  const users = await findUsersByIds(db, rows.map((row) => row.reviewer_id));
  for (const row of rows) {
    const user = users.get(row.reviewer_id);
    if (user) byIssue.get(row.issue_id)?.push(user);
  }
  return byIssue;
}

/** Review comments per issue (Gitea's code comments, comment type 21). */
async function reviewCommentCounts(db: Queryable, issueIds: number[]): Promise<Map<number, number>> {
  if (issueIds.length === 0) return new Map();
  const rows = await db.query<{ issue_id: number; n: number }>(
    'SELECT issue_id, count(*)::int AS n FROM comment WHERE type = 21 AND issue_id = ANY($1::bigint[]) GROUP BY issue_id', [issueIds],
  );
  return new Map(rows.map((row) => [Number(row.issue_id), row.n]));
}

/** The views of pull requests of one base repository, with their issues (`issues` by id), as `viewer` sees them. */
export async function loadPullViews(
  db: Queryable, git: GitStore, base: RepoRow, pulls: PullRow[], issues: Map<number, IssueRow>, viewer: UserRow | null,
): Promise<PullView[]> {
  if (pulls.length === 0) return [];
  const headIds = [...new Set(pulls.map((p) => p.head_repo_id).filter((id): id is number => id !== null && id !== base.id))];
  const headRows = headIds.length ? await db.query<RepoRow>('SELECT * FROM repository WHERE id = ANY($1::bigint[])', [headIds]) : [];
  const issueIds = pulls.map((p) => p.issue_id);
  const [repoViews, issueViews, mergers, reviewComments, reviewers] = await Promise.all([
    loadRepoViews(db, [base, ...headRows], viewer),
    loadIssueViews(db, pulls.map((p) => issues.get(p.issue_id)!), [base]),
    findUsersByIds(db, pulls.map((p) => p.merger_id)),
    reviewCommentCounts(db, issueIds),
    requestedReviewersOf(db, issueIds),
  ]);
  const viewsById = new Map(repoViews.map((view) => [view.repo.id, view]));
  const baseGit = git.open(base);
  return Promise.all(pulls.map(async (pull, i) => {
    const head = pull.head_repo_id !== null ? (viewsById.get(pull.head_repo_id) ?? null) : null;
    const headBranchSha = head ? await git.open(head.repo).branchHead(pull.head_branch) : null;
    const headSha = headBranchSha ?? (await baseGit.objects.refTarget(pullHeadRef(pull.index))) ?? pull.head_commit_id;
    const baseSha = (await baseGit.branchHead(pull.base_branch)) ?? '';
    const statsTo = pull.has_merged ? pull.head_commit_id : headSha;
    const stats = pull.merge_base && statsTo ? await shortStat(baseGit, pull.merge_base, statsTo) : { files: 0, additions: 0, deletions: 0 };
    return {
      pull, issue: issueViews[i], base: viewsById.get(base.id)!, head, baseSha, headSha, headBranchExists: headBranchSha !== null,
      merger: mergers.get(pull.merger_id ?? 0) ?? null, stats, reviewComments: reviewComments.get(pull.issue_id) ?? 0,
      requestedReviewers: reviewers.get(pull.issue_id) ?? [],
    };
  }));
}
