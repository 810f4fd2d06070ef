import type { Queryable, Tx } from '../../data-source.js';
import { forbidden, invalid, notFound } from '../../errors.js';
import { emit } from '../../events/emit.js';
import { fileDiff } from '../../git/review-diff.js';
import type { GitStore } from '../../git/store.js';
import { selectPage, type PageWindow } from '../../sql.js';
import { issueFacts } from '../issues/issue-facts.js';
import { commentType, type CommentRow, type IssueRow } from '../issues/issue-row.js';
import { recordMentions } from '../issues/mentions.js';
import { autoSubscribe } from '../issues/subscriptions.js';
import { pullHeadRef, type PullRow } from '../pulls/pull-row.js';
import type { RepoRow } from '../repos/repo-row.js';
import { userTypes, type UserRow } from '../users/user-row.js';
import { cutDiffAroundLine } from './diff-around-line.js';
import { baseBranchRule, isOfficialReviewer } from './official.js';
import { reviewTypes, type ReviewRow, type ReviewType } from './review-row.js';

/** Gitea's [ui] CODE_COMMENT_LINES: the diff lines a code comment keeps above its line. */
const codeCommentLines = 4;

export const submitOnClosedMessage = "can't submit review for a closed or merged PR";

// ---------------------------------------------------------------- reads

export async function findReview(db: Queryable, id: number): Promise<ReviewRow | null> {
  const [row] = await db.query<ReviewRow>('SELECT * FROM review WHERE id = $1', [id]);
  return row ?? null;
}

/**
 * Gitea's prepareSingleReview: the review `id` of this pull request's issue; a pending review exists only for its
 * reviewer and site administrators (404 for everyone else).
 */
export async function getReviewOfIssue(db: Queryable, issue: IssueRow, id: number, viewer: UserRow | null): Promise<ReviewRow> {
  const review = await findReview(db, id);
  if (!review || review.issue_id !== issue.id) throw notFound('GetReviewByID');
  if (review.type === reviewTypes.pending && !(viewer && (viewer.is_admin || viewer.id === review.reviewer_id))) throw notFound('GetReviewByID');
  return review;
}

/** Every review and review request of a pull request, oldest first, with the total (Gitea's FindReviews + CountReviews). */
export async function listReviews(db: Queryable, issueId: number, page: PageWindow): Promise<{ rows: ReviewRow[]; total: number }> {
  return selectPage<ReviewRow>(db, { select: '*', from: 'review WHERE issue_id = $1', params: [issueId], orderBy: 'id', page });
}

/** Gitea's ToPullReviewList filter: pending reviews are shown to their reviewer and site administrators only. */
export function visibleReviews(reviews: ReviewRow[], viewer: UserRow | null): ReviewRow[] {
  return reviews.filter((r) => r.type !== reviewTypes.pending || (viewer !== null && (viewer.is_admin || viewer.id === r.reviewer_id)));
}

/** The code comments of a review, by file and line, as Gitea groups them. */
export async function codeCommentsOfReview(db: Queryable, review: ReviewRow): Promise<CommentRow[]> {
  return db.query<CommentRow>(
    'SELECT * FROM comment WHERE review_id = $1 AND issue_id = $2 AND type = $3 ORDER BY tree_path, line, created, id',
    [review.id, review.issue_id, commentType.code],
  );
}

/** The caller's started (pending) review of the pull request, locked. */
async function startedReview(tx: Tx, issue: IssueRow, doer: UserRow): Promise<ReviewRow | null> {
  const [row] = await tx.query<ReviewRow>('SELECT * FROM review WHERE issue_id = $1 AND reviewer_id = $2 AND type = $3 FOR UPDATE', [
    issue.id, doer.id, reviewTypes.pending,
  ]);
  return row ?? null;
}

// ---------------------------------------------------------------- the API's events

/**
 * Gitea's preparePullReviewType: the stored type of an API event (anything else stays pending), with its rules: no
 * approving or rejecting one's own pull request, a body for REQUEST_CHANGES and PENDING, a body or code comments for COMMENT.
 */
