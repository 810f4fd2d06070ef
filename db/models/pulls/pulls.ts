import type { Queryable, Tx } from '../../data-source.js';
import { conflict, invalid, notFound } from '../../errors.js';
import { fetchCommitAs, isAncestor, mergeTree, treeOf } from '../../git/pulls.js';
import type { GitRepo } from '../../git/repo.js';
import { isValidRefName } from '../../git/refs.js';
import type { GitStore } from '../../git/store.js';
import { createIssue } from '../issues/issues.js';
import { reviveJsonRow, type IssueRow } from '../issues/issue-row.js';
import type { LabelRow } from '../orgs/labels.js';
import type { RepoRow } from '../repos/repo-row.js';
import { findRepoById } from '../repos/repos.js';
import type { UserRow } from '../users/user-row.js';
import { pullHeadRef, pullStatus, type PullRow, type PullStatus } from './pull-row.js';

// ---- reads -------------------------------------------------------------------------------------------

export async function findPullByIndex(db: Queryable, repoId: number, index: number): Promise<PullRow | null> {
  const [row] = await db.query<PullRow>('SELECT * FROM pull_request WHERE base_repo_id = $1 AND index = $2', [repoId, index]);
  return row ?? null;
}

/** The pull request `index` of the repository: 404 when there is none (an issue with that index is no pull request). */
export async function getPullByIndex(db: Queryable, repoId: number, index: number): Promise<PullRow> {
  const row = await findPullByIndex(db, repoId, index);
  if (!row) throw notFound(`pull request does not exist [repo_id: ${repoId}, index: ${index}]`);
  return row;
}

/** The pull request `index` of the repository with its issue, in one query; 404 as getPullByIndex. */
export async function getPullWithIssue(db: Queryable, repoId: number, index: number): Promise<{ pull: PullRow; issue: IssueRow }> {
  const [row] = await db.query<PullRow & { issue_json: IssueRow }>(
    'SELECT p.*, to_jsonb(i) AS issue_json FROM pull_request p JOIN issue i ON i.id = p.issue_id WHERE p.base_repo_id = $1 AND p.index = $2',
    [repoId, index],
  );
  if (!row) throw notFound(`pull request does not exist [repo_id: ${repoId}, index: ${index}]`);
  const { issue_json: issue, ...pull } = row;
  return { pull, issue: reviveJsonRow(issue) };
}

/** The head repository of a pull request (null once deleted): the base itself, without a query, for two of its branches. */
export async function findHeadRepo(db: Queryable, base: RepoRow, pull: PullRow): Promise<RepoRow | null> {
  if (pull.head_repo_id === null) return null;
  return pull.head_repo_id === base.id ? base : findRepoById(db, pull.head_repo_id);
}

export async function findPullOfIssue(db: Queryable, issueId: number): Promise<PullRow | null> {
  const [row] = await db.query<PullRow>('SELECT * FROM pull_request WHERE issue_id = $1', [issueId]);
  return row ?? null;
}

/** The latest merged pull request into the repository whose merge made commit `sha` (Gitea's GetPullRequestByMergedCommit). */
export async function findPullByMergedCommit(db: Queryable, repoId: number, sha: string): Promise<PullRow | null> {
  const [row] = await db.query<PullRow>(
    'SELECT * FROM pull_request WHERE base_repo_id = $1 AND has_merged AND merged_commit_id = $2 ORDER BY id DESC LIMIT 1', [repoId, sha],
  );
  return row ?? null;
}

/** The pull request row locked for a change, as it is now. */
export async function lockPull(tx: Tx, pull: Pick<PullRow, 'id'>): Promise<PullRow> {
  const [row] = await tx.query<PullRow>('SELECT * FROM pull_request WHERE id = $1 FOR UPDATE', [pull.id]);
  if (!row) throw notFound();
  return row;
}

/** The pull request row and its issue's, both locked for a change (in that order, as lockPull then lockIssue), as they are now. */
export async function lockPullWithIssue(tx: Tx, pull: Pick<PullRow, 'id'>): Promise<{ pull: PullRow; issue: IssueRow }> {
  const [row] = await tx.query<PullRow & { issue_json: IssueRow }>(
    'SELECT p.*, to_jsonb(i) AS issue_json FROM pull_request p JOIN issue i ON i.id = p.issue_id WHERE p.id = $1 FOR UPDATE OF p, i',
    [pull.id],
  );
  if (!row) throw notFound();
  const { issue_json: issue, ...locked } = row;
  return { pull: locked, issue: reviveJsonRow(issue) };
}

