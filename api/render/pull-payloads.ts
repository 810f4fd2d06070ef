import type { UserRow } from '../../db/models/users/user-row.js';
import type { PullView } from '../../db/views/pulls.js';
import type { RepoView } from '../../db/views/repo.js';
import { renderPull, type ApiPullRequest } from './pull.js';
import { renderRepository, type ApiRepository } from './repository.js';
import { renderUser, type ApiUser, type RenderContext } from './user.js';

/** Gitea's HookIssueAction values a pull request payload carries. */
export type PullHookAction = 'opened' | 'edited' | 'closed' | 'reopened' | 'synchronized' | 'assigned' | 'unassigned'
  | 'label_updated' | 'label_cleared' | 'milestoned' | 'demilestoned' | 'review_requested' | 'review_request_removed' | 'reviewed';

/** Gitea's ChangesPayload: what an edit changed, by its old value. */
export interface ApiChangesPayload {
  title?: { from: string };
  body?: { from: string };
  ref?: { from: string };
}

/** Gitea's PullRequestPayload. */
export interface ApiPullRequestPayload {
  action: PullHookAction;
  number: number;
  changes?: ApiChangesPayload;
  pull_request: ApiPullRequest;
  requested_reviewer: ApiUser | null;
  repository: ApiRepository;
  sender: ApiUser;
  commit_id: string;
  /** Gitea's ReviewPayload of a review event: the webhook event type and the review's body. */
  review: { type: string; content: string } | null;
}

/**
 * A pull request event's webhook payload. `pull` is rendered as the doer sees it, the repository as its owner
 * would (Gitea's ToRepo with the access mode of the hook's owner).
 */
export function renderPullRequestPayload(
  action: PullHookAction, pull: PullView, repo: RepoView, doer: UserRow, ctx: RenderContext,
  extra: { changes?: ApiChangesPayload; requestedReviewer?: UserRow | null; commitId?: string; review?: { type: string; content: string } } = {},
): ApiPullRequestPayload {
  return {
    action,
    number: pull.pull.index,
    ...(extra.changes ? { changes: extra.changes } : {}),
    pull_request: renderPull(pull, doer, ctx),
    requested_reviewer: extra.requestedReviewer ? renderUser(extra.requestedReviewer, null, ctx) : null,
    repository: renderRepository(repo, null, ctx),
    sender: renderUser(doer, null, ctx),
    commit_id: extra.commitId ?? '',
    review: extra.review ?? null,
  };
}
