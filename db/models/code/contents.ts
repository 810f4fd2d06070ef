import path from 'node:path';
import type { Queryable, Tx } from '../../data-source.js';
import { badRequest, conflict, forbidden, invalid, notFound } from '../../errors.js';
import { isValidRefPattern, zeroOid, type CommitObject, type ObjectFormat } from '../../git/objects.js';
import type { GitReader, ListedEntry, PathEntry } from '../../git/read.js';
import type { GitIdentity, GitRepo } from '../../git/repo.js';
import type { GitStore } from '../../git/store.js';
import type { TemporaryIndex } from '../../git/temporary-index.js';
import { unitModeOf } from '../access.js';
import {
  assertNotArchived, canUserPush, effectiveProtection, filePatterns, listProtections, matchesFilePattern, whitelistedTeamIds,
} from './branch-protection.js';
import { recordRefUpdates } from './ref-updates.js';
import { assertValidBranchName } from '../repos/repos.js';
import type { AccessMode, RepoRow } from '../repos/repo-row.js';
import type { UserRow } from '../users/user-row.js';

// ---------------------------------------------------------------- reading contents

export type ContentType = 'file' | 'dir' | 'symlink' | 'submodule';
export type RefType = 'branch' | 'tag' | 'commit';

/** Where contents are read: the commit, and the ref as Gitea spells it in links. */
export interface ContentsRef {
  commit: CommitObject;
  /** The ref as asked (or the default branch): used in `url` and `_links.self`. */
  asked: string;
  /** The ref used in `html_url` and `download_url`: a short id is expanded to the full one. */
  ref: string;
  refType: RefType;
}

export interface ContentsItem {
  name: string;
  path: string;
  sha: string;
  lastCommitSha: string;
  type: ContentType;
  size: number;
  /** The bytes of a regular file, when its content is asked for. */
  content: Buffer | null;
  target: string | null;
  submoduleUrl: string | null;
}

/** Gitea's API.DefaultMaxBlobSize: larger files are described without their content. */
export const maxBlobContentSize = 10 * 1024 * 1024;

/**
 * Gitea's CleanUploadFileName: the path made relative and normalized; '' when it is unusable (a `.git`
 * component anywhere).
 */
export function cleanTreePath(name: string): string {
  const cleaned = path.posix.normalize(`/${name}`).replace(/^\/+|\/+$/g, '');
  if (cleaned === '.' || cleaned.split('/').some((part) => part.toLowerCase() === '.git')) return '';
  return cleaned;
}

/** The commit `asked` names (the default branch when empty), with Gitea's ref type for links; null when unknown. */
export async function resolveContentsRef(reader: GitReader, repo: RepoRow, asked: string): Promise<ContentsRef | null> {
  const wanted = asked || repo.default_branch;
  const commit = await reader.findCommit(wanted);
  if (!commit) return null;
  const ref = wanted.length >= 4 && commit.oid.startsWith(wanted) ? commit.oid : wanted;
  let refType: RefType = 'commit';
  if (await reader.tagTarget(ref)) refType = 'tag';
  else if (await reader.branchHead(ref)) refType = 'branch';
  return { commit, asked: wanted, ref: refType === 'commit' ? commit.oid : ref, refType };
}

function contentTypeOf(entry: { mode: string; type: string }): ContentType {
  if (entry.type === 'tree') return 'dir';
  if (entry.type === 'commit') return 'submodule';
  return entry.mode === '120000' ? 'symlink' : 'file';
}

async function submoduleUrl(reader: GitReader, commit: CommitObject, treePath: string): Promise<string | null> {
  const modules = await reader.entryAt(commit, '.gitmodules');
  const text = modules?.type === 'blob' ? (await reader.readBlob(modules.oid))?.toString('utf8') : undefined;
  if (!text) return null;
  let inSection = false;
  let url: string | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('[')) {
      if (inSection && url) break;
      inSection = false;
      url = null;
      continue;
    }
    const [key, ...rest] = line.split('=');
    const value = rest.join('=').trim();
    if (key.trim() === 'path' && value === treePath) inSection = true;
    if (key.trim() === 'url') url = value;
    if (inSection && url) return url;
  }
  return inSection ? url : null;
}

