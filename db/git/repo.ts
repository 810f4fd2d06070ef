import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { readCommitAsHead, readHeads, splitRecords, type CommitFieldsCache, type HeadCommit } from './commit-fields.js';
import { zeroOid, type EntryType, type ObjectFormat } from './objects.js';
import { GitReader } from './read.js';
import { fetchMirrorRefs, pushMirrorRefs, readMirrorRefs, readRemoteHeadBranch, type RemoteAccess } from './remote.js';
import { gitOk, runGit } from './run.js';
import { TemporaryIndex } from './temporary-index.js';

export interface GitIdentity {
  name: string;
  email: string;
  /** Absent: now, in the server's time zone, as git stamps it. */
  date?: Date;
  /** The zone of `date` in minutes east of UTC (a replayed commit keeps its author's); UTC when absent. */
  offset?: number;
}

/** A tag that names a commit (directly or through one annotated tag), as a tag release records it. */
export interface TagHead {
  tag: string;
  commit: string;
  /** The tag message's first line and the rest, for annotated tags. */
  title: string;
  note: string;
  created: string;
}

export interface NewTreeEntry {
  mode: string;
  type: EntryType;
  oid: string;
  name: string;
}

function gitDate(date: Date, offset = 0): string {
  const zone = `${offset < 0 ? '-' : '+'}${String(Math.floor(Math.abs(offset) / 60)).padStart(2, '0')}${String(Math.abs(offset) % 60).padStart(2, '0')}`;
  return `${Math.floor(date.getTime() / 1000)} ${zone}`;
}

/**
 * One bare repository, from `GitStore.open`: the read verbs of `GitReader`, branch heads read in-process with
 * commit fields from the store's cache, and the write verbs. Code outside db/git reaches git only through it.
 */
export class GitRepo extends GitReader {
  constructor(
    dir: string,
    format: ObjectFormat,
    private readonly commits?: CommitFieldsCache,
  ) {
    super(dir, format);
  }

  /** Bytes the repository takes on disk, every file under its directory counted, as Gitea's UpdateRepoSize measures it. */
  async diskSize(): Promise<number> {
    const entries = await readdir(this.dir, { recursive: true, withFileTypes: true });
    const sizes = await Promise.all(
      entries.filter((entry) => entry.isFile()).map((entry) => stat(path.join(entry.parentPath, entry.name)).then((s) => s.size, () => 0)),
    );
    return sizes.reduce((sum, size) => sum + size, 0);
  }

  // ---------------------------------------------------------------- refs, read

  /** Branch heads with their commits: all of them, or the named ones (missing names left out), sorted by name. */
  readHeads(names?: string[]): Promise<HeadCommit[]> {
    return readHeads(this.dir, (oids) => this.objects.readMany(oids), names, this.commits);
  }

  /** The commit as a would-be head of `branch`, with the fields a real head has. */
  readCommitAsHead(branch: string, commit: string): Promise<HeadCommit> {
    return readCommitAsHead(this.dir, (oids) => this.objects.readMany(oids), branch, commit, this.commits);
  }

  /** The named tags that point (directly or through one annotated tag) at a commit. */
  async readTagHeads(names: string[]): Promise<TagHead[]> {
    if (names.length === 0) return [];
    const fields = ['%(refname)', '%(objecttype)', '%(objectname)', '%(*objecttype)', '%(*objectname)', '%(contents)', '%(creatordate:iso-strict)'];
    const output = await runGit(['for-each-ref', `--format=${fields.join('%00')}%00`, '--', ...names.map((n) => `refs/tags/${n}`)], { cwd: this.dir });
    if (output.code !== 0) throw new Error(`git for-each-ref failed: ${output.stderr.trim()}`);
    const wanted = new Set(names);
    const tags: TagHead[] = [];
    for (const [ref, type, sha, peeledType, peeled, contents, created] of splitRecords(output.stdout, fields.length)) {
      const tag = ref.slice('refs/tags/'.length);
      if (!wanted.has(tag)) continue;
      const annotated = type === 'tag';
      const commit = annotated ? (peeledType === 'commit' ? peeled : '') : type === 'commit' ? sha : '';
      if (!commit) continue;
      const [title, ...rest] = annotated ? contents.replace(/\n+$/, '').split('\n') : [''];
      tags.push({ tag, commit, title, note: rest.join('\n').replace(/^\n+/, ''), created });
    }
    return tags;
  }

  /** Full names of the refs that match `patterns` (for-each-ref patterns: exact names or prefixes). */
  async listRefNames(patterns: string[]): Promise<string[]> {
    const result = await runGit(['for-each-ref', '--format=%(refname)', '--', ...patterns], { cwd: this.dir });
    return result.stdout.toString('utf8').split('\n').filter(Boolean);
  }

  /** The commit (or tree) a revision names, as `git rev-parse --verify` peels it, or null. */
  resolve(rev: string, peel: 'commit' | 'tree' = 'commit'): Promise<string | null> {
    return this.objects.resolvePeeled(rev, peel);
  }

  /** The branch HEAD names, or null when HEAD is detached or names no branch. */
  async readHeadBranch(): Promise<string | null> {
    const result = await runGit(['symbolic-ref', '-q', 'HEAD'], { cwd: this.dir });
    const ref = result.code === 0 ? result.stdout.toString('utf8').trim() : '';
    return ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : null;
  }