export function reviewTypeOf(issue: IssueRow, doer: UserRow, event: string, body: string, hasComments: boolean): ReviewType {
  const hasBody = body.trim().length > 0;
  let type: ReviewType;
  let needsBody = true;
  switch (event) {
    case 'APPROVED':
      if (issue.poster_id === doer.id) throw invalid('approve your own pull is not allowed');
      type = reviewTypes.approve;
      needsBody = false;
      break;
    case 'REQUEST_CHANGES':
      if (issue.poster_id === doer.id) throw invalid('reject your own pull is not allowed');
      type = reviewTypes.reject;
      break;
    case 'COMMENT':
      type = reviewTypes.comment;
      needsBody = false;
      if (!hasBody && !hasComments) throw invalid(`review event ${event} requires a body or a comment`);
      break;
    default:
      type = reviewTypes.pending;
  }
  if (needsBody && !hasBody) throw invalid(`review event ${event} requires a body`);
  return type;
}

// ---------------------------------------------------------------- writing

export interface ReviewDeps {
  git: GitStore;
}

/** A code comment: `line` is the new file's line, or minus the old file's (Gitea's signed Line). */
export interface NewCodeComment {
  path: string;
  body: string;
  line: number;
}

/** The commit the pull request's head ref points at in the base repository. */
async function headCommit(deps: ReviewDeps, repo: RepoRow, pull: PullRow): Promise<string> {
  return (await deps.git.open(repo).resolve(pullHeadRef(pull.index))) ?? pull.head_commit_id;
}

/** Gitea's checkIfPRContentChanged, approximated by the trees of the two commits. */
async function contentChanged(deps: ReviewDeps, repo: RepoRow, from: string, to: string): Promise<boolean> {
  if (from === to) return false;
  const repoGit = deps.git.open(repo);
  const [a, b] = await Promise.all([repoGit.resolve(from, 'tree'), repoGit.resolve(to, 'tree')]);
  return a === null || a !== b;
}

/**
 * Gitea's CreatePullReview: the code comments join the caller's started review (one is started when there is none),
 * then that review is submitted as `type` (or stays pending, invisible to others).
 */
