import type { Queryable, Tx } from '../../data-source.js';
import { conflict, forbidden, notFound } from '../../errors.js';
import { emit } from '../../events/emit.js';
import { issueFacts } from '../issues/issue-facts.js';
import { commentType, type IssueRow } from '../issues/issue-row.js';
import type { GitStore } from '../../git/store.js';
import { checkMergeAllowed, type MergeStyle } from '../pulls/merge-checks.js';
import type { PullRow } from '../pulls/pull-row.js';
import { lockPull } from '../pulls/pulls.js';
import { protectionBlock } from '../reviews/protection-checks.js';
import { accessModes, type AccessMode, type RepoRow } from '../repos/repo-row.js';
import type { UserRow } from '../users/user-row.js';

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

/**
 * The pull requests with a scheduled merge to check again after an event (see actors/reactions.ts), open ones only:
 * those whose head is `sha` in the repository (as its base or its head repository), after a commit status on that
 * commit (Gitea's StartPRCheckAndAutoMergeBySHA).
 */
export async function scheduledMergesOfCommit(db: Queryable, repoId: number, sha: string): Promise<number[]> {
  const pulls = await db.query<{ id: number }>(
    `SELECT p.id FROM pull_request p JOIN pull_auto_merge a ON a.pull_id = p.id
     WHERE (p.base_repo_id = $1 OR p.head_repo_id = $1) AND p.head_commit_id = $2 AND NOT p.has_merged`,
    [repoId, sha],
  );
  return pulls.map((p) => p.id);
}

/** The pull request of an issue, when it has a scheduled merge (after a review). */
export async function scheduledMergeOfIssue(db: Queryable, issueId: number): Promise<number[]> {
  const pulls = await db.query<{ id: number }>(
    'SELECT p.id FROM pull_request p JOIN pull_auto_merge a ON a.pull_id = p.id WHERE p.issue_id = $1 AND NOT p.has_merged',
    [issueId],
  );
  return pulls.map((p) => p.id);
}

/**
 * Open pull requests with a scheduled merge whose head or base branch is `branch` of the repository: a push moved
 * it, which may complete what the merge waits for (Gitea's AddToQueueIfMergeable).
 */
export async function scheduledMergesOfBranch(db: Queryable, repoId: number, branch: string): Promise<number[]> {
  const pulls = await db.query<{ id: number }>(
    `SELECT p.id FROM pull_request p JOIN pull_auto_merge a ON a.pull_id = p.id JOIN issue i ON i.id = p.issue_id
     WHERE NOT p.has_merged AND NOT i.is_closed
       AND ((p.head_repo_id = $1 AND p.head_branch = $2) OR (p.base_repo_id = $1 AND p.base_branch = $2))
     ORDER BY p.id`,
    [repoId, branch],
  );
  return pulls.map((p) => p.id);
}

export interface MergeSchedule {
  style: string;
  message: string;
  deleteBranchAfterMerge: boolean;
}

/**
 * Gitea's ScheduleAutoMerge: records the merge to make once the checks pass, with a `pull_scheduled_merge` timeline
 * entry; a pull request has one schedule at most (409). A check job is queued at once, for checks that already passed.
 */
export async function scheduleAutoMerge(tx: Tx, repo: RepoRow, issue: IssueRow, pull: PullRow, doer: UserRow, schedule: MergeSchedule): Promise<ScheduledMergeRow> {
  const [row] = await tx.query<ScheduledMergeRow>(
    `INSERT INTO pull_auto_merge (pull_id, doer_id, merge_style, message, delete_branch_after_merge) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (pull_id) DO NOTHING RETURNING *`,
    [pull.id, doer.id, schedule.style, schedule.message, schedule.deleteBranchAfterMerge],
  );
  if (!row) throw conflict(`PR is already scheduled to auto merge [pull_id: ${pull.id}]`);
  await tx.query('INSERT INTO comment (type, poster_id, issue_id) VALUES ($1, $2, $3)', [commentType.pull_scheduled_merge, doer.id, issue.id]);
  // its first check (for checks that already passed) is the event's reaction
  await emit(tx, { kind: 'auto_merge.scheduled', repoId: repo.id, doerId: doer.id, payload: { ...issueFacts(issue), merge_style: schedule.style } });
  return row;
}

/**
 * Gitea's CancelScheduledAutoMerge: 404 without a schedule; only who scheduled it and repository administrators may
 * cancel (403). Leaves a `pull_cancel_scheduled_merge` timeline entry.
 */
export async function cancelAutoMerge(tx: Tx, repo: RepoRow, issue: IssueRow, pull: PullRow, doer: UserRow, repoMode: AccessMode): Promise<void> {
  const [scheduled] = await tx.query<ScheduledMergeRow>('SELECT * FROM pull_auto_merge WHERE pull_id = $1 FOR UPDATE', [pull.id]);
  if (!scheduled) throw notFound();
  if (scheduled.doer_id !== doer.id && repoMode < accessModes.admin) throw forbidden('user has no permission to cancel the scheduled auto merge');
  await tx.query('DELETE FROM pull_auto_merge WHERE id = $1', [scheduled.id]);
  await tx.query('INSERT INTO comment (type, poster_id, issue_id) VALUES ($1, $2, $3)', [commentType.pull_cancel_scheduled_merge, doer.id, issue.id]);
  await emit(tx, { kind: 'auto_merge.cancelled', repoId: repo.id, doerId: doer.id, payload: issueFacts(issue) });
}

/** Removes a schedule without a trace: its pull request was merged or closed (Gitea's Merge deletes it first). */
export async function dropScheduledMerge(tx: Tx, pullId: number): Promise<void> {
  await tx.query('DELETE FROM pull_auto_merge WHERE pull_id = $1', [pullId]);
}

/**
 * merge_when_checks_succeed (Gitea's CheckPullMergeable with MergeCheckTypeAuto, then ScheduleAutoMerge): every merge
 * check but branch protection must pass now; when protection passes too the pull request is merged at once (false),
 * otherwise the merge is scheduled (true).
 */
export async function scheduleMergeUnlessReady(
  tx: Tx, deps: { git: GitStore }, base: RepoRow, pull: PullRow, doer: UserRow, schedule: MergeSchedule & { style: MergeStyle },
): Promise<boolean> {
  const row = await lockPull(tx, pull);
  const [issue] = await tx.query<IssueRow>('SELECT * FROM issue WHERE id = $1 FOR UPDATE', [row.issue_id]);
  await checkMergeAllowed({ tx, git: deps.git, base, pull: row, issue, doer, request: { style: schedule.style, force: false, auto: false, scheduling: true } });
  if (!(await protectionBlock(tx, deps.git, base, row))) return false;
  await scheduleAutoMerge(tx, base, issue, row, doer, schedule);
  return true;
}
