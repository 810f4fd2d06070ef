import type { Queryable, Tx } from '../../data-source.js';
import type { HeadCommit } from '../../git/commit-fields.js';
import type { GitRepo } from '../../git/repo.js';

/**
 * The `branch` table is the database's copy of git's branch heads: one row per branch with its head commit as the
 * branch API shows it, so lists read no git. Every row is written here, from heads read from git.
 */

/** What `commit_message` keeps of a commit message: its first line (`message` keeps all of it). */
export const summaryOf = (message: string): string => message.split('\n', 1)[0].trim();

export async function countBranches(db: Queryable, repoId: number): Promise<number> {
  const [{ count }] = await db.query<{ count: number }>('SELECT count(*)::int AS count FROM branch WHERE repo_id = $1', [repoId]);
  return count;
}

/** The head columns of a branch row; NULL in rows written before the row carried its commit. */
export interface BranchHeadColumns {
  name: string;
  commit_id: string;
  author_name: string | null;
  author_email: string | null;
  author_date: string | null;
  committer_name: string | null;
  committer_email: string | null;
  committer_date: string | null;
  message: string | null;
}

export const branchHeadColumns = 'name, commit_id, author_name, author_email, author_date, committer_name, committer_email, committer_date, message';

/** The head a row records, or null for a row that does not carry its commit yet. */
export function headOfRow(row: BranchHeadColumns): HeadCommit | null {
  if (row.message === null) return null;
  return {
    branch: row.name, sha: row.commit_id, message: row.message,
    authorName: row.author_name ?? '', authorEmail: row.author_email ?? '', authorDate: row.author_date ?? '',
    committerName: row.committer_name ?? '', committerEmail: row.committer_email ?? '', committerDate: row.committer_date ?? '',
  };
}

/** Rows for `heads`: a new row, or (`refresh`) an existing one brought to its head unless it already records that commit. */
async function putBranchRows(tx: Tx, repoId: number, pusherId: number | null, heads: HeadCommit[], conflict: 'refresh' | 'refuse'): Promise<void> {
  if (heads.length === 0) return;
  const columns = ['commit_id', 'commit_message', 'commit_time', 'author_name', 'author_email', 'author_date', 'committer_name', 'committer_email', 'committer_date', 'message'];
  await tx.query(
    `INSERT INTO branch (repo_id, pusher_id, name, ${columns.join(', ')})
     SELECT $1, $2, h.* FROM unnest($3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[])
       AS h(name, ${columns.join(', ')})
     ${conflict === 'refuse' ? '' : `ON CONFLICT (repo_id, name) DO UPDATE SET ${columns.map((c) => `${c} = EXCLUDED.${c}`).join(', ')},
       pusher_id = EXCLUDED.pusher_id, updated = now()
     WHERE branch.commit_id <> EXCLUDED.commit_id OR branch.message IS NULL`}`,
    [
      repoId, pusherId, heads.map((h) => h.branch), heads.map((h) => h.sha), heads.map((h) => summaryOf(h.message)), heads.map((h) => h.committerDate),
      heads.map((h) => h.authorName), heads.map((h) => h.authorEmail), heads.map((h) => h.authorDate),
      heads.map((h) => h.committerName), heads.map((h) => h.committerEmail), heads.map((h) => h.committerDate), heads.map((h) => h.message),
    ],
  );
}

/** A row for a branch that has none; a unique violation when it has one. */
export function insertBranchRow(tx: Tx, repoId: number, pusherId: number | null, head: HeadCommit): Promise<void> {
  return putBranchRows(tx, repoId, pusherId, [head], 'refuse');
}

/** Inserts or refreshes branch rows from git heads; a row already at the same commit (with its commit recorded) is left alone. */
export function writeBranchRows(tx: Tx, repoId: number, pusherId: number | null, heads: HeadCommit[]): Promise<void> {
  return putBranchRows(tx, repoId, pusherId, heads, 'refresh');
}

/** Makes the branch table a copy of git's heads: every branch gets a row, rows of vanished branches go. */
export async function syncAllBranches(tx: Tx, repoGit: GitRepo, repoId: number, pusherId: number | null): Promise<number> {
  const heads = await repoGit.readHeads();
  await tx.query('DELETE FROM branch WHERE repo_id = $1 AND NOT (name = ANY($2::text[]))', [repoId, heads.map((h) => h.branch)]);
  await writeBranchRows(tx, repoId, pusherId, heads);
  return heads.length;
}

/**
 * The rows of the named branches as git has them now: refreshed, added, or removed when the branch is gone. A
 * repository without rows gets a row for every branch instead (made before branches were recorded, or never synced).
 */
export async function syncBranchRows(tx: Tx, repoGit: GitRepo, repoId: number, pusherId: number | null, names: string[]): Promise<void> {
  if ((await countBranches(tx, repoId)) === 0) {
    await syncAllBranches(tx, repoGit, repoId, pusherId);
    return;
  }
  if (names.length === 0) return;
  const heads = await repoGit.readHeads(names);
  const gone = names.filter((name) => !heads.some((h) => h.branch === name));
  if (gone.length > 0) await tx.query('DELETE FROM branch WHERE repo_id = $1 AND name = ANY($2::text[])', [repoId, gone]);
  await writeBranchRows(tx, repoId, pusherId, heads);
}
