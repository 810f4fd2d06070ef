import type { Config } from '../../process/config.js';
import type { Queryable, Tx } from '../../data-source.js';
import { badRequest, conflict, forbidden, invalid, isUniqueViolation, notFound } from '../../errors.js';
import { emit } from '../../events/emit.js';
import { selectPage, updateRow, type PageWindow, type RowChanges } from '../../sql.js';
import type { BlobStore } from '../../blob-store.js';
import type { GitRepo, NewTreeEntry } from '../../git/repo.js';
import { wikiName, type GitStore } from '../../git/store.js';
import { grantedAccessCondition, readableReposCondition } from '../access.js';
import { syncAllBranches } from '../code/branch-rows.js';
import { createLabel } from '../orgs/labels.js';
import { combineGitignores, fillLicense, findLabelTemplate, findLicense, readmeNames, renderReadme } from './repo-templates-data/index.js';
import type { RepoRow } from './repo-row.js';
import { visibilities, type UserRow } from '../users/user-row.js';
import { watchRepository } from './watches.js';

const reservedRepoNames = new Set(['.', '..', '-']);
const reservedRepoSuffixes = ['.git', '.wiki', '.rss', '.atom'];
const validRepoName = /^[\w.-]+$/;
export const maxRepoNameLength = 100;

export function assertUsableRepoName(name: string): void {
  if (!name || name.length > maxRepoNameLength) throw invalid(`[Name]: repository name must be between 1 and ${maxRepoNameLength} characters`);
  const lower = name.toLowerCase();
  if (reservedRepoNames.has(lower)) throw invalid(`name is reserved [name: ${name}]`);
  const suffix = reservedRepoSuffixes.find((s) => lower.endsWith(s));
  if (suffix) throw invalid(`name pattern is not allowed [pattern: *${suffix}]`);
  if (!validRepoName.test(name)) throw invalid(`name is invalid [${name}]: must be valid alpha or numeric or dash(-_) or dot characters`);
}