/** Gitea's GetUnmergedPullRequest: an open, unmerged pull request between the same two branches. */
export async function findUnmergedPull(
  db: Queryable, headRepoId: number, headBranch: string, baseRepoId: number, baseBranch: string,
): Promise<PullRow | null> {
  const [row] = await db.query<PullRow>(
    `SELECT p.* FROM pull_request p JOIN issue i ON i.id = p.issue_id
     WHERE p.head_repo_id = $1 AND p.head_branch = $2 AND p.base_repo_id = $3 AND p.base_branch = $4 AND NOT p.has_merged AND NOT i.is_closed`,
    [headRepoId, headBranch, baseRepoId, baseBranch],
  );
  return row ?? null;
}

/** The latest pull request between two branches, in any state (Gitea's GetPullRequestByBaseHeadInfo). */
export async function findPullByBranches(
  db: Queryable, headRepoId: number, headBranch: string, baseRepoId: number, baseBranch: string,
): Promise<PullRow | null> {
  const [row] = await db.query<PullRow>(
    `SELECT * FROM pull_request WHERE head_repo_id = $1 AND head_branch = $2 AND base_repo_id = $3 AND base_branch = $4 ORDER BY id DESC LIMIT 1`,
    [headRepoId, headBranch, baseRepoId, baseBranch],
  );
  return row ?? null;
}

// ---- mergeability ------------------------------------------------------------------------------------

/** What testing a pull request's head against its base finds (Gitea's checkAndUpdateStatus). */
export interface Mergeability {
  status: PullStatus;
  conflictedFiles: string[];
  mergeBase: string;
  commitsAhead: number;
  commitsBehind: number;
}

/**
 * Tests `head` against `base` in the base repository (which holds both commits): the merge base, how far each
 * side is ahead, and whether a three-way merge is clean (`git merge-tree`), adds nothing, or conflicts.
 */
export async function testMergeability(repoGit: GitRepo, baseSha: string, headSha: string): Promise<Mergeability> {
  const [mergeBase, commitsAhead, commitsBehind] = await Promise.all([
    repoGit.mergeBase(baseSha, headSha),
    repoGit.count({ rev: headSha, not: baseSha }),
    repoGit.count({ rev: baseSha, not: headSha }),
  ]);
  const base = { mergeBase: mergeBase ?? '', commitsAhead, commitsBehind, conflictedFiles: [] as string[] };
  if (commitsAhead === 0 || (await isAncestor(repoGit, headSha, baseSha))) return { ...base, status: pullStatus.ancestor };
  const merged = await mergeTree(repoGit, baseSha, headSha);
  if (merged.conflicts.length) return { ...base, status: pullStatus.conflict, conflictedFiles: merged.conflicts };
  if (merged.tree === (await treeOf(repoGit, baseSha))) return { ...base, status: pullStatus.empty };
  return { ...base, status: pullStatus.mergeable };
}

/** Writes a test's findings and the head commit onto the row. */
export async function storeMergeability(tx: Tx, pullId: number, headSha: string, found: Mergeability): Promise<PullRow> {
  const [row] = await tx.query<PullRow>(
    `UPDATE pull_request SET status = $2, conflicted_files = $3, merge_base = $4, commits_ahead = $5, commits_behind = $6,
       head_commit_id = $7, updated = now() WHERE id = $1 RETURNING *`,
    [pullId, found.status, found.conflictedFiles, found.mergeBase, found.commitsAhead, found.commitsBehind, headSha],
  );
  return row;
}

// ---- creation ----------------------------------------------------------------------------------------

/** A head as `CreatePullRequestOption.head` names it, resolved: the repository and branch. */
export interface PullHead {
  repo: RepoRow;
  branch: string;
}

/** What creating a pull request takes, resolved: labels, milestone and assignees are rows the caller checked. */
export interface NewPull {
  head: PullHead;
  baseBranch: string;
  title: string;
  body?: string;
  deadline?: Date | null;
  milestoneId?: number | null;
  labels?: LabelRow[];
  assignees?: UserRow[];
}

/**
 * Gitea's NewPullRequest: the issue (with the next index of the base repository) and the pull request row in the
 * caller's transaction, the head commit kept in the base repository as `refs/pull/N/head` (fetched from a fork),
 * and mergeability tested at once. Unknown branches, a head equal to the base or without commits the base lacks
 * are a 422; an open pull request between the same branches a 409. Nothing stays behind when it fails.
 */