async function describe(
  reader: GitReader,
  at: ContentsRef,
  entry: PathEntry,
  size: number | null,
  lastCommitSha: string,
  withContent: boolean,
): Promise<ContentsItem> {
  const type = contentTypeOf(entry);
  const item: ContentsItem = {
    name: entry.name, path: entry.path, sha: entry.oid, lastCommitSha, type, size: size ?? 0,
    content: null, target: null, submoduleUrl: null,
  };
  if (type === 'file' && (withContent || size === null)) {
    const blob = await reader.readBlob(entry.oid);
    item.size = blob?.length ?? 0;
    if (withContent) item.content = blob && blob.length <= maxBlobContentSize ? blob : Buffer.alloc(0);
  } else if (type === 'symlink') {
    const blob = await reader.readBlob(entry.oid);
    item.size = blob?.length ?? 0;
    item.target = blob ? blob.subarray(0, 1024).toString('utf8') : '';
  } else if (type === 'submodule') {
    item.submoduleUrl = await submoduleUrl(reader, at.commit, entry.path);
  }
  return item;
}

/** One entry (a file with its content), or null when the path does not exist at that commit. */
export async function readContentsItem(reader: GitReader, at: ContentsRef, treePath: string): Promise<ContentsItem | null> {
  const cleaned = cleanTreePath(treePath);
  if (treePath && !cleaned) return null;
  const entry = await reader.entryAt(at.commit, cleaned);
  if (!entry) return null;
  const last = (await reader.lastCommitFor(at.commit.oid, cleaned)) ?? at.commit.oid;
  return describe(reader, at, entry, entry.type === 'tree' ? 0 : null, last, true);
}

/** Gitea's GetContentsOrList: a file (with content) as one item, a directory as the list of its entries. */
export async function readContentsOrList(
  reader: GitReader,
  at: ContentsRef,
  treePath: string,
): Promise<ContentsItem | ContentsItem[] | null> {
  const cleaned = cleanTreePath(treePath);
  if (treePath && !cleaned) return null;
  const entry = await reader.entryAt(at.commit, cleaned);
  if (!entry) return null;
  if (entry.type !== 'tree') return readContentsItem(reader, at, cleaned);
  const listed: ListedEntry[] = await reader.listTree(at.commit.oid, { path: cleaned });
  const lasts = await reader.lastCommitsFor(at.commit.oid, cleaned, listed.map((e) => e.name));
  return Promise.all(listed.map((e) => describe(reader, at, e, e.size, lasts.get(e.name) ?? at.commit.oid, false)));
}

// ---------------------------------------------------------------- writing contents

export interface IdentityInput {
  name?: string;
  email?: string;
}

/** The options every contents write shares (Gitea's FileOptions). */
export interface WriteOptions {
  branch?: string;
  new_branch?: string;
  message?: string;
  author?: IdentityInput;
  committer?: IdentityInput;
  dates?: { author?: string; committer?: string };
  signoff?: boolean;
}

export interface FileOperation {
  operation: 'create' | 'update' | 'delete';
  path: string;
  from_path?: string;
  content?: Buffer;
  sha?: string;
}

export interface ContentsContext {
  git: GitStore;
  config: { rootUrl: string };
}

export interface WrittenCommit {
  commitId: string;
  branch: string;
}

interface Placement {
  repoGit: GitRepo;
  format: ObjectFormat;
  oldBranch: string;
  newBranch: string;
  parent: CommitObject | null;
}

/** The git identity Gitea gives a user: full name (or login), and the no-reply address when the email is private. */
export function identityOf(user: UserRow, rootUrl: string): { name: string; email: string } {
  const email = user.keep_email_private ? `${user.lower_name}@noreply.${new URL(rootUrl).hostname}` : user.email;
  return { name: user.full_name || user.name, email };
}

/**
 * Gitea's GetAuthorAndCommitterUsers: a given identity with the doer's address keeps the doer's account (and
 * shows the real address); another address stands for itself; one given identity is used for both; none means
 * the doer.
 */