/** A branch name git accepts (`git check-ref-format --branch` rules, checked without a process). */
export function assertValidBranchName(name: string): void {
  const bad =
    !name || name.length > 255 || name === '@' || name.startsWith('-') || name.startsWith('/') || name.endsWith('/') ||
    name.endsWith('.') || name.endsWith('.lock') || name.includes('..') || name.includes('//') || name.includes('@{') ||
    /[\x00-\x20\x7f~^:?*[\\]/.test(name) || name.split('/').some((part) => part.startsWith('.') || part.endsWith('.lock'));
  if (bad) throw invalid(`branch name is invalid: ${name}`);
}

export async function findRepo(db: Queryable, ownerName: string, repoName: string): Promise<RepoRow | null> {
  const [row] = await db.query<RepoRow>(
    `SELECT r.* FROM repository r JOIN "user" u ON u.id = r.owner_id WHERE u.lower_name = $1 AND r.lower_name = $2`,
    [ownerName.toLowerCase(), repoName.toLowerCase()],
  );
  return row ?? null;
}

export async function findRepoById(db: Queryable, id: number): Promise<RepoRow | null> {
  const [row] = await db.query<RepoRow>('SELECT * FROM repository WHERE id = $1', [id]);
  return row ?? null;
}

export function findReposByIds(db: Queryable, ids: number[]): Promise<RepoRow[]> {
  return db.query<RepoRow>('SELECT * FROM repository WHERE id = ANY($1::bigint[])', [ids]);
}

/** A renamed repository's old name still leads to it. */
export async function findRedirect(db: Queryable, ownerName: string, repoName: string): Promise<RepoRow | null> {
  const [row] = await db.query<RepoRow>(
    `SELECT r.* FROM repo_redirect rr JOIN "user" u ON u.id = rr.owner_id JOIN repository r ON r.id = rr.redirect_repo_id
     WHERE u.lower_name = $1 AND rr.lower_name = $2`,
    [ownerName.toLowerCase(), repoName.toLowerCase()],
  );
  return row ?? null;
}

/** The user's repositories the viewer may read, by name (Gitea's ListUserRepos). */
export async function listOwnedRepos(db: Queryable, owner: UserRow, viewer: UserRow | null, page: PageWindow): Promise<{ repos: RepoRow[]; total: number }> {
  const from = `repository r WHERE r.owner_id = $1 AND ${readableReposCondition('r', '$2')}`;
  const { rows, total } = await selectPage<RepoRow>(db, { select: 'r.*', from, params: [owner.id, viewer?.id ?? null], orderBy: 'r.lower_name', page });
  return { repos: rows, total };
}

/**
 * Gitea's ListMyRepos: the repositories `user` owns, those granted to them (collaboration, a team, an owners
 * team), and the public repositories of the private organizations they belong to.
 */
export async function listReposOfMember(db: Queryable, user: UserRow, page: PageWindow): Promise<{ repos: RepoRow[]; total: number }> {
  const from = `repository r WHERE (r.owner_id = $1 OR ${grantedAccessCondition('r', '$1')}
    OR (NOT r.is_private AND EXISTS (SELECT 1 FROM org_user m JOIN "user" o ON o.id = m.org_id
      WHERE m.uid = $1 AND m.org_id = r.owner_id AND o.visibility = ${visibilities.indexOf('private')})))`;
  const { rows, total } = await selectPage<RepoRow>(db, { select: 'r.*', from, params: [user.id], orderBy: 'r.lower_name', page });
  return { repos: rows, total };
}

export interface RepoLimits {
  maxCreationLimit: number;
}

/**
 * Gitea's CanCreateRepo, as the limit `owner` has reached (null while they may create more): administrators
 * never reach one; otherwise the per-user limit applies, or the global one when the user's is -1.
 */
export async function reachedRepoLimit(tx: Tx, owner: UserRow, limits: RepoLimits): Promise<number | null> {
  if (owner.is_admin) return null;
  const [{ num_repos }] = await tx.query<{ num_repos: number }>('SELECT num_repos FROM "user" WHERE id = $1 FOR UPDATE', [owner.id]);
  const limit = owner.max_repo_creation > -1 ? owner.max_repo_creation : limits.maxCreationLimit;
  return limit > -1 && num_repos >= limit ? limit : null;
}

export async function assertCanCreateRepo(tx: Tx, owner: UserRow, limits: RepoLimits): Promise<void> {
  const limit = await reachedRepoLimit(tx, owner, limits);
  if (limit !== null) throw forbidden(`cannot create repository: you have reached your limit of ${limit} repositories`);
}

export interface NewRepo {
  name: string;
  description?: string;
  private?: boolean;
  default_branch?: string;
  auto_init?: boolean;
  readme?: string;
  /** With auto_init: comma-separated .gitignore template names. */
  gitignores?: string;
  /** With auto_init: the license template written as LICENSE. */
  license?: string;
  /** The label template whose labels the repository starts with. */
  issue_labels?: string;
  template?: boolean;
  object_format_name?: 'sha1' | 'sha256';
  website?: string;
  original_url?: string;
  is_mirror?: boolean;
  fork_id?: number | null;
  template_id?: number | null;
}

export interface RepoContext {
  git: GitStore;
  blobs: BlobStore;
  config: Pick<Config, 'repository' | 'actions'>;
}

/**
 * Creates the row and the bare repository together: if anything fails, neither remains.
 * `limit: false` skips the creation limit (forks when ALLOW_FORK_WITHOUT_MAXIMUM_LIMIT is on); an administrator
 * doer is never limited (Gitea's `!doer.IsAdmin && !owner.CanCreateRepo()`). `adopt: true` takes over a
 * directory already on disk instead of creating one, and never removes it.
 */
export async function createRepository(
  tx: Tx,
  ctx: RepoContext,
  owner: UserRow,
  doer: UserRow,
  input: NewRepo,
  options: { limit?: boolean; adopt?: boolean } = {},
): Promise<RepoRow> {
  assertUsableRepoName(input.name);
  const defaultBranch = input.default_branch || 'main';
  assertValidBranchName(defaultBranch);
  const initFiles = input.auto_init && !options.adopt ? planInitialFiles(owner, input) : null;
  const labels = input.issue_labels ? findLabelTemplate(input.issue_labels) : null;
  if (input.issue_labels && !labels) throw invalid(`label template does not exist [name: ${input.issue_labels}]`);
  if (options.limit !== false && !doer.is_admin) {
    await assertCanCreateRepo(tx, owner, { maxCreationLimit: ctx.config.repository.maxCreationLimit });
  }
  let repo: RepoRow;
  try {
    [repo] = await tx.query<RepoRow>(
      `INSERT INTO repository (owner_id, owner_name, lower_name, name, description, website, original_url, default_branch,
         object_format_name, is_private, is_template, is_mirror, is_fork, fork_id, template_id, has_actions)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) RETURNING *`,
      [
        owner.id, owner.name, input.name.toLowerCase(), input.name, input.description ?? '', input.website ?? '',
        input.original_url ?? '', defaultBranch, input.object_format_name ?? 'sha1', input.private ?? false,
        input.template ?? false, input.is_mirror ?? false, input.fork_id != null, input.fork_id ?? null, input.template_id ?? null,
        // Gitea leaves the actions unit out of new repositories while actions are disabled
        ctx.config.actions.enabled,
      ],
    );
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('The repository with the same name already exists.');
    throw error;
  }
  if (options.adopt) {
    if (!ctx.git.exists(owner.name, repo.name)) throw notFound(`no repository files on disk for ${owner.name}/${repo.name}`);
  } else {
    if (ctx.git.exists(owner.name, repo.name)) throw conflict(`The repository files already exist on disk: ${owner.name}/${repo.name}`);
    tx.onRollback(() => ctx.git.remove(owner.name, repo.name));
    await ctx.git.init(owner.name, repo.name, defaultBranch, repo.object_format_name as 'sha1' | 'sha256');
  }
  for (const label of labels ?? []) await createLabel(tx, { repoId: repo.id }, label);
  if (initFiles) {
    const repoGit = ctx.git.open(repo);
    await initialCommit(repoGit, defaultBranch, doer, initFiles(repo));
    [repo] = await tx.query<RepoRow>('UPDATE repository SET is_empty = false WHERE id = $1 RETURNING *', [repo.id]);
    await syncAllBranches(tx, repoGit, repo.id, doer.id);
  }
  [repo] = await tx.query<RepoRow>('UPDATE repository SET size = $2 WHERE id = $1 RETURNING *', [repo.id, await ctx.git.open(repo).diskSize()]);
  await tx.query('UPDATE "user" SET num_repos = num_repos + 1 WHERE id = $1', [owner.id]);
  repo = await watchRepository(tx, doer, repo);
  await emit(tx, { kind: 'repository.created', repoId: repo.id, doerId: doer.id, payload: { owner_id: owner.id, owner: owner.name, name: repo.name } });
  return repo;
}

/**
 * What auto_init writes, checked before anything is created: the README template (an unknown one is Gitea's 400),
 * the .gitignore templates and the license (unknown ones are 422), as a function of the new row.
 */
function planInitialFiles(owner: UserRow, input: NewRepo): (repo: RepoRow) => Record<string, string> {
  const readme = input.readme || 'Default';
  if (!(readmeNames as readonly string[]).includes(readme)) {
    throw badRequest(`readme template does not exist, available templates: [${readmeNames.join(' ')}]`);
  }
  const gitignore = input.gitignores ? combineGitignores(input.gitignores) : null;
  if (gitignore && 'unknown' in gitignore) throw invalid(`gitignore template does not exist [name: ${gitignore.unknown}]`);
  const license = input.license || null;
  if (license && findLicense(license) === null) throw invalid(`license template does not exist [name: ${license}]`);
  return (repo) => {
    const files: Record<string, string> = { 'README.md': renderReadme(repo) };
    if (gitignore && 'text' in gitignore && gitignore.text) files['.gitignore'] = gitignore.text;
    if (license) {
      files.LICENSE = fillLicense(license, { owner: owner.name, repo: repo.name, year: String(new Date().getFullYear()) })!;
    }
    return files;
  };
}

/** Writes the initial files (README.md, .gitignore, LICENSE) as the first commit with git plumbing; no work tree is needed. */
async function initialCommit(repoGit: GitRepo, branch: string, doer: UserRow, files: Record<string, string>): Promise<string> {
  const entries: NewTreeEntry[] = [];
  for (const [name, text] of Object.entries(files)) entries.push({ mode: '100644', type: 'blob', oid: await repoGit.hashObject(text), name });
  const tree = await repoGit.makeTree(entries);
  const identity = { name: doer.full_name || doer.name, email: doer.email };
  const commit = await repoGit.commitTree(tree, [], 'Initial commit\n', identity, identity);
  if (!(await repoGit.updateRef(`refs/heads/${branch}`, commit, null))) throw new Error(`refs/heads/${branch} already exists in a new repository`);
  return commit;
}

/** Deletes the row (and everything hanging off it); the directory goes once the deletion is durable. */
export async function deleteRepository(tx: Tx, ctx: RepoContext, repo: RepoRow, doer: UserRow): Promise<void> {
  const attachments = await tx.query<{ uuid: string }>('SELECT uuid FROM attachment WHERE repo_id = $1', [repo.id]);
  const deleted = await tx.query('DELETE FROM repository WHERE id = $1 RETURNING id', [repo.id]);
  if (deleted.length === 0) throw notFound();
  await tx.query('UPDATE "user" SET num_repos = GREATEST(num_repos - 1, 0) WHERE id = $1', [repo.owner_id]);
  await tx.query('UPDATE repository SET num_forks = GREATEST(num_forks - 1, 0) WHERE id = $1', [repo.fork_id]);
  await emit(tx, { kind: 'repository.deleted', repoId: repo.id, doerId: doer.id, payload: { owner_id: repo.owner_id, owner: repo.owner_name, name: repo.name }, snapshot: { repository: repo } });
  tx.afterCommit(async () => {
    await ctx.git.remove(repo.owner_name, repo.name);
    await ctx.git.remove(repo.owner_name, wikiName(repo.name));
    for (const { uuid } of attachments) await ctx.blobs.delete(uuid);
  });
}

/** Renames in place; the old name keeps redirecting, and the directory moves with the row. */
export async function renameRepository(tx: Tx, ctx: RepoContext, repo: RepoRow, doer: UserRow, newName: string): Promise<RepoRow> {
  if (newName === repo.name) return repo;
  assertUsableRepoName(newName);
  let renamed: RepoRow;
  try {
    [renamed] = await tx.query<RepoRow>(
      'UPDATE repository SET name = $2, lower_name = $3, updated = now() WHERE id = $1 RETURNING *',
      [repo.id, newName, newName.toLowerCase()],
    );
  } catch (error) {
    if (isUniqueViolation(error)) throw invalid('The repository with the same name already exists.');
    throw error;
  }
  await tx.query('DELETE FROM repo_redirect WHERE owner_id = $1 AND lower_name = $2', [repo.owner_id, newName.toLowerCase()]);
  if (repo.lower_name !== newName.toLowerCase()) {
    await tx.query(
      `INSERT INTO repo_redirect (owner_id, lower_name, redirect_repo_id) VALUES ($1, $2, $3)
       ON CONFLICT (owner_id, lower_name) DO UPDATE SET redirect_repo_id = EXCLUDED.redirect_repo_id`,
      [repo.owner_id, repo.lower_name, repo.id],
    );
    await ctx.git.move(repo.owner_name, repo.name, repo.owner_name, newName);
    tx.onRollback(() => ctx.git.move(repo.owner_name, newName, repo.owner_name, repo.name));
    if (ctx.git.exists(repo.owner_name, wikiName(repo.name))) {
      await ctx.git.move(repo.owner_name, wikiName(repo.name), repo.owner_name, wikiName(newName));
      tx.onRollback(() => ctx.git.move(repo.owner_name, wikiName(newName), repo.owner_name, wikiName(repo.name)));
    }
  }
  await emit(tx, { kind: 'repository.renamed', repoId: repo.id, doerId: doer.id, payload: { previous: { name: repo.name }, name: newName } });
  return renamed;
}

export async function updateRepoColumns(tx: Tx, repo: RepoRow, sets: RowChanges<'repository'>): Promise<RepoRow> {
  if (Object.keys(sets).length === 0) return repo;
  const row = await updateRow<'repository', RepoRow>(tx, 'repository', repo.id, sets);
  if (!row) throw notFound();
  return row;
}
