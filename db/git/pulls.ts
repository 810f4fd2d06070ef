import type { Readable } from 'node:stream';
import { parseDiffRecords } from './diff-records.js';
import type { GitIdentity, GitRepo } from './repo.js';
import type { GitReader } from './read.js';
import { gitOk, runGit } from './run.js';
import { streamGit } from './stream.js';

/** The result of a three-way merge computed without a work tree (`git merge-tree --write-tree`). */
export interface MergedTree {
  /** The merged tree; with conflicts, the tree with conflict markers (never committed). */
  tree: string;
  /** Paths git could not merge, sorted, each once. */
  conflicts: string[];
}

/** A file a pull request changes, as Gitea's ChangedFile reports it. */
export interface ChangedPath {
  filename: string;
  previousFilename: string;
  status: 'added' | 'deleted' | 'modified' | 'renamed' | 'copied' | 'changed' | 'unchanged';
  additions: number;
  deletions: number;
  binary: boolean;
}

const rawStatus: Record<string, ChangedPath['status']> = { A: 'added', D: 'deleted', M: 'modified', R: 'renamed', C: 'copied', T: 'changed' };

/** `git merge-tree --write-tree ours theirs`: the merge of two commits (their merge base found by git), nothing written to refs. */
export async function mergeTree(repo: GitReader, ours: string, theirs: string): Promise<MergedTree> {
  const result = await runGit(['merge-tree', '--write-tree', '--name-only', '--no-messages', '-z', ours, theirs], { cwd: repo.dir });
  if (result.code !== 0 && result.code !== 1) throw new Error(`git merge-tree failed (${result.code}): ${result.stderr.trim()}`);
  const [tree, ...paths] = result.stdout.toString('utf8').split('\0');
  return { tree: tree.trim(), conflicts: result.code === 1 ? [...new Set(paths.filter(Boolean))].sort() : [] };
}

/**
 * Replays `commit` (against its first parent) on top of `onto`, as a cherry-pick, with plumbing only: a throwaway
 * commit with the tree of `onto` and the parent of `commit` makes that parent the merge base of `merge-tree`.
 */
export async function replayTree(repo: GitRepo, onto: string, commit: string, parent: string): Promise<MergedTree> {
  const ontoTree = await repo.resolve(onto, 'tree');
  const stand = await repo.commitTree(ontoTree!, [parent], 'replay\n', replayIdentity, replayIdentity);
  return mergeTree(repo, stand, commit);
}

const replayIdentity: GitIdentity = { name: 'replay', email: 'replay@localhost', date: new Date(Date.UTC(2000, 0, 1)) };

/** `git merge-base --is-ancestor`. */
export async function isAncestor(repo: GitReader, ancestor: string, descendant: string): Promise<boolean> {
  return (await runGit(['merge-base', '--is-ancestor', ancestor, descendant], { cwd: repo.dir })).code === 0;
}

/** Commits of `head` not in `base`, oldest first, first parents only when `firstParent` (what a rebase replays). */
export async function commitsToReplay(repo: GitReader, base: string, head: string): Promise<string[]> {
  const out = await gitOk(['rev-list', '--reverse', '--topo-order', '--no-merges', head, '--not', base], { cwd: repo.dir });
  return out ? out.split('\n') : [];
}

/**
 * Copies the commit `sha` (and what it reaches) from another repository into this one, under `ref` when one is
 * given (written whatever it held). A pull request from a fork keeps its head in the base repository this way.
 */
export async function fetchCommitAs(repo: GitRepo, source: GitReader, sha: string, ref: string | null): Promise<void> {
  if (source.dir !== repo.dir && !(await repo.objects.resolve(sha))) {
    await gitOk(['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', source.dir, sha], { cwd: repo.dir, timeoutMs: 10 * 60_000 });
  }
  if (ref) await gitOk(['update-ref', '--no-deref', ref, sha], { cwd: repo.dir });
}

/** Gitea's whitespace option of a diff (GetWhitespaceFlag): which whitespace changes do not count as changes. */
export type WhitespaceMode = 'show-all' | 'ignore-all' | 'ignore-change' | 'ignore-eol';

const whitespaceFlags: Record<Exclude<WhitespaceMode, 'show-all'>, string> = {
  'ignore-all': '-w', 'ignore-change': '-b', 'ignore-eol': '--ignore-space-at-eol',
};

/**
 * The files changed between two commits with their line counts (`git diff-tree -r --raw --numstat -M`, one process):
 * renames carry their previous name; binary files count no lines. Ignoring whitespace (git's `-w`, `-b`,
 * `--ignore-space-at-eol`) counts lines without those changes and leaves out the files that had no other.
 */