function authorAndCommitter(doer: UserRow, options: WriteOptions, rootUrl: string): { author: { name: string; email: string }; committer: { name: string; email: string } } {
  const pick = (given: IdentityInput | undefined): { name: string; email: string } | null => {
    if (!given?.email) return null;
    if (given.email.toLowerCase() === doer.email.toLowerCase()) return { name: given.name || doer.full_name || doer.name, email: doer.email };
    return { name: given.name || given.email.split('@')[0], email: given.email };
  };
  const committer = pick(options.committer);
  const author = pick(options.author) ?? committer ?? identityOf(doer, rootUrl);
  return { author, committer: committer ?? author };
}

function dateOf(text: string | undefined): Date {
  if (!text) return new Date();
  const date = new Date(text);
  if (Number.isNaN(date.getTime())) throw invalid(`invalid date: ${text}`);
  return date;
}

/** The commit message as Gitea writes it: trimmed, one newline, then the sign-off trailer when asked. */
function messageOf(options: WriteOptions, fallback: string, committer: { name: string; email: string }): string {
  const message = `${(options.message || fallback).trim()}\n`;
  return options.signoff ? `${message}\nSigned-off-by: ${committer.name} <${committer.email}>` : message;
}

/**
 * The branches of a write and the commit it builds on; errors as Gitea's ChangeRepoFiles raises them. Contents
 * writes to one repository take turns (a transaction-scoped advisory lock), so each builds on the last and the
 * branch row always ends on the newest commit; writers that bypass the lock are caught by the ref's compare-and-swap.
 */
async function placeWrite(tx: Tx, ctx: ContentsContext, repo: RepoRow, options: WriteOptions, allowEmpty: boolean): Promise<Placement> {
  assertNotArchived(repo);
  if (repo.is_mirror) throw forbidden('user should have a permission to write to this branch');
  await tx.query("SELECT pg_advisory_xact_lock(hashtextextended('hearth:contents:' || $1::text, 0))", [repo.id]);
  const repoGit = ctx.git.open(repo);
  const oldBranch = options.branch || repo.default_branch;
  const newBranch = options.new_branch || oldBranch;
  if (newBranch !== oldBranch) assertValidBranchName(newBranch);
  const head = isValidRefPattern(oldBranch) ? await repoGit.branchHead(oldBranch) : null;
  const parent = head ? await repoGit.objects.readCommit(head) : null;
  if (!parent && (!allowEmpty || (await repoGit.hasBranches()))) throw notFound(`branch does not exist [name: ${oldBranch}]`);
  if (newBranch !== oldBranch && (await repoGit.branchHead(newBranch))) throw invalid(`branch already exists [name: ${newBranch}]`);
  return { repoGit, format: repoGit.format, oldBranch, newBranch, parent };
}

/**
 * Gitea's VerifyBranchProtection for a write straight into `branch`: a caller the rule does not let push may
 * only touch files the rule leaves unprotected, and protected file patterns are never touched here.
 */
async function verifyBranchProtection(db: Queryable, repo: RepoRow, doer: UserRow, mode: AccessMode, branch: string, paths: string[]): Promise<void> {
  const rules = await listProtections(db, repo.id);
  const rule = effectiveProtection(rules, branch);
  if (!rule) return;
  const unprotected = filePatterns(rule.unprotected_file_patterns);
  const protectedFiles = filePatterns(rule.protected_file_patterns);
  const [codeMode, teamIds] = await Promise.all([unitModeOf(db, doer, repo, 'repo.code', mode), whitelistedTeamIds(db, doer, [rule])]);
  const mayPush = canUserPush(rule, doer, codeMode, teamIds);
  if (!mayPush && paths.length === 0) throw forbidden(`user cannot commit to repo [user: ${doer.lower_name}]`);
  for (const treePath of paths) {
    if (!mayPush && !matchesFilePattern(unprotected, treePath)) throw forbidden(`user cannot commit to repo [user: ${doer.lower_name}]`);
    if (matchesFilePattern(protectedFiles, treePath)) throw forbidden(`path is protected and can not be changed [path: ${treePath}]`);
  }
  if (rule.require_signed_commits) throw forbidden(`user cannot commit to repo [user: ${doer.lower_name}]`);
}

