import type { Tx } from '../../data-source.js';
import { conflict, forbidden, invalid } from '../../errors.js';
import { fetchCommitAs, isAncestor, mergeTree } from '../../git/pulls.js';
import { recordRefUpdates } from '../code/ref-updates.js';
import { findIssueById } from '../issues/issues.js';
import { accessModeOf } from '../access.js';
import { accessModes, type RepoRow } from '../repos/repo-row.js';
import type { UserRow } from '../users/user-row.js';
import { serverIdentity, userIdentity } from './identities.js';
import { rebaseOnto, type MergeDeps } from './merge.js';
import type { PullRow } from './pull-row.js';
import { findHeadRepo } from './pulls.js';

/**
 * Gitea's pull_service.Update (`POST /update`): brings the base branch into the head branch, by a merge commit
 * (authored by the caller) or by replaying the head's commits on the base (`rebase`, when the repository allows
 * rebase updates). Merged or closed pull requests are a 422, a caller who may not write the head branch a 403,
 * conflicts a 409. The head moves only if it still is where the update started; the move is recorded as a push.
 */
export async function updatePullBranch(tx: Tx, deps: MergeDeps, base: RepoRow, pull: PullRow, doer: UserRow, style: 'merge' | 'rebase'): Promise<void> {
  const issue = await findIssueById(tx, pull.issue_id);
  if (pull.has_merged) throw invalid('pull request has been merged');
  if (!issue || issue.is_closed) throw invalid('pull request is closed');
  const headRepo = await findHeadRepo(tx, base, pull);
  if (!headRepo) throw invalid('the head repository of the pull request no longer exists');
  const mayWrite = (await accessModeOf(tx, doer, headRepo, 'repo.code')) >= accessModes.write
    || (pull.allow_maintainer_edit && (await accessModeOf(tx, doer, base, 'repo.code')) >= accessModes.write);
  if (!mayWrite || (style === 'rebase' && !headRepo.allow_rebase_update)) throw forbidden('user is not allowed to update the pull request');
  const headGit = deps.git.open(headRepo);
  const baseGit = deps.git.open(base);
  const [headSha, baseSha] = await Promise.all([headGit.branchHead(pull.head_branch), baseGit.branchHead(pull.base_branch)]);
  if (!headSha || !baseSha) throw conflict('the head or base branch of the pull request no longer exists');
  await fetchCommitAs(headGit, baseGit, baseSha, null);
  if (await isAncestor(headGit, baseSha, headSha)) return;
  const committer = serverIdentity(deps.config);
  let newHead: string;
  if (style === 'rebase') {
    newHead = await rebaseOnto(headGit, baseSha, headSha, committer);
  } else {
    const merged = await mergeTree(headGit, headSha, baseSha);
    if (merged.conflicts.length) throw conflict(`merge failed because of conflict: ${merged.conflicts.join(', ')}`);
    const from = headRepo.id === base.id ? `'${pull.base_branch}'` : `'${pull.base_branch}' of ${base.owner_name}/${base.name}`;
    newHead = await headGit.commitTree(merged.tree, [headSha, baseSha], `Merge branch ${from} into ${pull.head_branch}\n`, userIdentity(doer, deps.config.rootUrl), committer);
  }
  const ref = `refs/heads/${pull.head_branch}`;
  if (!(await headGit.updateRef(ref, newHead, headSha))) throw conflict('the head branch moved while it was being updated');
  tx.onRollback(async () => {
    await headGit.updateRef(ref, headSha, newHead);
  });
  await recordRefUpdates(tx, headGit, headRepo, doer, [{ ref, oldSha: headSha, newSha: newHead }]);
}
