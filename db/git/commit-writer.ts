import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gitOk, runGit } from './run.js';
import { zeroOid, type ObjectFormat } from './objects.js';

export interface GitIdentity {
  name: string;
  email: string;
  date: Date;
}

/** Writes a blob into the object database and answers its id. */
export async function hashObject(dir: string, content: Buffer): Promise<string> {
  return gitOk(['hash-object', '-w', '--stdin'], { cwd: dir, input: content });
}

/**
 * An index file of our own (GIT_INDEX_FILE), seeded from a commit's tree, that edits and patches are applied to
 * without a work tree; `writeTree` turns it into a tree object. Always `dispose` it.
 */
export class TemporaryIndex {
  private constructor(
    readonly dir: string,
    readonly file: string,
  ) {}

  static async open(dir: string, tree: string | null): Promise<TemporaryIndex> {
    const index = new TemporaryIndex(dir, path.join(os.tmpdir(), `hearth-index-${randomBytes(8).toString('hex')}`));
    if (tree) await gitOk(['read-tree', tree], { cwd: dir, env: index.env });
    return index;
  }

  get env(): Record<string, string> {
    return { GIT_INDEX_FILE: this.file };
  }

  /** Adds, replaces (mode and blob id) or, with a null id, removes paths; one process for all of them. */
  async apply(edits: Array<{ path: string; mode: string; oid: string | null }>, format: ObjectFormat): Promise<void> {
    if (edits.length === 0) return;
    const lines = edits.map((edit) => (edit.oid ? `${edit.mode} ${edit.oid}\t${edit.path}` : `0 ${zeroOid(format)}\t${edit.path}`));
    await gitOk(['update-index', '--add', '--remove', '-z', '--index-info'], {
      cwd: this.dir,
      env: this.env,
      input: lines.map((line) => `${line}\0`).join(''),
    });
  }

  /** Applies a unified diff to the index; answers git's complaint when it does not apply. */
  async applyPatch(patch: string): Promise<string | null> {
    const result = await runGit(['apply', '--cached', '--recount', '--ignore-whitespace', '--whitespace=fix', '--binary', '-'], {
      cwd: this.dir,
      env: this.env,
      input: patch,
    });
    return result.code === 0 ? null : result.stderr.trim() || 'the patch does not apply';
  }

  async writeTree(): Promise<string> {
    return gitOk(['write-tree'], { cwd: this.dir, env: this.env });
  }

  async dispose(): Promise<void> {
    await rm(this.file, { force: true });
    await rm(`${this.file}.lock`, { force: true });
  }
}

function gitDate(date: Date): string {
  return `${Math.floor(date.getTime() / 1000)} +0000`;
}

/** `git commit-tree`: the message is stored exactly as given. */
export async function commitTree(
  dir: string,
  tree: string,
  parents: string[],
  message: string,
  author: GitIdentity,
  committer: GitIdentity,
): Promise<string> {
  return gitOk(['commit-tree', tree, ...parents.flatMap((parent) => ['-p', parent])], {
    cwd: dir,
    input: message,
    env: {
      GIT_AUTHOR_NAME: author.name,
      GIT_AUTHOR_EMAIL: author.email,
      GIT_AUTHOR_DATE: gitDate(author.date),
      GIT_COMMITTER_NAME: committer.name,
      GIT_COMMITTER_EMAIL: committer.email,
      GIT_COMMITTER_DATE: gitDate(committer.date),
    },
  });
}

/**
 * Moves `ref` to `next` only if it still points at `expected` (null: only if it does not exist yet), so a
 * concurrent change is detected rather than overwritten. Answers false when the ref moved meanwhile.
 */
export async function compareAndSwapRef(
  dir: string,
  ref: string,
  next: string,
  expected: string | null,
  format: ObjectFormat,
): Promise<boolean> {
  const result = await runGit(['update-ref', ref, next, expected ?? zeroOid(format)], { cwd: dir });
  return result.code === 0;
}

/** Deletes `ref` only if it still points at `expected`. */
export async function deleteRefIf(dir: string, ref: string, expected: string): Promise<boolean> {
  const result = await runGit(['update-ref', '-d', ref, expected], { cwd: dir });
  return result.code === 0;
}

export async function readSymbolicHead(dir: string): Promise<string | null> {
  const result = await runGit(['symbolic-ref', '-q', 'HEAD'], { cwd: dir });
  return result.code === 0 ? result.stdout.toString('utf8').trim() : null;
}

export async function setSymbolicHead(dir: string, ref: string): Promise<void> {
  await gitOk(['symbolic-ref', 'HEAD', ref], { cwd: dir });
}
