import { findIssueById } from '../db/models/issues/issues.js';
import { findPullOfIssue } from '../db/models/pulls/pulls.js';
import { findReview } from '../db/models/reviews/reviews.js';
import { accessModes, type RepoRow } from '../db/models/repos/repo-row.js';
import { findUsersByIds } from '../db/models/users/users.js';
import type { UserRow } from '../db/models/users/user-row.js';
import { repoViewWithMode } from '../db/views/hook-sources.js';
import { loadPullViews } from '../db/views/pulls.js';
import type { HookPayload } from '../api/render/hook-payloads.js';
import { renderPullRequestPayload, type PullHookAction } from '../api/render/pull-payloads.js';
import type { ActorDeps } from './actor.js';

type ReviewHookType = 'pull_request_review_approved' | 'pull_request_review_rejected' | 'pull_request_review_comment' | 'pull_request_review_request';

interface ReviewEvent<P> {
  repo: RepoRow | null;
  doer: UserRow | null;
  payload: P;
}

async function deliveries(
  { repo, doer }: ReviewEvent<unknown>, issueId: number, deps: ActorDeps, type: ReviewHookType, action: PullHookAction,
  extra: { review?: { type: string; content: string }; requestedReviewer?: UserRow | null },
): Promise<Array<{ payload: HookPayload; repo: RepoRow; branch: null }>> {
  if (!repo || !doer) return [];
  const [issue, pull] = await Promise.all([findIssueById(deps.db, issueId), findPullOfIssue(deps.db, issueId)]);
  if (!issue || !pull) return [];
  const [view] = await loadPullViews(deps.db, deps.git, repo, [pull], new Map([[issue.id, issue]]), null);
  const repoView = await repoViewWithMode(deps.db, repo, accessModes.owner);
  return [{ payload: { type, body: renderPullRequestPayload(action, view, repoView, doer, deps.config, extra) }, repo, branch: null }];
}

/** Gitea's PullRequestReview webhook: action `reviewed`, with the review's event type and body. */
export function reviewHooks(type: 'pull_request_review_approved' | 'pull_request_review_rejected' | 'pull_request_review_comment') {
  return async (event: ReviewEvent<{ issue_id: number; review_id: number }>, deps: ActorDeps) => {
    const review = await findReview(deps.db, event.payload.review_id);
    return deliveries(event, event.payload.issue_id, deps, type, 'reviewed', { review: { type, content: review?.content ?? '' } });
  };
}

/** Gitea's PullRequestReviewRequest webhook for the requested user (`review_requested` or `review_request_removed`). */
export function reviewRequestHooks(action: 'review_requested' | 'review_request_removed') {
  return async (event: ReviewEvent<{ issue_id: number; reviewer_id: number | null }>, deps: ActorDeps) => {
    if (event.payload.reviewer_id === null) return [];
    const reviewer = (await findUsersByIds(deps.db, [event.payload.reviewer_id])).get(event.payload.reviewer_id) ?? null;
    if (!reviewer) return [];
    return deliveries(event, event.payload.issue_id, deps, 'pull_request_review_request', action, { requestedReviewer: reviewer });
  };
}
