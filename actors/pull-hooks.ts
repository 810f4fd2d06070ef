import type { Queryable } from '../db/data-source.js';
import type { GitStore } from '../db/git/store.js';
import { findIssueById } from '../db/models/issues/issues.js';
import { findPullOfIssue } from '../db/models/pulls/pulls.js';
import { accessModes, type AccessMode, type RepoRow } from '../db/models/repos/repo-row.js';
import type { UserRow } from '../db/models/users/user-row.js';
import { repoViewWithMode } from '../db/views/hook-sources.js';
import { loadPullViews } from '../db/views/pulls.js';
import type { HookPayload } from '../api/render/hook-payloads.js';
import { renderPullRequestPayload, type ApiChangesPayload, type PullHookAction } from '../api/render/pull-payloads.js';
import type { RenderContext } from '../api/render/user.js';
import type { ActorDeps } from './actor.js';

/** The webhook event types whose payload is Gitea's PullRequestPayload, bar the review ones. */
export type PullPayloadType = 'pull_request' | 'pull_request_sync' | 'pull_request_assign' | 'pull_request_label' | 'pull_request_milestone';

/** What a pull request event hands its webhook fan-out. */
interface PullEvent<P> {
  repo: RepoRow | null;
  doer: UserRow | null;
  payload: P;
}

/** One pull request payload to render: the event type and action, and the access mode the repository is shown with. */
export interface PullPayloadRequest {
  repo: RepoRow;
  doer: UserRow;
  issueId: number;
  type: PullPayloadType;
  action: PullHookAction;
  mode: AccessMode;
  changes?: ApiChangesPayload;
  commitId?: string;
}

/** Gitea's PullRequestPayload of the pull request of `issueId`, as the webhook notifier builds it; null when it is gone. */
export async function pullHookPayload(
  deps: { db: Queryable; git: GitStore }, ctx: RenderContext, { repo, doer, issueId, type, action, mode, changes, commitId }: PullPayloadRequest,
): Promise<HookPayload | null> {
  const [issue, pull] = await Promise.all([findIssueById(deps.db, issueId), findPullOfIssue(deps.db, issueId)]);
  if (!issue || !pull) return null;
  const [view] = await loadPullViews(deps.db, deps.git, repo, [pull], new Map([[issue.id, issue]]), doer);
  const repoView = await repoViewWithMode(deps.db, repo, mode);
  return { type, body: renderPullRequestPayload(action, view, repoView, doer, ctx, { changes, commitId }) };
}

/**
 * The webhook deliveries of a pull request event: Gitea's PullRequestPayload with `action`, sent to the base
 * repository's hooks as `type` (pull_request, or pull_request_sync for a synchronize); branch filters do not apply.
 */
export function pullHooks<P extends { issue_id: number }>(
  action: PullHookAction, type: 'pull_request' | 'pull_request_sync', extra: (payload: P) => { changes?: ApiChangesPayload; commitId?: string } = () => ({}),
) {
  return async ({ repo, doer, payload }: PullEvent<P>, deps: ActorDeps): Promise<Array<{ payload: HookPayload; repo: RepoRow; branch: null }>> => {
    if (!repo || !doer) return [];
    const hookPayload = await pullHookPayload(deps, deps.config, {
      repo, doer, issueId: payload.issue_id, type, action, mode: accessModes.owner, ...extra(payload),
    });
    return hookPayload ? [{ payload: hookPayload, repo, branch: null }] : [];
  };
}
