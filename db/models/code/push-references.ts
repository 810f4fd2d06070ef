import type { BranchSyncPayload } from '../../../jobs/catalogue.js';
import type { Tx } from '../../data-source.js';
import type { GitRepo } from '../../git/repo.js';
import { applyCommitReferences, applyMergedPullReferences } from '../issues/commit-references.js';
import type { IssueRow } from '../issues/issue-row.js';
import type { RepoRow } from '../repos/repo-row.js';
import { findUsersByIds } from '../users/user-row.js';
import { isZeroSha } from './branch-protection.js';

/** A new branch shows its last ten commits, as Gitea's push (CommitsBeforeLimit(10)); an update everything it added. */
const newBranchCommits = 10;

/**
 * What a push does to issues (Gitea's pushUpdates → UpdateIssuesCommit, and a merge's handleCloseCrossReferences):
 * the commits each pushed branch gained reference, close and reopen issues as the pusher; a pull request whose merge
 * commit arrived with them closes what its description names. A pull mirror's sync does neither (Gitea's mirror sync
 * only notifies). Every step checks what it already did, so running it again changes nothing.
 */
export async function applyPushToIssues(tx: Tx, repoGit: GitRepo, repo: RepoRow, push: BranchSyncPayload, rootUrl: string): Promise<void> {
  if (push.mirrorSync) return;
  const pusher = (await findUsersByIds(tx, [push.pusherId])).get(push.pusherId);
  if (!pusher) return;
  for (const update of push.updates) {
    if (!update.ref.startsWith('refs/heads/') || isZeroSha(update.newSha)) continue;
    const branch = update.ref.slice('refs/heads/'.length);
    const created = isZeroSha(update.oldSha);
    const commits = await repoGit.logMessages({ rev: update.newSha, not: created ? undefined : update.oldSha, max: created ? newBranchCommits : undefined })
      .catch(() => []);
    await applyCommitReferences(tx, repo, pusher, branch, commits.reverse(), rootUrl);

    const shas = [update.newSha, ...commits.map((c) => c.sha)];
    const merged = await tx.query<{ issue: IssueRow; merged_commit_id: string; merger_id: number | null }>(
      `SELECT row_to_json(i) AS issue, p.merged_commit_id, p.merger_id FROM pull_request p JOIN issue i ON i.id = p.issue_id
       WHERE p.base_repo_id = $1 AND p.base_branch = $2 AND p.has_merged AND p.merged_commit_id = ANY($3::text[]) ORDER BY p.id`,
      [repo.id, branch, shas],
    );
    for (const pull of merged) {
      const users = await findUsersByIds(tx, [pull.merger_id, pull.issue.poster_id]);
      const merger = users.get(pull.merger_id ?? 0) ?? pusher;
      await applyMergedPullReferences(tx, { issue: pull.issue, mergedCommit: pull.merged_commit_id }, merger, users.get(pull.issue.poster_id ?? 0) ?? null, rootUrl);
    }
  }
}
