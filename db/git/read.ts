import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import git from 'isomorphic-git';
import { gitEnv, gitOk, runGit } from './run.js';
import { parseDiffRecords, type DiffRecord } from './diff-records.js';
import { streamGit } from './stream.js';
import {
  ObjectReader,
  parseTag,
  type CommitObject,
  type EntryType,
  type ObjectFormat,
  type ObjectType,
  type Signature,
  type TreeEntry,
} from './objects.js';

export const notesRef = 'refs/notes/commits';

export interface RefInfo {
  name: string;
  oid: string;
  type: ObjectType;
}

/** A tree entry found by its path from a commit's root. */
export interface PathEntry extends TreeEntry {
  path: string;
}

export interface ListedEntry extends PathEntry {
  size: number;
}

export interface FileChange {
  filename: string;
  status: 'added' | 'removed' | 'modified';
}

export interface CommitChanges {
  additions: number;
  deletions: number;
  files: FileChange[];
}

/** Which changes of commits to read: line counts, the files (both unless turned off). */
export interface ChangeDetail {
  stats?: boolean;
  files?: boolean;
}

const emptyChanges = (ids: string[]): Map<string, CommitChanges> => new Map(ids.map((id) => [id, { additions: 0, deletions: 0, files: [] }]));

/** A tag as Gitea lists it: lightweight tags take the commit's message and committer time. */
export interface TagInfo {
  name: string;
  /** The tag object for an annotated tag, else the commit. */
  id: string;
  /** The commit (or other object) the tag finally names. */
  target: string;
  message: string;
  when: Signature | null;
  annotated: boolean;
}

export interface NoteInfo {
  message: Buffer;
  /** The commit of the notes history that last changed this note. */
  commit: CommitObject;
}

export interface LogQuery {
  rev: string;
  not?: string;
  path?: string;
  skip?: number;
  max?: number;
}

/** Paths we look up are names, not patterns: `[`, `*` or a leading `:` mean themselves. */
const literal = { GIT_LITERAL_PATHSPECS: '1' };

const statusNames: Record<string, FileChange['status']> = { A: 'added', D: 'removed', M: 'modified', T: 'modified' };

/**
 * The files of a commit as `--no-renames` lists them, from records read with rename detection: a rename is its
 * source removed and its target added, in git's path order (bytes of the full path).
 */
function filesWithoutRenames(records: DiffRecord[]): FileChange[] {
  const listed: FileChange[] = [];
  let split = false;
  for (const record of records) {
    if (record.status === 'R' || record.status === 'C') {
      split = true;
      if (record.status === 'R') listed.push({ filename: record.fromPath, status: 'removed' });
      listed.push({ filename: record.path, status: 'added' });
    } else {
      listed.push({ filename: record.path, status: statusNames[record.status] ?? 'modified' });
    }
  }
  return split ? listed.sort((a, b) => Buffer.compare(Buffer.from(a.filename), Buffer.from(b.filename))) : listed;
}

/**
 * Reading one bare repository: refs, commits, trees, blobs, notes, logs and streams. Small reads go through
 * the in-process object reader; walks over history, diffs and archives through the git CLI.
 */
export class GitReader {
  readonly objects: ObjectReader;

  constructor(
    readonly dir: string,
    readonly format: ObjectFormat,
  ) {
    this.objects = new ObjectReader(dir, format);
  }

  /** False for a repository without a single branch: nothing was ever committed (or everything was deleted). */
  async hasBranches(): Promise<boolean> {
    const branches = await git.listBranches({ fs, gitdir: this.dir });
    return branches.length > 0;
  }

  async branchHead(name: string): Promise<string | null> {
    return this.objects.refTarget(`refs/heads/${name}`);
  }

  async tagTarget(name: string): Promise<string | null> {
    return this.objects.refTarget(`refs/tags/${name}`);
  }

  /** The commit `rev` names (branch, tag, full or short id), read in-process where it can be, or null. */
  async findCommit(rev: string): Promise<CommitObject | null> {
    const oid = await this.objects.resolve(rev);
    return oid ? this.objects.peelToCommit(oid) : null;
  }

