import type { Queryable, Tx } from '../../data-source.js';
import { enqueue } from '../../../jobs/queue.js';

/** A row of `pull_auto_merge`: a merge scheduled for when the base branch's required checks pass (Gitea's AutoMerge). */
export interface ScheduledMergeRow {
  id: number;
  pull_id: number;
  doer_id: number;
  merge_style: string;
  message: string;
  delete_branch_after_merge: boolean;
  created: Date;
}

export async function findScheduledMerge(db: Queryable, pullId: number): Promise<ScheduledMergeRow | null> {
  const [row] = await db.query<ScheduledMergeRow>('SELECT * FROM pull_auto_merge WHERE pull_id = $1', [pullId]);
  return row ?? null;
}

/** Queues a check of the pull request's scheduled merge, when it has one (after a review, a test, a push). */
export async function enqueueAutoMergeCheck(tx: Tx, pullId: number): Promise<void> {
  if (await findScheduledMerge(tx, pullId)) await enqueue(tx, 'pull-auto-merge', { pullId });
}

/**
 * Queues a check of every scheduled merge whose pull request's head is `sha` in the repository (as its base or its
 * head repository): a commit status was reported on that commit (Gitea's StartPRCheckAndAutoMergeBySHA).
 */
export async function enqueueAutoMergeChecksForCommit(tx: Tx, repoId: number, sha: string): Promise<void> {
  const pulls = await tx.query<{ id: number }>(
    `SELECT p.id FROM pull_request p JOIN pull_auto_merge a ON a.pull_id = p.id
     WHERE (p.base_repo_id = $1 OR p.head_repo_id = $1) AND p.head_commit_id = $2 AND NOT p.has_merged`,
    [repoId, sha],
  );
  for (const pull of pulls) await enqueue(tx, 'pull-auto-merge', { pullId: pull.id });
}
