import type { Queryable } from '../data-source.js';
import { commentType, type CommentRow, type IssueRow } from '../models/issues/issue-row.js';
import { findTeam } from '../models/orgs/teams.js';
import type { ReviewRow } from '../models/reviews/review-row.js';
import { findUsersByIds } from '../models/users/users.js';
import type { UserRow } from '../models/users/user-row.js';
import type { IssueRepo } from './issues.js';
import type { TeamWithOrg } from './teams.js';

/** A review with what its JSON names: its reviewer (or team), its code comments' count and its timeline entry. */
export interface ReviewView {
  review: ReviewRow;
  issue: IssueRow;
  repo: IssueRepo;
  /** Null for a team's request, and once the reviewer's account is gone. */
  reviewer: UserRow | null;
  team: TeamWithOrg | null;
  codeComments: number;
  /** The `review` comment a submitted review left in the timeline. */
  commentId: number | null;
}

/** The views of a pull request's reviews in a fixed number of queries (one more per requested team). */
export async function loadReviewViews(db: Queryable, reviews: ReviewRow[], issue: IssueRow, repo: IssueRepo): Promise<ReviewView[]> {
  const ids = reviews.map((r) => r.id);
  const [users, counts] = await Promise.all([
    findUsersByIds(db, reviews.map((r) => r.reviewer_id)),
    ids.length
      ? db.query<{ review_id: number; code: number; entry: number | null }>(
        `SELECT review_id, count(*) FILTER (WHERE type = $2)::int AS code, min(id) FILTER (WHERE type = $3) AS entry
         FROM comment WHERE review_id = ANY($1::bigint[]) AND issue_id = $4 GROUP BY review_id`,
        [ids, commentType.code, commentType.review, issue.id],
      )
      : Promise.resolve([]),
  ]);
  const byReview = new Map(counts.map((row) => [row.review_id, row]));
  const teams = new Map<number, TeamWithOrg>();
  for (const teamId of new Set(reviews.map((r) => r.reviewer_team_id).filter((id): id is number => id !== null))) {
    const team = await findTeam(db, teamId);
    if (team) teams.set(teamId, { team, org: null });
  }
  return reviews.map((review) => ({
    review,
    issue,
    repo,
    reviewer: users.get(review.reviewer_id ?? 0) ?? null,
    team: teams.get(review.reviewer_team_id ?? 0) ?? null,
    codeComments: byReview.get(review.id)?.code ?? 0,
    commentId: byReview.get(review.id)?.entry ?? null,
  }));
}

/** A code comment of a review with its poster and the user who resolved its conversation. */
export interface ReviewCommentView {
  comment: CommentRow;
  review: ReviewRow;
  issue: IssueRow;
  repo: IssueRepo;
  poster: UserRow | null;
  resolver: UserRow | null;
}

export async function loadReviewCommentViews(db: Queryable, comments: CommentRow[], review: ReviewRow, issue: IssueRow, repo: IssueRepo): Promise<ReviewCommentView[]> {
  const users = await findUsersByIds(db, comments.flatMap((c) => [c.poster_id, c.resolve_doer_id]));
  return comments.map((comment) => ({
    comment, review, issue, repo, poster: users.get(comment.poster_id ?? 0) ?? null, resolver: users.get(comment.resolve_doer_id ?? 0) ?? null,
  }));
}
