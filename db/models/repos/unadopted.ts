import { existsSync, statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { Queryable, Tx } from '../../data-source.js';
import { invalid, notFound } from '../../errors.js';
import type { GitStore } from '../../git/store.js';
import { syncAllBranches } from '../code/branch-rows.js';
import { syncAllTags } from '../code/push-sync.js';
import { assertUsableRepoName, createRepository, type RepoContext } from './repos.js';
import type { RepoRow } from './repo-row.js';
import { compileGlob } from '../../glob.js';
import type { UserRow } from '../users/user-row.js';

const isUsableRepoName = (name: string): boolean => {
  try {
    assertUsableRepoName(name);
    return true;
  } catch {
    return false;
  }
};

async function listSubdirectories(dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const entries = await readdir(dir, { withFileTypes: true });
  return entries.filter((e) => e.isDirectory()).map((e) => e.name).sort();
}

/**
 * Gitea's ListUnadoptedRepositories: `owner/name` for every `<owner>/<name>.git` directory under the git root whose
 * owner exists and that no repository row claims. `pattern` is `ownerglob[/repoglob]`.
 */
export async function listUnadopted(db: Queryable, git: GitStore, pattern: string): Promise<string[]> {
  const [ownerPattern, repoPattern] = pattern ? [pattern.split('/')[0], pattern.split('/').slice(1).join('/') || '*'] : ['*', '*'];
  const ownerGlob = compileGlob(ownerPattern);
  const repoGlob = compileGlob(repoPattern);
  if (!ownerGlob || !repoGlob) return [];
  const ownerDirs = (await listSubdirectories(git.root)).filter((name) => ownerGlob.test(name));
  if (ownerDirs.length === 0) return [];
  const owners = await db.query<{ id: number; lower_name: string }>('SELECT id, lower_name FROM "user" WHERE lower_name = ANY($1::text[])', [ownerDirs]);
  const ownerIds = new Map(owners.map((o) => [o.lower_name, o.id]));
  const found: string[] = [];
  for (const ownerDir of ownerDirs) {
    const ownerId = ownerIds.get(ownerDir);
    if (ownerId === undefined) continue;
    const names = (await listSubdirectories(path.join(git.root, ownerDir)))
      .filter((dir) => dir.endsWith('.git'))
      .map((dir) => dir.slice(0, -'.git'.length))
      .filter((name) => isUsableRepoName(name) && name === name.toLowerCase() && repoGlob.test(name));
    if (names.length === 0) continue;
    const claimed = await db.query<{ lower_name: string }>('SELECT lower_name FROM repository WHERE owner_id = $1 AND lower_name = ANY($2::text[])', [ownerId, names]);
    const taken = new Set(claimed.map((r) => r.lower_name));
    for (const name of names) if (!taken.has(name)) found.push(`${ownerDir}/${name}`);
  }
  return found;
}

/** The directory of an unadopted repository, or 404 when a row claims the name or no such directory exists. */
async function assertUnadoptedDirectory(db: Queryable, git: GitStore, owner: UserRow, name: string): Promise<void> {
  const claimed = await db.query('SELECT 1 FROM repository WHERE owner_id = $1 AND lower_name = $2', [owner.id, name.toLowerCase()]);
  const dir = git.pathOf(owner.name, name);
  if (claimed.length > 0 || !existsSync(dir) || !statSync(dir).isDirectory()) throw notFound(`no unadopted repository ${owner.name}/${name}`);
}

/**
 * Gitea's AdoptRepository: a private repository row for files already on disk, with branch rows for what git
 * has and a default branch that exists (HEAD's branch, else main, master or the first branch).
 */
export async function adoptRepository(tx: Tx, ctx: RepoContext, owner: UserRow, name: string, doer: UserRow): Promise<RepoRow> {
  await assertUnadoptedDirectory(tx, ctx.git, owner, name);
  const repoGit = ctx.git.open(owner.name, name);
  if (!(await repoGit.isBare())) throw invalid(`${owner.name}/${name} is not a bare git repository`);
  const head = await repoGit.readHeadBranch();
  const repo = await createRepository(tx, ctx, owner, doer, { name, private: true }, { adopt: true });
  await syncAllBranches(tx, repoGit, repo.id, null);
  await syncAllTags(tx, repoGit, repo.id, null);
  const branches = (await tx.query<{ name: string }>('SELECT name FROM branch WHERE repo_id = $1 ORDER BY name', [repo.id])).map((b) => b.name);
  const defaultBranch =
    [head, 'main', 'master'].find((b): b is string => b !== null && branches.includes(b)) ?? branches[0] ?? 'main';
  if (head !== defaultBranch) {
    await repoGit.setHead(defaultBranch);
    if (head) tx.onRollback(() => repoGit.setHead(head));
  }
  const [row] = await tx.query<RepoRow>('UPDATE repository SET default_branch = $2, is_empty = $3 WHERE id = $1 RETURNING *', [
    repo.id, defaultBranch, branches.length === 0,
  ]);
  return row;
}

/** Removes the files of an unadopted repository (there is no row to go with them). */
export async function deleteUnadopted(db: Queryable, git: GitStore, owner: UserRow, name: string): Promise<void> {
  await assertUnadoptedDirectory(db, git, owner, name);
  await git.remove(owner.name, name);
}
