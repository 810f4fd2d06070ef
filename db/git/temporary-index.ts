import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gitOk, runGit } from './run.js';
import { zeroOid, type ObjectFormat } from './objects.js';

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
