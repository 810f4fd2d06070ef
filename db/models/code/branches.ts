import type { Queryable, Tx } from '../../data-source.js';
import { conflict, forbidden, isUniqueViolation, notFound } from '../../errors.js';
import type { HeadCommit } from '../../git/commit-fields.js';
import { zeroOid } from '../../git/objects.js';
import type { GitRepo } from '../../git/repo.js';
import type { GitStore } from '../../git/store.js';
import { effectiveProtection, listProtections } from './branch-protection.js';
import { branchHeadColumns, headOfRow, insertBranchRow, type BranchHeadColumns } from './branch-rows.js';
import type { RepoPreload } from '../access.js';
import { recordRefUpdates } from './ref-updates.js';
import { assertValidBranchName } from '../repos/repos.js';
import type { RepoRow } from '../repos/repo-row.js';
import type { UserRow } from '../users/user-row.js';
import { usernamesByEmailJson } from '../users/emails.js';

/** A row of the `branch` table: the database's copy of one branch head, kept in step by ref updates. */
export interface BranchRow extends BranchHeadColumns {
  id: number;
  repo_id: number;
  commit_message: string;
  commit_time: Date;
  pusher_id: number | null;
  created: Date;
  updated: Date;
}

/** A branch of a list page: the head its row records (null until the row carries it) and the users of its addresses. */
export interface ListedBranch {
  name: string;
  head: HeadCommit | null;
  /** Site users by commit address (usernamesByEmailJson), '' for none. */
  authorUsername: string;
  committerUsername: string;
}

export interface BranchPage {
  branches: ListedBranch[];
  /** How many rows the repository has. */
  total: number;
  /** Whether the repository has protection rules at all. */
  protectedAny: boolean;
}

/** The head columns of a row, in branchHeadColumns's order (arrays: PostgreSQL builds them for less than objects). */
type BranchHeadTuple = [string, string, string | null, string | null, string | null, string | null, string | null, string | null, string | null];

/** What branchPageSql answers, as PostgreSQL's JSON has it. */
interface BranchPageJson {
  total: number;
  protected_any: boolean;
  rows: BranchHeadTuple[];
  /** Site users' names by commit address (as the rows have it), for the addresses of the page that have one. */
  usernames: Record<string, string> | null;
}

/**
 * One page of the repository `r` (an outer row), newest commit first (Gitea's order), as one JSON value: its rows with
 * their heads, the users of their commit addresses (each address looked up once), the number of rows and whether any
 * protection rule exists. $1 and $2 are the page's limit and offset.
 */
const branchPageSql = `(WITH page AS (
    SELECT ${branchHeadColumns}, commit_time FROM branch WHERE repo_id = r.id ORDER BY commit_time DESC, name LIMIT $1 OFFSET $2)
  SELECT json_build_object(
    'total', (SELECT count(*) FROM branch WHERE repo_id = r.id),
    'protected_any', EXISTS (SELECT 1 FROM protected_branch WHERE repo_id = r.id),
    'rows', (SELECT COALESCE(json_agg(json_build_array(${branchHeadColumns}) ORDER BY commit_time DESC, name), '[]') FROM page),
    'usernames', (${usernamesByEmailJson('(SELECT author_email AS email FROM page UNION SELECT committer_email FROM page)')})))`;

function branchPageOf(json: unknown): BranchPage {
  const { total, protected_any: protectedAny, rows, usernames } = json as BranchPageJson;
  const username = (email: string | null): string => (email !== null && usernames && Object.hasOwn(usernames, email) ? usernames[email] : '');
  return {
    branches: rows.map(([name, commit_id, author_name, author_email, author_date, committer_name, committer_email, committer_date, message]) => ({
      name,
      head: headOfRow({ name, commit_id, author_name, author_email, author_date, committer_name, committer_email, committer_date, message }),
      authorUsername: username(author_email),
      committerUsername: username(committer_email),
    })),
    total,
    protectedAny,
  };
}

/** The branch page as a preload of the repository guard: one round trip for the repository and its page. */
export function branchPagePreload(page: { limit: number; offset: number }): RepoPreload<BranchPage> {
  return { sql: branchPageSql, values: [page.limit, page.offset], read: branchPageOf };
}