  /** Every ref whose full name starts with `prefix`, sorted by name, with the type of the object it names. */
  async listRefs(prefix = ''): Promise<RefInfo[]> {
    const out = await gitOk(['for-each-ref', '--format=%(objectname) %(objecttype) %(refname)'], { cwd: this.dir });
    const refs: RefInfo[] = [];
    for (const line of out.split('\n')) {
      if (!line) continue;
      const [oid, type, ...name] = line.split(' ');
      const full = name.join(' ');
      if (full.startsWith(prefix)) refs.push({ name: full, oid, type: type as ObjectType });
    }
    return refs;
  }

  /** The entry at `path` in the commit's tree ('' is the root tree itself), or null. */
  async entryAt(commit: CommitObject, path: string): Promise<PathEntry | null> {
    let entry: PathEntry = { mode: '040000', type: 'tree', oid: commit.tree, name: '', path: '' };
    if (!path) return entry;
    const parts = path.split('/');
    for (let i = 0; i < parts.length; i++) {
      if (entry.type !== 'tree') return null;
      const entries = await this.objects.readTree(entry.oid);
      const found = entries?.find((candidate) => candidate.name === parts[i]);
      if (!found) return null;
      entry = { ...found, path: parts.slice(0, i + 1).join('/') };
    }
    return entry;
  }

  /** Entries of a tree with their sizes (`git ls-tree -l`); recursive lists sub-trees and their contents too. */
  async listTree(treeish: string, { recursive = false, path = '' } = {}): Promise<ListedEntry[]> {
    const args = ['ls-tree', '-l', '-z', ...(recursive ? ['-r', '-t'] : []), treeish];
    const out = await runGit(path ? [...args, '--', `${path}/`] : args, { cwd: this.dir, env: literal });
    if (out.code !== 0) throw new Error(`git ls-tree failed: ${out.stderr.trim()}`);
    const entries: ListedEntry[] = [];
    for (const record of out.stdout.toString('utf8').split('\0')) {
      if (!record) continue;
      const tab = record.indexOf('\t');
      const [mode, type, oid, size] = record.slice(0, tab).split(/ +/);
      const full = record.slice(tab + 1);
      entries.push({
        mode, type: type as EntryType, oid, path: full, name: full.slice(full.lastIndexOf('/') + 1),
        size: size === '-' ? 0 : Number(size),
      });
    }
    return entries;
  }

  /** An object's size in bytes (`git cat-file -s`), without reading it. */
  async sizeOf(oid: string): Promise<number> {
    const sized = await runGit(['cat-file', '-s', oid], { cwd: this.dir });
    return Number(sized.stdout.toString('utf8').trim());
  }

  async readBlob(oid: string): Promise<Buffer | null> {
    const found = await this.objects.read(oid);
    return found?.type === 'blob' ? found.data : null;
  }

  /** A blob's bytes as a stream, for files too large to hold in memory. */
  streamBlob(oid: string): Readable {
    return streamGit(['cat-file', 'blob', oid], { cwd: this.dir });
  }

  /** The last commit at or before `commitId` that touched `path`. */
  async lastCommitFor(commitId: string, path: string): Promise<string | null> {
    if (!path) return commitId;
    const out = await runGit(['log', '-1', '--format=%H', commitId, '--', path], { cwd: this.dir, env: literal });
    return out.code === 0 ? out.stdout.toString('utf8').trim() || null : null;
  }

