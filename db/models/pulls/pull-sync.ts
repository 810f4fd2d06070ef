import type { Tx } from '../../data-source.js';
import { emit } from '../../events/emit.js';
import type { GitStore } from '../../git/store.js';
import { issueFacts } from '../issues/issue-facts.js';
import { findIssueById } from '../issues/issues.js';
import type { PullRow } from './pull-row.js';
import { refreshPull } from './pulls.js';
import { findRepoById } from '../repos/repos.js';
import { reviewsAfterHeadPush } from '../reviews/reviews.js';
import { findUsersByIds } from '../users/users.js';

/**
 * After a push (the branch-sync job): every open pull request whose head or base branch was among the pushed
 * branches is tested again (Gitea's AddTestPullRequestTask); one whose head moved keeps its new head under
 * refs/pull/N/head, makes its reviews stale (dismissing approvals where the base branch's rule says so) and emits
 * `pull_request.synchronized` (the `push` events' reaction checks scheduled merges again). A repeated run finds the heads already recorded and emits nothing.
 */
export async function syncPullsAfterPush(tx: Tx, git: GitStore, repoId: number, pusherId: number, branches: string[]): Promise<void> {
  if (branches.length === 0) return;
  const pulls = await tx.query<PullRow>(
    `SELECT p.* FROM pull_request p JOIN issue i ON i.id = p.issue_id
     WHERE NOT p.has_merged AND NOT i.is_closed
       AND ((p.head_repo_id = $1 AND p.head_branch = ANY($2::text[])) OR (p.base_repo_id = $1 AND p.base_branch = ANY($2::text[])))
     ORDER BY p.id`,
    [repoId, branches],
  );
  for (const pull of pulls) {
    const before = pull.head_commit_id;
    const { pull: after, headMoved } = await refreshPull(tx, git, pull);
    if (!headMoved) continue;
    const issue = await findIssueById(tx, after.issue_id);
    if (!issue) continue;
    const [base, pusher] = await Promise.all([findRepoById(tx, after.base_repo_id), findUsersByIds(tx, [pusherId])]);
    if (base && pusher.has(pusherId) && before) await reviewsAfterHeadPush(tx, { git }, base, issue, after, pusher.get(pusherId)!, before, after.head_commit_id);
    await emit(tx, {
      kind: 'pull_request.synchronized', repoId: after.base_repo_id, doerId: pusherId,
      payload: { ...issueFacts(issue), before, after: after.head_commit_id },
    });
  }
}