/**
 * Writes the commit whose tree `edit` prepares on the index, moves the branch with a compare-and-swap, and
 * records it: repository no longer empty, the branch row, and one `branch-sync` job, all in `tx`. If `tx` rolls
 * back, the branch (and HEAD) move back too.
 */
async function commitAndRecord(
  tx: Tx,
  ctx: ContentsContext,
  repo: RepoRow,
  doer: UserRow,
  mode: AccessMode,
  options: WriteOptions,
  place: Placement,
  paths: string[],
  fallbackMessage: string,
  edit: (index: TemporaryIndex) => Promise<void>,
): Promise<WrittenCommit> {
  if (place.newBranch === place.oldBranch) await verifyBranchProtection(tx, repo, doer, mode, place.oldBranch, paths);
  const { author, committer } = authorAndCommitter(doer, options, ctx.config.rootUrl);
  const authorAt: GitIdentity = { ...author, date: dateOf(options.dates?.author) };
  const committerAt: GitIdentity = { ...committer, date: dateOf(options.dates?.committer) };
  const { repoGit } = place;
  const index = await repoGit.openIndex(place.parent?.tree ?? null);
  let commitId: string;
  try {
    await edit(index);
    const tree = await index.writeTree();
    const parents = place.parent ? [place.parent.oid] : [];
    commitId = await repoGit.commitTree(tree, parents, messageOf(options, fallbackMessage, committer), authorAt, committerAt);
  } finally {
    await index.dispose();
  }
  const ref = `refs/heads/${place.newBranch}`;
  const expected = place.newBranch === place.oldBranch ? (place.parent?.oid ?? null) : null;
  if (!(await repoGit.updateRef(ref, commitId, expected))) {
    throw conflict(`branch ${place.newBranch} was changed by someone else meanwhile; try again`);
  }
  tx.onRollback(async () => {
    if (expected) await repoGit.updateRef(ref, expected, commitId);
    else await repoGit.deleteRef(ref, commitId);
  });

  if (!place.parent) {
    const head = await repoGit.readHeadBranch();
    if (head !== place.newBranch) {
      await repoGit.setHead(place.newBranch);
      if (head) tx.onRollback(() => repoGit.setHead(head));
    }
    await tx.query('UPDATE repository SET is_empty = false, default_branch = $2, updated = now() WHERE id = $1', [repo.id, place.newBranch]);
  } else if (repo.is_empty) {
    await tx.query('UPDATE repository SET is_empty = false, updated = now() WHERE id = $1', [repo.id]);
  }
  await recordRefUpdates(tx, repoGit, repo, doer, [{ ref, oldSha: expected ?? zeroOid(place.format), newSha: commitId }]);
  return { commitId, branch: place.newBranch };
}

/** Gitea's default message for a set of file operations ("Add a, b\nUpdate c\nDelete d"). */
export function defaultChangeMessage(files: Array<{ operation: string; path: string }>): string {
  const of = (op: string): string[] => files.filter((f) => f.operation === op).map((f) => f.path);
  const lines: string[] = [];
  if (of('create').length) lines.push(`Add ${of('create').join(', ')}`);
  if (of('update').length) lines.push(`Update ${of('update').join(', ')}`);
  if (of('delete').length) lines.push(`Delete ${of('delete').join(', ')}`);
  return lines.join('\n');
}

export interface ChangeFilesSettings {
  /** Gitea's DELETE /contents answers a wrong `sha` with 400; every other write with 422. */
  shaMismatchStatus?: 400 | 422;
}

/**
 * Gitea's ChangeRepoFiles: creates, updates (optionally moving) and deletes files in one commit on `branch`
 * (or on `new_branch`, created from it). Each file is checked against the commit it builds on: a create must
 * not replace anything, an update or delete needs the file (and, when given, its current blob `sha`).
 */