export async function createPull(tx: Tx, ctx: { git: GitStore }, base: RepoRow, doer: UserRow, input: NewPull): Promise<{ issue: IssueRow; pull: PullRow }> {
  const { head } = input;
  if (head.repo.id === base.id && head.branch === input.baseBranch) throw invalid('Invalid PullRequest: There are no changes between the head and the base');
  if (!isValidRefName(`refs/heads/${input.baseBranch}`)) throw invalid(`base branch does not exist [name: ${input.baseBranch}]`);
  if (!isValidRefName(`refs/heads/${head.branch}`)) throw invalid(`head branch does not exist [name: ${head.branch}]`);
  const baseGit = ctx.git.open(base);
  const headGit = ctx.git.open(head.repo);
  const [baseSha, headSha] = await Promise.all([baseGit.branchHead(input.baseBranch), headGit.branchHead(head.branch)]);
  if (!baseSha) throw invalid(`base branch does not exist [name: ${input.baseBranch}]`);
  if (!headSha) throw invalid(`head branch does not exist [name: ${head.branch}]`);
  // One creation per base repository at a time, so two requests for the same branches cannot both pass the check.
  await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`pull_request:${base.id}`]);
  const existing = await findUnmergedPull(tx, head.repo.id, head.branch, base.id, input.baseBranch);
  if (existing) {
    throw conflict(
      `pull request already exists for these targets [id: ${existing.id}, issue_id: ${existing.issue_id}, head_repo_id: ${existing.head_repo_id}, ` +
      `base_repo_id: ${existing.base_repo_id}, head_branch: ${existing.head_branch}, base_branch: ${existing.base_branch}]`,
    );
  }
  const issue = await createIssue(tx, base, doer, {
    title: input.title, body: input.body, deadline: input.deadline ?? null, milestoneId: input.milestoneId ?? null,
    labels: input.labels, assignees: input.assignees, isPull: true,
  });
  const ref = pullHeadRef(issue.index);
  const before = await baseGit.objects.refTarget(ref);
  tx.onRollback(async () => {
    if (before) await baseGit.updateRef(ref, before, null).catch(() => undefined);
    else await baseGit.deleteRef(ref);
  });
  await fetchCommitAs(baseGit, headGit, headSha, ref);
  const found = await testMergeability(baseGit, baseSha, headSha);
  if (found.commitsAhead === 0) throw invalid(`There are no commits between ${input.baseBranch} and ${head.branch}`);
  const [pull] = await tx.query<PullRow>(
    `INSERT INTO pull_request (issue_id, index, head_repo_id, base_repo_id, head_branch, base_branch, allow_maintainer_edit)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
    [issue.id, issue.index, head.repo.id, base.id, head.branch, input.baseBranch, base.default_allow_maintainer_edit],
  );
  return { issue, pull: await storeMergeability(tx, pull.id, headSha, found) };
}

/** The head commit of a pull request now: its head branch if it still exists, else the kept `refs/pull/N/head`. */
export async function currentHeadSha(git: GitStore, base: RepoRow, headRepo: RepoRow | null, pull: PullRow): Promise<string | null> {
  if (headRepo && !pull.has_merged) {
    const sha = await git.open(headRepo).branchHead(pull.head_branch);
    if (sha) return sha;
  }
  return git.open(base).objects.refTarget(pullHeadRef(pull.index));
}

/**
 * Brings a pull request up to date with its branches (a push to either, a new base): the head kept under
 * `refs/pull/N/head`, mergeability tested again. A merged pull request, or one whose base is gone, stays as it is.
 * Answers whether the head commit moved.
 */
export async function refreshPull(tx: Tx, git: GitStore, pull: PullRow): Promise<{ pull: PullRow; headMoved: boolean }> {
  const row = await lockPull(tx, pull);
  if (row.has_merged) return { pull: row, headMoved: false };
  const [base] = await tx.query<RepoRow>('SELECT * FROM repository WHERE id = $1', [row.base_repo_id]);
  if (!base) return { pull: row, headMoved: false };
  const headRepo = await findHeadRepo(tx, base, row);
  const baseGit = git.open(base);
  const baseSha = await baseGit.branchHead(row.base_branch);
  const headSha = headRepo ? await git.open(headRepo).branchHead(row.head_branch) : null;
  if (!baseSha || !headSha) return { pull: row, headMoved: false };
  const headMoved = headSha !== row.head_commit_id;
  if (headMoved) await fetchCommitAs(baseGit, git.open(headRepo!), headSha, pullHeadRef(row.index));
  const found = await testMergeability(baseGit, baseSha, headSha);
  return { pull: await storeMergeability(tx, row.id, headSha, found), headMoved };
}
