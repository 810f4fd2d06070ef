import { findIssueById } from '../db/models/issues/issues.js';
import { findPullOfIssue } from '../db/models/pulls/pulls.js';
import { accessModes, type RepoRow } from '../db/models/repos/repo-row.js';
import type { UserRow } from '../db/models/users/user-row.js';
import { repoViewWithMode } from '../db/views/hook-sources.js';
import { loadPullViews } from '../db/views/pulls.js';
import type { HookPayload } from '../api/render/hook-payloads.js';
import { renderPullRequestPayload, type ApiChangesPayload, type PullHookAction } from '../api/render/pull-payloads.js';
import type { ActorDeps } from './actor.js';

/** What a pull request event hands its webhook fan-out. */
interface PullEvent<P> {
  repo: RepoRow | null;
  doer: UserRow | null;
  payload: P;
}

/**
 * The webhook deliveries of a pull request event: Gitea's PullRequestPayload with `action`, sent to the base
 * repository's hooks as `type` (pull_request, or pull_request_sync for a synchronize); branch filters do not apply.
 */
export function pullHooks<P extends { issue_id: number }>(
  action: PullHookAction, type: 'pull_request' | 'pull_request_sync', extra: (payload: P) => { changes?: ApiChangesPayload; commitId?: string } = () => ({}),
) {
  return async ({ repo, doer, payload }: PullEvent<P>, { db, git, config }: ActorDeps): Promise<Array<{ payload: HookPayload; repo: RepoRow; branch: null }>> => {
    if (!repo || !doer) return [];
    const [issue, pull] = await Promise.all([findIssueById(db, payload.issue_id), findPullOfIssue(db, payload.issue_id)]);
    if (!issue || !pull) return [];
    const [view] = await loadPullViews(db, git, repo, [pull], new Map([[issue.id, issue]]), doer);
    const repoView = await repoViewWithMode(db, repo, accessModes.owner);
    return [{ payload: { type, body: renderPullRequestPayload(action, view, repoView, doer, config, extra(payload)) }, repo, branch: null }];
  };
}