const listBranchPageSql = `SELECT ${branchPageSql} AS page FROM (SELECT $3::bigint AS id) r`;

/** One page of branches on its own (when the guard did not preload it): see branchPageSql. */
export async function listBranchPage(db: Queryable, repoId: number, page: { limit: number; offset: number }): Promise<BranchPage> {
  const [row] = await db.query<{ page: unknown }>(listBranchPageSql, [page.limit, page.offset, repoId]);
  return branchPageOf(row.page);
}

// ---------------------------------------------------------------- branches made and removed through the API

/** Gitea's repository checks before a branch is written (the route refuses an archived one): empty 404, mirror 403. */
export function assertBranchesWritable(repo: RepoRow): void {
  if (repo.is_empty) throw notFound(undefined, 'Git Repository is empty.');
  if (repo.is_mirror) throw forbidden('Git Repository is a mirror.');
}

/** Refs that stop `name` from becoming a branch: itself, a tag of that name, or a branch above or below it. */
async function assertBranchNameFree(repoGit: GitRepo, name: string): Promise<void> {
  const parts = name.split('/');
  const ancestors = parts.slice(0, -1).map((_, i) => `refs/heads/${parts.slice(0, i + 1).join('/')}`);
  const refs = await repoGit.listRefNames([`refs/heads/${name}`, `refs/tags/${name}`, ...ancestors]);
  if (refs.includes(`refs/heads/${name}`)) throw conflict('The branch already exists.');
  if (refs.includes(`refs/tags/${name}`)) throw conflict('The branch with the same tag already exists.');
  if (refs.some((ref) => ref.startsWith(`refs/heads/${name}/`) || ancestors.includes(ref))) {
    throw conflict('The branch with the same name already exists.');
  }
}

/**
 * Writes the ref and the row together (the row at once, so the branch lists straight away; the sync leaves a row
 * at the same commit alone) and records the ref update: its sync emits the push event, counting the commits as a
 * git push of the branch counts them. If the transaction does not commit, the ref is removed again.
 */
export async function createBranch(tx: Tx, git: GitStore, repo: RepoRow, doer: UserRow, name: string, commit: string): Promise<void> {
  assertValidBranchName(name);
  const repoGit = git.open(repo);
  await assertBranchNameFree(repoGit, name);
  const head = await repoGit.readCommitAsHead(name, commit);
  try {
    await insertBranchRow(tx, repo.id, doer.id, head);
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('The branch already exists.');
    throw error;
  }
  const ref = `refs/heads/${name}`;
  if (!(await repoGit.updateRef(ref, commit, null))) throw conflict('The branch already exists.');
  tx.onRollback(async () => {
    await repoGit.deleteRef(ref, commit);
  });
  await recordRefUpdates(tx, repoGit, repo, doer, [{ ref, oldSha: zeroOid(repoGit.format), newSha: commit }]);
}


/**
 * Deletes a branch through the API: never the default branch, never a protected one (403, as in Gitea).
 * The ref goes after the row, and the update is recorded as a push's would be; if the transaction does not
 * commit, the ref is put back.
 */
export async function deleteBranch(tx: Tx, git: GitStore, repo: RepoRow, doer: UserRow, name: string): Promise<void> {
  if (name === repo.default_branch) throw forbidden('can not delete default branch');
  if (effectiveProtection(await listProtections(tx, repo.id), name)) throw forbidden('branch protected');
  const repoGit = git.open(repo);
  const [head] = await repoGit.readHeads([name]);
  if (!head) throw notFound(`branch ${name} does not exist`);
  await tx.query('DELETE FROM branch WHERE repo_id = $1 AND name = $2', [repo.id, name]);
  const ref = `refs/heads/${name}`;
  if (!(await repoGit.deleteRef(ref, head.sha))) throw conflict(`branch ${name} changed while it was being deleted`);
  tx.onRollback(async () => {
    await repoGit.updateRef(ref, head.sha, null);
  });
  await recordRefUpdates(tx, repoGit, repo, doer, [{ ref, oldSha: head.sha, newSha: zeroOid(repoGit.format) }]);
}

