import { reviewStates, reviewTypes } from '../../db/models/reviews/review-row.js';
import type { ReviewCommentView, ReviewView } from '../../db/views/reviews.js';
import type { UserRow } from '../../db/models/users/user-row.js';
import { issueHtmlUrl, renderPerson } from './issue.js';
import { renderTeam, type ApiTeam } from './team.js';
import { iso } from './time.js';
import { renderUser, type ApiUser, type RenderContext } from './user.js';

/** The PullReview definition of the Gitea 1.22 API description. */
export interface ApiPullReview {
  id: number;
  user: ApiUser | null;
  team: ApiTeam | null;
  state: string;
  body: string;
  commit_id: string;
  stale: boolean;
  official: boolean;
  dismissed: boolean;
  comments_count: number;
  submitted_at: string;
  updated_at: string;
  html_url: string;
  pull_request_url: string;
}

/** Gitea's ToPullReview: a team's request names no user; a reviewer whose account is gone is the ghost. */
export function renderPullReview(view: ReviewView, viewer: UserRow | null, ctx: RenderContext): ApiPullReview {
  const { review } = view;
  const pullUrl = issueHtmlUrl(view.repo, view.issue, ctx);
  return {
    id: review.id,
    user: review.reviewer_team_id !== null && review.reviewer_id === null ? null : renderPerson(view.reviewer, ctx, viewer),
    team: view.team ? renderTeam(view.team, viewer, ctx) : null,
    state: reviewStates[review.type] ?? '',
    body: review.content,
    commit_id: review.commit_id,
    stale: review.stale,
    official: review.official,
    dismissed: review.dismissed,
    comments_count: view.codeComments,
    submitted_at: iso(review.created),
    updated_at: iso(review.updated),
    html_url: view.commentId ? `${pullUrl}#issuecomment-${view.commentId}` : '',
    pull_request_url: pullUrl,
  };
}

/** The PullReviewComment definition of the Gitea 1.22 API description. */
export interface ApiPullReviewComment {
  id: number;
  body: string;
  user: ApiUser;
  resolver: ApiUser | null;
  pull_request_review_id: number;
  created_at: string;
  updated_at: string;
  path: string;
  commit_id: string;
  original_commit_id: string;
  diff_hunk: string;
  position: number;
  original_position: number;
  html_url: string;
  pull_request_url: string;
}

/** Gitea's patch2diff: the hunk of a stored patch, from its first `@@`. */
function diffHunk(patch: string): string {
  const split = patch.split('\n@@');
  return split.length === 2 ? `@@${split[1]}` : '';
}

/** Gitea's ToPullReviewCommentList entry: a line of the new file is `position`, one of the old file `original_position`. */
export function renderPullReviewComment(view: ReviewCommentView, viewer: UserRow | null, ctx: RenderContext): ApiPullReviewComment {
  const { comment } = view;
  const pullUrl = issueHtmlUrl(view.repo, view.issue, ctx);
  const files = view.review.type === reviewTypes.pending ? '/files' : '';
  return {
    id: comment.id,
    body: comment.content,
    user: renderPerson(view.poster, ctx, viewer),
    resolver: view.resolver ? renderUser(view.resolver, viewer, ctx) : null,
    pull_request_review_id: view.review.id,
    created_at: iso(comment.created),
    updated_at: iso(comment.updated),
    path: comment.tree_path,
    commit_id: comment.commit_sha,
    original_commit_id: comment.old_ref,
    diff_hunk: diffHunk(comment.patch),
    position: comment.line >= 0 ? comment.line : 0,
    original_position: comment.line < 0 ? -comment.line : 0,
    html_url: `${pullUrl}${files}#issuecomment-${comment.id}`,
    pull_request_url: pullUrl,
  };
}