export function changedPaths(repo: GitReader, from: string, to: string, whitespace: WhitespaceMode = 'show-all'): Promise<ChangedPath[]> {
  // two commits always have the same diff: a pull request's counts, every page of its files and its protected files
  // come from one read, which requests asking at the same time share
  const key = `${repo.dir}\0${from}\0${to}\0${whitespace}`;
  const known = recentDiffs.get(key);
  const files = known ?? (whitespace === 'show-all' ? readChangedPaths(repo, from, to) : readIgnoringWhitespace(repo, from, to, whitespace));
  if (known) recentDiffs.delete(key);
  else files.catch(() => recentDiffs.get(key) === files && recentDiffs.delete(key));
  recentDiffs.set(key, files);
  if (recentDiffs.size > recentDiffLimit) recentDiffs.delete(recentDiffs.keys().next().value!);
  return files;
}

/** The last few diffs read (or being read), by repository, commits and whitespace mode, least recently used first. */
const recentDiffs = new Map<string, Promise<ChangedPath[]>>();
const recentDiffLimit = 16;

async function readChangedPaths(repo: GitReader, from: string, to: string): Promise<ChangedPath[]> {
  // the plumbing diff-tree answers what `git diff` does for two commits, without the porcelain's start-up (about 1 ms less)
  const out = await runGit(['diff-tree', '-r', '--raw', '--numstat', '-M', '-z', '--no-color', from, to], { cwd: repo.dir, timeoutMs: 10 * 60_000 });
  if (out.code !== 0) throw new Error(`git diff-tree failed (${out.code}): ${out.stderr.trim()}`);
  return (parseDiffRecords(out.stdout.toString('utf8')).get('') ?? []).map((record) => ({
    filename: record.path, previousFilename: record.fromPath, status: rawStatus[record.status] ?? 'changed',
    additions: record.additions, deletions: record.deletions, binary: record.binary,
  }));
}

/**
 * The whitespace-blind numstat (git keeps a file there only when something besides whitespace changed, or it was
 * renamed or its mode changed; the raw list ignores the flag) joined by path with the files as they are.
 */
async function readIgnoringWhitespace(repo: GitReader, from: string, to: string, whitespace: Exclude<WhitespaceMode, 'show-all'>): Promise<ChangedPath[]> {
  const [all, out] = await Promise.all([
    changedPaths(repo, from, to),
    runGit(['diff-tree', '-r', '--numstat', '-M', '-z', '--no-color', whitespaceFlags[whitespace], from, to], { cwd: repo.dir, timeoutMs: 10 * 60_000 }),
  ]);
  if (out.code !== 0) throw new Error(`git diff-tree failed (${out.code}): ${out.stderr.trim()}`);
  const counts = new Map((parseDiffRecords(out.stdout.toString('utf8')).get('') ?? []).map((record) => [record.path, record]));
  return all.flatMap((file) => {
    const counted = counts.get(file.filename);
    return counted ? [{ ...file, additions: counted.additions, deletions: counted.deletions }] : [];
  });
}

/** `git diff -M from to` (binary patches with `binary`) or `git format-patch` of the commits in between, streamed. */
export function rangeDiff(repo: GitReader, from: string, to: string, type: 'diff' | 'patch', binary = false): Readable {
  const args = type === 'diff'
    ? ['diff', '-M', ...(binary ? ['--binary'] : []), '--no-color', from, to]
    : ['format-patch', '--no-signature', ...(binary ? ['--binary'] : []), '--stdout', `${from}..${to}`];
  return streamGit(args, { cwd: repo.dir });
}

/** The tree of a commit. */
export async function treeOf(repo: GitRepo, commit: string): Promise<string> {
  const tree = await repo.resolve(commit, 'tree');
  if (!tree) throw new Error(`no tree for ${commit}`);
  return tree;
}

/**
 * Files changed and lines added and removed between two commits, as `git diff --shortstat -M` counts them, from the
 * same read as the pull request's files (so showing a pull request and listing its files read the diff once);
 * nothing changed when git cannot compare the two.
 */
export async function shortStat(repo: GitReader, from: string, to: string): Promise<{ files: number; additions: number; deletions: number }> {
  const files = await changedPaths(repo, from, to).catch(() => []);
  let additions = 0;
  let deletions = 0;
  for (const file of files) {
    additions += file.additions;
    deletions += file.deletions;
  }
  return { files: files.length, additions, deletions };
}