  /** `git check-ref-format`: the authority on what a ref may be called. */
  async checkRefFormat(ref: string): Promise<boolean> {
    return (await runGit(['check-ref-format', ref], { cwd: this.dir })).code === 0;
  }

  async isBare(): Promise<boolean> {
    const result = await runGit(['--git-dir', this.dir, 'rev-parse', '--is-bare-repository'], { cwd: this.dir });
    return result.code === 0 && result.stdout.toString('utf8').trim() === 'true';
  }

  // ---------------------------------------------------------------- refs, written

  /**
   * Moves `ref` to `newSha` only if it still points at `expectedOldSha` (null: only if it does not exist yet), so
   * a concurrent change is detected rather than overwritten. Answers false when the ref was not as expected.
   */
  async updateRef(ref: string, newSha: string, expectedOldSha: string | null): Promise<boolean> {
    const result = await runGit(['update-ref', '--no-deref', ref, newSha, expectedOldSha ?? zeroOid(this.format)], { cwd: this.dir });
    return result.code === 0;
  }

  /** Deletes `ref`, only if it still points at `expectedOldSha` when that is given. */
  async deleteRef(ref: string, expectedOldSha?: string): Promise<boolean> {
    const result = await runGit(['update-ref', '--no-deref', '-d', ref, ...(expectedOldSha ? [expectedOldSha] : [])], { cwd: this.dir });
    return result.code === 0;
  }

  /** Points HEAD at `branch`, which need not exist yet. */
  async setHead(branch: string): Promise<void> {
    await gitOk(['symbolic-ref', 'HEAD', `refs/heads/${branch}`], { cwd: this.dir });
  }

  // ---------------------------------------------------------------- objects, written

  /** Writes a blob into the object database and answers its id. */
  hashObject(content: Buffer | string): Promise<string> {
    return gitOk(['hash-object', '-w', '--stdin'], { cwd: this.dir, input: content });
  }

  /** `git mktree`: one tree from its entries. */
  makeTree(entries: NewTreeEntry[]): Promise<string> {
    return gitOk(['mktree'], { cwd: this.dir, input: entries.map((e) => `${e.mode} ${e.type} ${e.oid}\t${e.name}\n`).join('') });
  }

  /** `git mktag`: a tag object from its full text (headers, blank line, message), checked by git. */
  makeTag(text: string): Promise<string> {
    return gitOk(['mktag'], { cwd: this.dir, input: text });
  }

  /** `git commit-tree`: the message is stored exactly as given. */
  commitTree(tree: string, parents: string[], message: string, author: GitIdentity, committer: GitIdentity): Promise<string> {
    return gitOk(['commit-tree', tree, ...parents.flatMap((parent) => ['-p', parent])], {
      cwd: this.dir,
      input: message,
      env: {
        GIT_AUTHOR_NAME: author.name,
        GIT_AUTHOR_EMAIL: author.email,
        ...(author.date ? { GIT_AUTHOR_DATE: gitDate(author.date, author.offset) } : {}),
        GIT_COMMITTER_NAME: committer.name,
        GIT_COMMITTER_EMAIL: committer.email,
        ...(committer.date ? { GIT_COMMITTER_DATE: gitDate(committer.date, committer.offset) } : {}),
      },
    });
  }

  /** An index of our own, seeded from `tree`, to build the next tree on without a work tree. Always `dispose` it. */
  openIndex(tree: string | null): Promise<TemporaryIndex> {
    return TemporaryIndex.open(this.dir, tree);
  }

  /** Copies the named objects (and nothing they reach) from another repository in one pack. */
  async copyObjectsFrom(source: GitReader, oids: string[]): Promise<void> {
    const pack = await runGit(['pack-objects', '--stdout', '-q'], { cwd: source.dir, input: `${oids.join('\n')}\n`, timeoutMs: 10 * 60_000 });
    if (pack.code !== 0) throw new Error(`git pack-objects failed: ${pack.stderr.trim()}`);
    await gitOk(['index-pack', '--stdin'], { cwd: this.dir, input: pack.stdout, timeoutMs: 10 * 60_000 });
  }

  /** Copies every branch and tag of another repository here, with their history (a fork's first fill). */
  async fetchBranchesAndTags(source: GitReader, timeoutMs: number): Promise<void> {
    await gitOk(
      ['fetch', '--quiet', '--no-write-fetch-head', source.dir, '+refs/heads/*:refs/heads/*', '+refs/tags/*:refs/tags/*'],
      { cwd: this.dir, timeoutMs },
    );
  }

  // ---------------------------------------------------------------- mirrors

  /** Copies the remote's branches and tags here (pruning the ones it no longer has when `prune`), and its pull request heads with `pullHeads`. */
  fetchMirror(remote: RemoteAccess, prune: boolean, timeoutMs: number, pullHeads = false): Promise<void> {
    return fetchMirrorRefs(this.dir, remote, prune, timeoutMs, pullHeads);
  }

  /** Makes the remote's branches and tags those of this repository. */
  pushMirror(remote: RemoteAccess, timeoutMs: number): Promise<void> {
    return pushMirrorRefs(this.dir, remote, timeoutMs);
  }

  readRemoteHeadBranch(remote: RemoteAccess, timeoutMs: number): Promise<string | null> {
    return readRemoteHeadBranch(this.dir, remote, timeoutMs);
  }

  /** Branches and tags (full names) with the objects they point at. */
  readMirrorRefs(): Promise<Map<string, string>> {
    return readMirrorRefs(this.dir);
  }
}