export async function createReview(
  tx: Tx, deps: ReviewDeps, repo: RepoRow, issue: IssueRow, pull: PullRow, doer: UserRow,
  input: { type: ReviewType; body: string; commitId?: string; comments: NewCodeComment[] },
): Promise<ReviewRow> {
  if (issue.is_closed) throw invalid(submitOnClosedMessage);
  const head = await headCommit(deps, repo, pull);
  const commitId = input.commitId || head;
  if (input.comments.length > 0) {
    let review = await startedReview(tx, issue, doer);
    if (!review) {
      await tx.query(
        `INSERT INTO review (type, reviewer_id, issue_id, commit_id) VALUES ($1, $2, $3, $4)
         ON CONFLICT (issue_id, reviewer_id) WHERE type = 0 DO NOTHING`,
        [reviewTypes.pending, doer.id, issue.id, commitId],
      );
      review = (await startedReview(tx, issue, doer))!;
    }
    const repoGit = deps.git.open(repo);
    for (const comment of input.comments) {
      const diff = pull.merge_base ? await fileDiff(repoGit, pull.merge_base, head, comment.path) : '';
      const patch = cutDiffAroundLine(diff, Math.abs(comment.line), comment.line < 0, codeCommentLines);
      await tx.query(
        `INSERT INTO comment (type, poster_id, issue_id, content, tree_path, line, commit_sha, review_id, patch) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [commentType.code, doer.id, issue.id, comment.body, comment.path, comment.line, head, review.id, patch],
      );
    }
  }
  return submitReview(tx, deps, repo, issue, pull, doer, input.type, input.body, commitId);
}

/**
 * Gitea's SubmitReview: the caller's started review (or a new one) becomes `type` with `content`. Approvals and
 * rejections are official when the base branch's rule says the caller's count, replace the caller's earlier ones
 * (which are dismissed) and are stale when the head's content moved since `commitId`; any submitted review
 * answers the caller's review request (and those of the caller's teams, for approvals and rejections).
 */
export async function submitReview(
  tx: Tx, deps: ReviewDeps, repo: RepoRow, issue: IssueRow, pull: PullRow, doer: UserRow, type: ReviewType, content: string, commitId: string,
): Promise<ReviewRow> {
  const [current] = await tx.query<IssueRow>('SELECT * FROM issue WHERE id = $1 FOR UPDATE', [issue.id]);
  if (!current || current.is_closed) throw invalid(submitOnClosedMessage);
  const verdict = type === reviewTypes.approve || type === reviewTypes.reject;
  const stale = verdict ? await contentChanged(deps, repo, commitId, await headCommit(deps, repo, pull)) : false;
  let official = false;
  if (verdict) {
    await tx.query('UPDATE review SET official = false WHERE issue_id = $1 AND reviewer_id = $2', [issue.id, doer.id]);
    official = await isOfficialReviewer(tx, repo, await baseBranchRule(tx, pull), doer);
  }
  const started = await startedReview(tx, issue, doer);
  if (type !== reviewTypes.approve && !content.trim()) {
    const [{ count }] = started
      ? await tx.query<{ count: number }>('SELECT count(*)::int AS count FROM comment WHERE review_id = $1 AND type = $2', [started.id, commentType.code])
      : [{ count: 0 }];
    if (count === 0) throw invalid('Review content is empty');
  }
  if (type !== reviewTypes.pending) {
    await tx.query('DELETE FROM review WHERE issue_id = $1 AND reviewer_id = $2 AND type = $3', [issue.id, doer.id, reviewTypes.request]);
  }
  if (verdict) {
    await tx.query('UPDATE review SET dismissed = true WHERE issue_id = $1 AND reviewer_id = $2 AND type IN ($3, $4)', [
      issue.id, doer.id, reviewTypes.approve, reviewTypes.reject,
    ]);
  }
  const [review] = started
    ? await tx.query<ReviewRow>(
      'UPDATE review SET type = $2, content = $3, official = $4, commit_id = $5, stale = $6, updated = now() WHERE id = $1 RETURNING *',
      [started.id, type, content, official, commitId, stale],
    )
    : await tx.query<ReviewRow>(
      'INSERT INTO review (type, reviewer_id, issue_id, content, official, commit_id, stale) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *',
      [type, doer.id, issue.id, content, official, commitId, stale],
    );
  // A pending review stays out of the timeline until it is submitted.
  if (type === reviewTypes.pending) return review;

  const [comment] = await tx.query<{ id: number }>(
    'INSERT INTO comment (type, poster_id, issue_id, content, review_id) VALUES ($1, $2, $3, $4, $5) RETURNING id',
    [commentType.review, doer.id, issue.id, content, review.id],
  );
  await tx.query('UPDATE issue SET updated = now() WHERE id = $1', [issue.id]);
  const codeComments = await codeCommentsOfReview(tx, review);
  for (const text of [content, ...codeComments.map((c) => c.content)]) await recordMentions(tx, current, text);
  if (verdict && repo.owner_id !== doer.id) await removeAnsweredTeamRequests(tx, repo, issue, doer);
  await autoSubscribe(tx, issue.id, doer.id);
  const kind = type === reviewTypes.approve ? 'pull_review.approved' : type === reviewTypes.reject ? 'pull_review.rejected' : 'pull_review.commented';
  await emit(tx, { kind, repoId: repo.id, doerId: doer.id, payload: { ...issueFacts(current), review_id: review.id, comment_id: comment.id } });
  return review;
}

/** Team review requests of an organization's repository that a member's verdict answers. */
async function removeAnsweredTeamRequests(tx: Tx, repo: RepoRow, issue: IssueRow, doer: UserRow): Promise<void> {
  const [owner] = await tx.query<{ type: number }>('SELECT type FROM "user" WHERE id = $1', [repo.owner_id]);
  if (owner?.type !== userTypes.organization) return;
  await tx.query(
    `DELETE FROM review r WHERE r.issue_id = $1 AND r.type = $2 AND r.reviewer_team_id IS NOT NULL
       AND EXISTS (SELECT 1 FROM team_user tu WHERE tu.team_id = r.reviewer_team_id AND tu.uid = $3)`,
    [issue.id, reviewTypes.request, doer.id],
  );
}

/** Gitea's restoreLatestOfficialReview: the reviewer's latest verdict or request counts again. */
async function restoreLatestOfficialReview(tx: Tx, issueId: number, reviewerId: number): Promise<void> {
  await tx.query(
    `UPDATE review SET official = true WHERE id = (
       SELECT id FROM review WHERE issue_id = $1 AND reviewer_id = $2 AND type IN ($3, $4, $5) AND original_author_id = 0 ORDER BY id DESC LIMIT 1)`,
    [issueId, reviewerId, reviewTypes.approve, reviewTypes.reject, reviewTypes.request],
  );
}

/** Gitea's DeletePullReview: the reviewer or a site administrator removes a review with its code, review and dismissal comments. */
export async function deleteReview(tx: Tx, repo: RepoRow, issue: IssueRow, review: ReviewRow, doer: UserRow): Promise<void> {
  if (!doer.is_admin && doer.id !== review.reviewer_id) throw forbidden('Must be the reviewer or a site administrator');
  if (review.type === reviewTypes.request) throw invalid('review request can not be deleted using this method');
  await tx.query('DELETE FROM comment WHERE issue_id = $1 AND review_id = $2 AND type = ANY($3::int[])', [
    issue.id, review.id, [commentType.code, commentType.review, commentType.dismiss_review],
  ]);
  const deleted = await tx.query('DELETE FROM review WHERE id = $1 RETURNING id', [review.id]);
  if (deleted.length === 0) throw notFound();
  if (review.official && review.reviewer_id !== null) await restoreLatestOfficialReview(tx, issue.id, review.reviewer_id);
  await emit(tx, { kind: 'pull_review.deleted', repoId: repo.id, doerId: doer.id, payload: { ...issueFacts(issue), review_id: review.id } });
}

/**
 * Gitea's DismissReview (repository administrators, checked by the route): an approval or rejection is dismissed with
 * a message (a `dismiss_review` timeline entry), or undismissed; `priors` dismisses the reviewer's earlier reviews too.
 */
export async function dismissReview(
  tx: Tx, repo: RepoRow, issue: IssueRow, pull: PullRow, review: ReviewRow, doer: UserRow,
  change: { dismiss: boolean; message: string; priors: boolean },
): Promise<ReviewRow> {
  if (review.type !== reviewTypes.approve && review.type !== reviewTypes.reject) {
    throw forbidden("not need to dismiss this review because it's type is not Approve or change request");
  }
  const [current] = await tx.query<IssueRow>('SELECT * FROM issue WHERE id = $1 FOR UPDATE', [issue.id]);
  if (!current || current.is_closed || pull.has_merged) throw forbidden('not need to dismiss this review because the pr is closed');
  const [row] = await tx.query<ReviewRow>('UPDATE review SET dismissed = $2, updated = now() WHERE id = $1 RETURNING *', [review.id, change.dismiss]);
  if (change.priors && review.reviewer_id !== null) {
    await tx.query('UPDATE review SET dismissed = true WHERE issue_id = $1 AND reviewer_id = $2 AND NOT dismissed AND type IN ($3, $4)', [
      issue.id, review.reviewer_id, reviewTypes.approve, reviewTypes.reject,
    ]);
  }
  if (change.dismiss) {
    const [comment] = await tx.query<{ id: number }>(
      'INSERT INTO comment (type, poster_id, issue_id, content, review_id) VALUES ($1, $2, $3, $4, $5) RETURNING id',
      [commentType.dismiss_review, doer.id, issue.id, change.message, review.id],
    );
    await emit(tx, {
      kind: 'pull_review.dismissed', repoId: repo.id, doerId: doer.id, payload: { ...issueFacts(current), review_id: review.id, comment_id: comment.id },
    });
  }
  return row;
}

/**
 * What a push to the head branch does to reviews (Gitea's AddTestPullRequestTask): when the content changed, every
 * review is stale and, if the base branch's rule dismisses stale approvals, the approvals are dismissed with a
 * timeline entry each; reviews made on the new head are current.
 */
export async function reviewsAfterHeadPush(
  tx: Tx, deps: ReviewDeps, repo: RepoRow, issue: IssueRow, pull: PullRow, doer: UserRow, oldSha: string, newSha: string,
): Promise<void> {
  if (await contentChanged(deps, repo, oldSha, newSha)) {
    await tx.query('UPDATE review SET stale = true WHERE issue_id = $1', [issue.id]);
    const rule = await baseBranchRule(tx, pull);
    if (rule?.dismiss_stale_approvals) {
      const approvals = await tx.query<ReviewRow>(
        'UPDATE review SET dismissed = true, updated = now() WHERE issue_id = $1 AND type = $2 AND NOT dismissed RETURNING *',
        [issue.id, reviewTypes.approve],
      );
      for (const approval of approvals) {
        const [comment] = await tx.query<{ id: number }>(
          'INSERT INTO comment (type, poster_id, issue_id, content, review_id) VALUES ($1, $2, $3, $4, $5) RETURNING id',
          [commentType.dismiss_review, doer.id, issue.id, 'New commits pushed, approval review dismissed automatically according to repository settings', approval.id],
        );
        await emit(tx, {
          kind: 'pull_review.dismissed', repoId: repo.id, doerId: doer.id, payload: { ...issueFacts(issue), review_id: approval.id, comment_id: comment.id },
        });
      }
    }
  }
  await tx.query('UPDATE review SET stale = false WHERE issue_id = $1 AND commit_id = $2', [issue.id, newSha]);
}
