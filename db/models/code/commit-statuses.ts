import { createHash } from 'node:crypto';
import type { Queryable, Tx } from '../../data-source.js';
import { selectPage } from '../../sql.js';
import { badRequest, notFound } from '../../errors.js';
import { emit } from '../../events/emit.js';
import type { GitStore } from '../../git/store.js';
import type { RepoRow } from '../repos/repo-row.js';
import type { UserRow } from '../users/user-row.js';

export const commitStatusStates = ['pending', 'success', 'error', 'failure', 'warning'] as const;
export type CommitStatusState = (typeof commitStatusStates)[number];

export const commitStatusSorts = ['oldest', 'recentupdate', 'leastupdate', 'leastindex', 'highestindex'] as const;
export type CommitStatusSort = (typeof commitStatusSorts)[number];

/** A row of the `commit_status` table. `index` counts the statuses of one commit of one repository from 1. */
export interface CommitStatusRow {
  id: number;
  index: number;
  repo_id: number;
  state: CommitStatusState;
  sha: string;
  target_url: string;
  description: string;
  context: string;
  context_hash: string;
  creator_id: number | null;
  created: Date;
  updated: Date;
}

/** CreateStatusOption. */
export interface NewCommitStatus {
  state: CommitStatusState;
  target_url?: string;
  description?: string;
  context?: string;
}

export interface StatusContext {
  git: GitStore;
}

/** Gitea's order, worst first: the combined state of a commit is the worst latest state of its contexts. */
const worstFirst: readonly CommitStatusState[] = ['error', 'failure', 'warning', 'pending', 'success'];

const orders: Record<CommitStatusSort | 'newest', string> = {
  newest: 'created DESC, id DESC',
  oldest: 'created ASC, id ASC',
  recentupdate: 'updated DESC, id DESC',
  leastupdate: 'updated ASC, id ASC',
  // Gitea's spelling, kept for compatibility: "leastindex" lists the highest index first, and the other way round.
  leastindex: 'index DESC',
  highestindex: 'index ASC',
};

function shaLength(repo: RepoRow): number {
  return repo.object_format_name === 'sha256' ? 64 : 40;
}

/** A branch, a tag or a (possibly abbreviated) commit id, resolved with git to the commit it names; null when it names none. */
export async function findCommitByRef(git: GitStore, repo: RepoRow, ref: string): Promise<string | null> {
  if (!ref || /[\x00-\x20\x7f]/.test(ref)) return null;
  const repoGit = git.open(repo);
  for (const candidate of [`refs/heads/${ref}`, `refs/tags/${ref}`]) {
    const sha = await repoGit.resolve(candidate);
    if (sha) return sha;
  }
  if (/^[0-9a-fA-F]{4,64}$/.test(ref)) return repoGit.resolve(ref.toLowerCase());
  return null;
}

export async function resolveCommitRef(git: GitStore, repo: RepoRow, ref: string): Promise<string> {
  const sha = await findCommitByRef(git, repo, ref);
  if (!sha) throw notFound(`ref ${ref} does not exist`);
  return sha;
}

/** The `sha` of /statuses/{sha}: a complete id is taken as it is; a branch, tag or short id is resolved; anything else is a 400. */
export async function resolveStatusSha(git: GitStore, repo: RepoRow, sha: string): Promise<string> {
  if (sha.length === shaLength(repo) && /^[0-9a-fA-F]+$/.test(sha)) return sha.toLowerCase();
  const resolved = await findCommitByRef(git, repo, sha);
  if (!resolved) throw badRequest(`${sha} is not a valid sha`);
  return resolved;
}

/**
 * Adds a status to a commit that exists in the repository, named as Gitea's GetCommit accepts it. The per-commit index is taken under a
 * transaction-scoped advisory lock, so concurrent reporters never get the same number.
 */
export async function createCommitStatus(
  tx: Tx,
  ctx: StatusContext,
  repo: RepoRow,
  creator: UserRow,
  rawSha: string,
  input: NewCommitStatus,
): Promise<CommitStatusRow> {
  // Gitea's GetCommit: a short id, a branch or a tag name; the status is kept under the complete id.
  const sha = await findCommitByRef(ctx.git, repo, rawSha);
  if (!sha) throw notFound(`commit ${rawSha} does not exist`);
  const context = (input.context ?? '').trim();
  await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`commit_status:${repo.id}:${sha}`]);
  const [{ next }] = await tx.query<{ next: number }>(
    'SELECT COALESCE(max(index), 0) + 1 AS next FROM commit_status WHERE repo_id = $1 AND sha = $2',
    [repo.id, sha],
  );
  const [row] = await tx.query<CommitStatusRow>(
    `INSERT INTO commit_status (index, repo_id, state, sha, target_url, description, context, context_hash, creator_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`,
    [
      next, repo.id, input.state, sha, (input.target_url ?? '').trim(), (input.description ?? '').trim(), context,
      createHash('sha1').update(context).digest('hex'), creator.id,
    ],
  );
  await emit(tx, {
    kind: 'commit_status.created',
    repoId: repo.id,
    doerId: creator.id,
    payload: { commit_status_id: row.id, sha, index: row.index, state: row.state, context },
  });
  return row;
}

export interface StatusFilter {
  sort?: CommitStatusSort;
  state?: CommitStatusState;
}

/** Every status of a commit, filtered and sorted as Gitea does, with the total the filter matches. */
export async function listCommitStatuses(
  db: Queryable,
  repoId: number,
  sha: string,
  filter: StatusFilter,
  page: { limit: number; offset: number },
): Promise<{ rows: CommitStatusRow[]; total: number }> {
  const params: unknown[] = [repoId, sha];
  let where = 'repo_id = $1 AND sha = $2';
  if (filter.state) where += ` AND state = $${params.push(filter.state)}`;
  return selectPage<CommitStatusRow>(db, { select: '*', from: `commit_status WHERE ${where}`, params, orderBy: orders[filter.sort ?? 'newest'], page });
}

/** The latest status of each context of a commit, newest first, with the number of contexts. */
export async function listLatestCommitStatuses(
  db: Queryable,
  repoId: number,
  sha: string,
  page: { limit: number; offset: number },
): Promise<{ rows: CommitStatusRow[]; total: number }> {
  const latest = 'SELECT max(index) AS index FROM commit_status WHERE repo_id = $1 AND sha = $2 GROUP BY context_hash';
  return selectPage<CommitStatusRow>(db, {
    select: 's.*', from: `commit_status s JOIN (${latest}) l ON l.index = s.index WHERE s.repo_id = $1 AND s.sha = $2`,
    params: [repoId, sha], orderBy: 's.index DESC', page,
  });
}

/** The worst of the given states; a commit without statuses is pending. */
export function combineStates(states: CommitStatusState[]): CommitStatusState {
  if (states.length === 0) return 'pending';
  return worstFirst.find((state) => states.includes(state))!;
}