  /**
   * For each direct child `name` of `dir`, the last commit that touched it: one history walk that stops once
   * every name is found.
   */
  async lastCommitsFor(commitId: string, dir: string, names: string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    if (names.length === 0) return found;
    const wanted = new Set(names);
    const prefix = dir ? `${dir}/` : '';
    const args = ['log', '--format=%x01%H', '--name-only', '-z', '--no-renames', commitId, ...(dir ? ['--', `${dir}/`] : [])];
    await new Promise<void>((resolve, reject) => {
      const child = spawn('git', args, { cwd: this.dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...gitEnv, ...literal }, stdio: ['ignore', 'pipe', 'ignore'] });
      let current = '';
      let rest = '';
      child.stdout.on('data', (chunk: Buffer) => {
        const tokens = (rest + chunk.toString('utf8')).split('\0');
        rest = tokens.pop() ?? '';
        for (const raw of tokens) {
          const token = raw.replace(/^\n/, '');
          const marker = token.indexOf('\u0001');
          if (marker !== -1) {
            current = token.slice(marker + 1).split('\n')[0];
            continue;
          }
          if (!token.startsWith(prefix)) continue;
          const name = token.slice(prefix.length).split('/')[0];
          if (wanted.has(name) && !found.has(name)) found.set(name, current);
        }
        if (found.size === wanted.size) child.kill();
      });
      child.on('error', reject);
      child.on('close', () => resolve());
    });
    return found;
  }

  /** Commit ids from `rev` backwards, newest first (`git rev-list`), optionally limited to a path. */
  async log({ rev, not, path, skip = 0, max }: LogQuery): Promise<string[]> {
    const args = ['rev-list', `--skip=${skip}`, ...(max !== undefined ? [`--max-count=${max}`] : []), rev, ...(not ? ['--not', not] : [])];
    const out = await gitOk(path ? [...args, '--', path] : args, { cwd: this.dir });
    return out ? out.split('\n') : [];
  }

  /** The commits `log` lists (no path), newest first, each with its whole message. */
  async logMessages({ rev, not, max }: LogQuery): Promise<Array<{ sha: string; message: string }>> {
    const args = ['log', '-z', '--format=%H%n%B', ...(max !== undefined ? [`--max-count=${max}`] : []), rev, ...(not ? ['--not', not] : []), '--'];
    const out = await runGit(args, { cwd: this.dir });
    if (out.code !== 0) throw new Error(`git log failed (${out.code}): ${out.stderr.trim()}`);
    return out.stdout.toString('utf8').split('\0').filter(Boolean).map((record) => {
      const newline = record.indexOf('\n');
      return { sha: record.slice(0, newline), message: record.slice(newline + 1) };
    });
  }

  async count({ rev, not, path }: LogQuery): Promise<number> {
    const args = ['rev-list', '--count', rev, ...(not ? ['--not', not] : [])];
    return Number(await gitOk(path ? [...args, '--', path] : args, { cwd: this.dir }));
  }

  async mergeBase(a: string, b: string): Promise<string | null> {
    const out = await runGit(['merge-base', a, b], { cwd: this.dir });
    return out.code === 0 ? out.stdout.toString('utf8').trim() : null;
  }

  /**
   * Line counts (with rename detection, as Gitea's diff) and affected files (without it, as Gitea's
   * GetCommitFileStatus) of each commit against its first parent; a root commit against the empty tree. One git
   * process for any number of commits.
   */
  async changesOf(ids: string[], detail: ChangeDetail = {}): Promise<Map<string, CommitChanges>> {
    if (ids.length === 0 || (detail.stats === false && detail.files === false)) return emptyChanges(ids);
    const changes = emptyChanges(ids);
    for (const [id, change] of (await this.readChanges(['show', ...ids], detail)).changes) if (changes.has(id)) changes.set(id, change);
    return changes;
  }

  /** A page of history as `log` walks it, with the changes of each commit as `changesOf` reads them: one git process. */
  async logWithChanges({ rev, not, skip = 0, max }: LogQuery, detail: ChangeDetail = {}): Promise<{ ids: string[]; changes: Map<string, CommitChanges> }> {
    return this.readChanges(['log', `--skip=${skip}`, ...(max !== undefined ? [`--max-count=${max}`] : []), rev, ...(not ? ['--not', not] : [])], detail);
  }

  /**
   * A page of history with each commit's changes (as `changesOf`) and the number of commits in the whole range: one git
   * process when the page ends the range; a page that is full, or empty past the start, also counts the range.
   */
  async historyPage(
    query: LogQuery & { skip: number; max: number }, detail: ChangeDetail = {},
  ): Promise<{ commits: CommitObject[]; changes: Map<string, CommitChanges>; total: number }> {
    // the pack the page's commits are read from is loaded while git walks
    const preloading = this.objects.preload(query.rev);
    const { ids, changes } = await this.logWithChanges(query, detail);
    await preloading;
    const ended = ids.length < query.max && (ids.length > 0 || query.skip === 0);
    const total = ended ? query.skip + ids.length : await this.count(query);
    return { commits: await this.objects.readCommits(ids), changes, total };
  }

  /** `git show|log` of commits with their raw and numstat records; a rename found for the counts is listed as the removal and addition it is without rename detection. */
  private async readChanges(command: string[], { stats = true, files = true }: ChangeDetail): Promise<{ ids: string[]; changes: Map<string, CommitChanges> }> {
    const what = stats ? ['--numstat', '-M', ...(files ? ['--raw'] : [])] : files ? ['--raw', '--no-renames'] : ['--no-patch'];
    const [verb, ...revs] = command;
    const out = await runGit([verb, '--diff-merges=first-parent', '--no-color', '--format=%x01%H', '-z', ...what, ...revs], { cwd: this.dir });
    if (out.code !== 0) throw new Error(`git ${verb} failed (${out.code}): ${out.stderr.trim()}`);
    const ids: string[] = [];
    const changes = new Map<string, CommitChanges>();
    for (const [id, records] of parseDiffRecords(out.stdout.toString('utf8'))) {
      if (!id) continue;
      ids.push(id);
      const change: CommitChanges = { additions: 0, deletions: 0, files: files ? filesWithoutRenames(records) : [] };
      for (const record of records) {
        change.additions += record.additions;
        change.deletions += record.deletions;
      }
      changes.set(id, change);
    }
    return { ids, changes };
  }

  /** The note git keeps for `commitId` under refs/notes/commits (any fan-out), or null. */
  async readNote(commitId: string): Promise<NoteInfo | null> {
    const notesHead = await this.objects.refTarget(notesRef);
    const notes = notesHead ? await this.objects.readCommit(notesHead) : null;
    if (!notes) return null;
    let tree = await this.objects.readTree(notes.tree);
    let rest = commitId;
    let path = '';
    while (tree && rest.length > 2) {
      const direct = tree.find((entry) => entry.name === rest && entry.type === 'blob');
      if (direct) {
        const message = await this.readBlob(direct.oid);
        const last = await this.lastCommitFor(notes.oid, path + rest);
        const commit = last ? await this.objects.readCommit(last) : null;
        return message && commit ? { message, commit } : null;
      }
      const sub = tree.find((entry) => entry.name === rest.slice(0, 2) && entry.type === 'tree');
      if (!sub) return null;
      path += `${rest.slice(0, 2)}/`;
      rest = rest.slice(2);
      tree = await this.objects.readTree(sub.oid);
    }
    return null;
  }

  /**
   * Tag names in Gitea's order (`--sort=-*creatordate`): annotated tags by the date of the commit they tag,
   * newest first, then lightweight tags by name.
   */
  async listTagNames(): Promise<string[]> {
    const out = await gitOk(['for-each-ref', '--sort=-*creatordate', '--format=%(refname:lstrip=2)', 'refs/tags'], { cwd: this.dir });
    return out ? out.split('\n') : [];
  }

  async tagInfo(name: string): Promise<TagInfo | null> {
    const oid = await this.tagTarget(name);
    if (!oid) return null;
    const found = await this.objects.read(oid);
    if (!found) return null;
    if (found.type === 'tag') {
      const tag = parseTag(oid, found.data);
      const target = await this.objects.peel(oid);
      return { name, id: oid, target: target?.oid ?? tag.object, message: tag.message, when: tag.tagger, annotated: true };
    }
    const commit = found.type === 'commit' ? await this.objects.readCommit(oid) : null;
    return { name, id: oid, target: oid, message: commit?.message ?? '', when: commit?.committer ?? null, annotated: false };
  }

  /** `git diff` (or `git show` for a root commit) or `git format-patch` of one commit, as Gitea sends them. */
  rawDiff(commit: CommitObject, type: 'diff' | 'patch'): Readable {
    const parent = commit.parents[0];
    const args =
      type === 'diff'
        ? parent ? ['diff', '-M', parent, commit.oid] : ['show', commit.oid]
        : parent ? ['format-patch', '--no-signature', '--stdout', `${commit.oid}...${parent}`] : ['format-patch', '--no-signature', '--stdout', '--root', commit.oid];
    return streamGit(args, { cwd: this.dir });
  }

  /** `git archive` of a commit, streamed. */
  archive(commitId: string, format: 'zip' | 'tar.gz', prefix: string): Readable {
    return streamGit(['archive', `--format=${format}`, `--prefix=${prefix}`, commitId], { cwd: this.dir });
  }
}