export async function changeRepoFiles(
  tx: Tx,
  ctx: ContentsContext,
  repo: RepoRow,
  doer: UserRow,
  mode: AccessMode,
  options: WriteOptions,
  files: FileOperation[],
  settings: ChangeFilesSettings = {},
): Promise<WrittenCommit & { paths: string[] }> {
  if (files.length === 0) throw invalid('[Files]: Required');
  const cleaned = files.map((file) => {
    const treePath = cleanTreePath(file.path);
    if (!treePath) throw invalid(`path contains a malformed path component [path: ${file.path}]`);
    const fromPath = file.from_path ? cleanTreePath(file.from_path) : treePath;
    if (!fromPath) throw invalid(`path contains a malformed path component [path: ${file.from_path}]`);
    return { ...file, treePath, fromPath };
  });
  const place = await placeWrite(tx, ctx, repo, options, !files.some((f) => f.operation === 'delete'));
  const existing = new Map<string, ListedEntry>();
  if (place.parent) for (const entry of await place.repoGit.listTree(place.parent.oid, { recursive: true })) existing.set(entry.path, entry);

  const modes = new Map<string, string>();
  for (const file of cleaned) {
    if (file.operation === 'update' || file.operation === 'delete') {
      const from = existing.get(file.fromPath);
      if (!from) throw notFound(`repository file does not exist [path: ${file.fromPath}]`);
      if (file.sha && file.sha !== from.oid) {
        const message = `sha does not match [given: ${file.sha}, expected: ${from.oid}]`;
        throw settings.shaMismatchStatus === 400 ? badRequest(message) : invalid(message);
      }
      if (file.operation === 'delete' && from.type === 'tree') throw notFound(`repository file does not exist [path: ${file.fromPath}]`);
      modes.set(file.treePath, from.mode === '100755' ? '100755' : '100644');
    }
    if (file.operation === 'create' || file.operation === 'update') {
      const parts = file.treePath.split('/');
      for (let i = 0; i < parts.length; i++) {
        const sub = parts.slice(0, i + 1).join('/');
        const entry = existing.get(sub);
        if (!entry) break;
        if (i < parts.length - 1) {
          if (entry.type !== 'tree') throw invalid(`a file exists where you’re trying to create a subdirectory [path: ${sub}]`);
        } else if (entry.mode === '120000') {
          throw invalid(`a symbolic link exists where you’re trying to create a subdirectory [path: ${sub}]`);
        } else if (entry.type === 'tree') {
          throw invalid(`a directory exists where you’re trying to create a file [path: ${sub}]`);
        } else if (file.fromPath !== file.treePath || file.operation === 'create') {
          throw invalid(`repository file already exists [path: ${file.treePath}]`);
        }
      }
    }
  }

  const written = await commitAndRecord(tx, ctx, repo, doer, mode, options, place, cleaned.map((f) => f.treePath), defaultChangeMessage(files), async (index) => {
    const edits: Array<{ path: string; mode: string; oid: string | null }> = [];
    for (const file of cleaned) {
      if (file.operation === 'delete') {
        edits.push({ path: file.treePath, mode: '0', oid: null });
        continue;
      }
      if (file.fromPath !== file.treePath && existing.has(file.fromPath)) edits.push({ path: file.fromPath, mode: '0', oid: null });
      const oid = await place.repoGit.hashObject(file.content ?? Buffer.alloc(0));
      edits.push({ path: file.treePath, mode: modes.get(file.treePath) ?? '100644', oid });
    }
    await index.apply(edits, place.format);
  });
  return { ...written, paths: cleaned.map((f) => f.treePath) };
}

/** Gitea's ApplyDiffPatch: a unified diff applied to `branch` (or a `new_branch`) as one commit. */
export async function applyDiffPatch(
  tx: Tx,
  ctx: ContentsContext,
  repo: RepoRow,
  doer: UserRow,
  mode: AccessMode,
  options: WriteOptions,
  patch: string,
): Promise<WrittenCommit> {
  if (!patch.trim()) throw invalid('[Content]: Required');
  const place = await placeWrite(tx, ctx, repo, options, false);
  const touched = [...patch.matchAll(/^(?:\+\+\+|---) (?:[ab]\/)?([^\t\n]+)/gm)].map((m) => m[1]).filter((p) => p !== '/dev/null');
  return commitAndRecord(tx, ctx, repo, doer, mode, options, place, [...new Set(touched)], 'apply-patch', async (index) => {
    const complaint = await index.applyPatch(patch.endsWith('\n') ? patch : `${patch}\n`);
    if (complaint) throw invalid(`the patch does not apply: ${complaint}`);
  });
}
