import { inTx } from '../../../db/data-source.js';
import { accessModeOf } from '../../../db/models/access.js';
import { createBranch, type BranchRow } from '../../../db/models/code/branches.js';
import { changeRepoFiles, type WrittenCommit } from '../../../db/models/code/contents.js';
import type { RepoRow } from '../../../db/models/repos/repo-row.js';
import type { TestHearth } from '../hearth.js';
import { currentRepo, doerFor, userById, type Someone } from './current-rows.js';

export interface BranchOptions {
  /** `branch1`, `branch2`, … when not given. */
  name?: string;
  /** A branch, tag or commit id to start from; the default branch when not given. */
  from?: string;
  /** The repository's owner (or an owner of its organization) when not given. */
  by?: Someone;
}

let unnamedBranches = 0;

/** A branch (ref and row) of a repository that has commits. */
export async function branch(h: TestHearth, repo: RepoRow, options: BranchOptions = {}): Promise<BranchRow> {
  return inTx(h.deps, async (tx) => {
    const row = await currentRepo(tx, repo);
    const doer = await doerFor(tx, await userById(tx, row.owner_id), options.by);
    const from = options.from ?? `refs/heads/${row.default_branch}`;
    const commit = await h.deps.git.open(row).resolve(from);
    if (!commit) throw new Error(`${from} names no commit in ${row.owner_name}/${row.name}`);
    const name = options.name ?? `branch${++unnamedBranches}`;
    await createBranch(tx, h.deps.git, row, doer, name, commit);
    const [made] = await tx.query<BranchRow>('SELECT * FROM branch WHERE repo_id = $1 AND name = $2', [row.id, name]);
    return made;
  });
}

export interface CommitOptions {
  /** Path and content of each file the commit adds. */
  files: Record<string, string | Buffer>;
  /** The default branch when not given. */
  branch?: string;
  /** Commits onto a new branch started from `branch`. */
  newBranch?: string;
  /** Gitea's default ("Add a.txt, b.txt") when not given. */
  message?: string;
  /** The repository's owner (or an owner of its organization) when not given. */
  by?: Someone;
}

/** One commit adding files, written as the contents API writes one (the branch row and its sync job included). */
export async function commit(h: TestHearth, repo: RepoRow, options: CommitOptions): Promise<WrittenCommit> {
  return inTx(h.deps, async (tx) => {
    const row = await currentRepo(tx, repo);
    const doer = await doerFor(tx, await userById(tx, row.owner_id), options.by);
    const files = Object.entries(options.files).map(([path, content]) => ({ operation: 'create' as const, path, content: Buffer.from(content) }));
    const mode = await accessModeOf(tx, doer, row);
    return changeRepoFiles(tx, h.deps, row, doer, mode, { branch: options.branch, new_branch: options.newBranch, message: options.message }, files);
  });
}
