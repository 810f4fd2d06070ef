import type { Tx } from '../../data-source.js';
import { conflict, HttpError, invalid } from '../../errors.js';
import { emit } from '../../events/emit.js';
import { fetchCommitAs, isAncestor, mergeTree, replayTree, treeOf } from '../../git/pulls.js';
import type { GitIdentity, GitRepo } from '../../git/repo.js';
import type { GitStore } from '../../git/store.js';
import { deleteBranch } from '../code/branches.js';
import { recordRefUpdates } from '../code/ref-updates.js';
import { issueFacts } from '../issues/issue-facts.js';
import { setIssueClosed } from '../issues/issues.js';
import type { IssueRow } from '../issues/issue-row.js';
import { accessModeOf } from '../access.js';
import { accessModes, type RepoRow } from '../repos/repo-row.js';
import type { UserRow } from '../users/user-row.js';
import { findUsersByIds } from '../users/users.js';
import { serverIdentity, userIdentity } from './identities.js';
import { checkMergeAllowed, type MergeStyle } from './merge-checks.js';
import { pullHeadRef, pullStatus, type PullRow } from './pull-row.js';
import { squashIdentities, squashMessage } from './squash.js';
import { currentHeadSha, findHeadRepo, lockPullWithIssue } from './pulls.js';

/** MergePullRequestOption, as the merge takes it. */
export interface MergeOptions {
  style: MergeStyle;
  title?: string;
  message?: string;
  /** The head the caller saw: a different head now is a 409. */
  headCommitId?: string;
  /** For `manually-merged`: the commit on the base branch that merged the pull request. */
  mergeCommitId?: string;
  /** Absent: the repository's default_delete_branch_after_merge. */
  deleteBranchAfterMerge?: boolean;
  force?: boolean;
  /** A scheduled auto-merge run by the worker. */
  auto?: boolean;
}

/** What the merge needs besides the transaction: git, and the server's name for the committer identity. */
export interface MergeDeps {
  git: GitStore;
  config: { rootUrl: string; appName: string };
}

// ---- messages ----------------------------------------------------------------------------------------

/** Go's os.Expand: `$Name` and `${Name}` replaced by their value, unknown names by nothing. */
function expand(text: string, vars: Record<string, string>): string {
  return text.replace(/\$\{([^}]*)\}|\$([A-Za-z0-9_]+)/g, (_, braced: string | undefined, bare: string | undefined) => vars[braced ?? bare ?? ''] ?? '');
}

/**
 * Gitea's GetDefaultMergeMessage: the repository's `.gitea/default_merge_message/<STYLE>_TEMPLATE.md` on the default
 * branch (first line the title, the rest the description, Gitea's variables expanded), else the built-in title.
 * The poster is looked up only when there is a template to expand.
 */
export async function defaultMergeMessage(
  git: GitStore, base: RepoRow, headRepo: RepoRow | null, pull: PullRow, issue: IssueRow, posterOf: () => Promise<UserRow | null>, style: MergeStyle,
): Promise<{ title: string; body: string }> {
  const reader = git.open(base);
  const commit = await reader.findCommit(base.default_branch);
  const entry = commit ? await reader.entryAt(commit, `.gitea/default_merge_message/${style.toUpperCase()}_TEMPLATE.md`) : null;
  const template = entry?.type === 'blob' ? (await reader.readBlob(entry.oid))?.toString('utf8') : undefined;
  if (template !== undefined) {
    const vars: Record<string, string> = {
      BaseRepoOwnerName: base.owner_name, BaseRepoName: base.name, BaseBranch: pull.base_branch,
      HeadRepoOwnerName: headRepo?.owner_name ?? '', HeadRepoName: headRepo?.name ?? '', HeadBranch: pull.head_branch,
      PullRequestTitle: issue.title, PullRequestDescription: issue.content, PullRequestPosterName: (await posterOf())?.name ?? '',
      PullRequestIndex: String(pull.index), PullRequestReference: `#${pull.index}`, ClosingIssues: '',
    };
    const trimmed = template.trim();
    const newline = trimmed.indexOf('\n');
    const [title, body] = newline === -1 ? [trimmed, ''] : [trimmed.slice(0, newline), trimmed.slice(newline + 1).trim()];
    return { title: expand(title, vars), body: expand(body, vars) };
  }
  if (style === 'rebase') return { title: '', body: '' };
  if (style === 'squash') return { title: `${issue.title} (#${pull.index})`, body: '' };
  const from = pull.head_repo_id === base.id ? pull.head_branch : `${headRepo ? `${headRepo.owner_name}/${headRepo.name}` : '<deleted>'}:${pull.head_branch}`;
  return { title: `Merge pull request '${issue.title}' (#${pull.index}) from ${from} into ${pull.base_branch}`, body: '' };
}

// ---- the commits of each style -----------------------------------------------------------------------

/** A merge's conflict, as Gitea answers it (409). */
const mergeConflict = (files: string[]): HttpError => conflict(`Merge Conflict: ${files.join(', ')}`);

/**
 * Replays the head's commits (not merges) on top of `onto`, as `git rebase` does: authors and messages kept, the
 * server as committer, commits that become empty dropped. A head that already contains `onto` is kept as it is.
 */
export async function rebaseOnto(repoGit: GitRepo, onto: string, head: string, committer: GitIdentity): Promise<string> {
  if (await isAncestor(repoGit, onto, head)) return head;
  const ids = (await repoGit.log({ rev: head, not: onto })).reverse();
  const commits = await repoGit.objects.readCommits(ids);
  let tip = onto;
  for (const commit of commits) {
    if (commit.parents.length !== 1) continue;
    const replayed = await replayTree(repoGit, tip, commit.oid, commit.parents[0]);
    if (replayed.conflicts.length) throw conflict(`Rebase conflict at ${commit.oid}: ${replayed.conflicts.join(', ')}`);
    if (replayed.tree === (await treeOf(repoGit, tip))) continue;
    const author: GitIdentity = { name: commit.author.name, email: commit.author.email, date: new Date(commit.author.timestamp * 1000), offset: commit.author.offset };
    tip = await repoGit.commitTree(replayed.tree, [tip], commit.message, author, { ...committer, date: new Date() });
  }
  return tip;
}

/** The new tip of the base branch for a merge style (not manually-merged), written as objects only; the message is awaited when a commit needs it. */
async function mergeCommit(
  repoGit: GitRepo, style: Exclude<MergeStyle, 'manually-merged'>, baseSha: string, headSha: string, message: Promise<string>,
  author: GitIdentity, committer: GitIdentity,
): Promise<string> {
  switch (style) {
    case 'fast-forward-only':
      if (!(await isAncestor(repoGit, baseSha, headSha))) throw conflict('Fast-forward only merge is not possible: the base branch has diverged');
      return headSha;
    case 'rebase': {
      const tip = await rebaseOnto(repoGit, baseSha, headSha, committer);
      const text = await message;
      if (!text || tip === baseSha) return tip;
      // a template's message goes onto the last commit, as Gitea amends it
      const last = await repoGit.objects.readCommit(tip);
      return repoGit.commitTree(last!.tree, last!.parents, text, { name: last!.author.name, email: last!.author.email,
        date: new Date(last!.author.timestamp * 1000), offset: last!.author.offset }, committer);
    }
    case 'rebase-merge': {
      const tip = await rebaseOnto(repoGit, baseSha, headSha, committer);
      return repoGit.commitTree(await treeOf(repoGit, tip), [baseSha, tip], await message, author, committer);
    }
    case 'merge': {
      const merged = await mergeTree(repoGit, baseSha, headSha);
      if (merged.conflicts.length) throw mergeConflict(merged.conflicts);
      return repoGit.commitTree(merged.tree, [baseSha, headSha], await message, author, committer);
    }
    case 'squash': {
      const merged = await mergeTree(repoGit, baseSha, headSha);
      if (merged.conflicts.length) throw mergeConflict(merged.conflicts);
      return repoGit.commitTree(merged.tree, [baseSha], await message, author, committer);
    }
  }
}

// ---- the merge ---------------------------------------------------------------------------------------

/**
 * Gitea's Merge (and MergedManually): the checks of merge-checks.ts first (nothing is written when one refuses),
 * then the new base tip built with plumbing and the base branch moved only if it still is where the merge started
 * (`update-ref` with the old value, 409 otherwise). While the branch moves, the ref change is recorded as a push
 * (branch rows, push events, webhooks), the pull request marked merged, its issue closed, the head branch deleted
 * when asked, and `pull_request.merged` emitted — all in the caller's transaction; the ref goes back if it does not
 * commit. Three git processes for a merge or a squash: `merge-tree --write-tree`, `commit-tree`, `update-ref`.
 */
export async function mergePull(tx: Tx, deps: MergeDeps, base: RepoRow, pull: PullRow, doer: UserRow, options: MergeOptions): Promise<PullRow> {
  const { pull: row, issue } = await lockPullWithIssue(tx, pull);
  await checkMergeAllowed({
    tx, git: deps.git, base, pull: row, issue, doer, request: { style: options.style, force: options.force ?? false, auto: options.auto ?? false },
  });
  const repoGit = deps.git.open(base);
  const headRepo = await findHeadRepo(tx, base, row);

  let mergedCommit: string;
  let move: BranchMove | null = null;
  if (options.style === 'manually-merged') {
    const commit = options.mergeCommitId ? await repoGit.objects.resolve(options.mergeCommitId) : null;
    const baseSha = await repoGit.branchHead(row.base_branch);
    if (!commit || !baseSha || !(await isAncestor(repoGit, commit, baseSha))) throw invalid('Wrong commit ID');
    mergedCommit = commit;
  } else {
    const headSha = await currentHeadSha(deps.git, base, headRepo, row);
    const baseSha = await repoGit.branchHead(row.base_branch);
    if (!headSha || !baseSha) throw conflict('the head or base branch of the pull request no longer exists');
    if (options.headCommitId && options.headCommitId !== headSha) throw conflict('head out of date');
    if (headRepo && headRepo.id !== base.id) await fetchCommitAs(repoGit, deps.git.open(headRepo), headSha, pullHeadRef(row.index));
    const posterOf = async (): Promise<UserRow | null> => (await findUsersByIds(tx, [issue.poster_id])).get(issue.poster_id ?? 0) ?? null;
    // built (a template read from the default branch) while git merges; a merge refused first leaves it unread
    const message = mergeMessage(defaultMergeMessage(deps.git, base, headRepo, row, issue, posterOf, options.style), options);
    message.catch(() => undefined);
    if (options.style === 'squash') {
      const identities = await squashIdentities(tx, repoGit, baseSha, headSha, await posterOf(), doer, deps.config.rootUrl);
      const squashed = message.then((text) => squashMessage(text, identities));
      squashed.catch(() => undefined);
      mergedCommit = await mergeCommit(repoGit, options.style, baseSha, headSha, squashed, identities.author, identities.committer);
    } else {
      mergedCommit = await mergeCommit(repoGit, options.style, baseSha, headSha, message, userIdentity(doer, deps.config.rootUrl), serverIdentity(deps.config));
    }
    if (mergedCommit !== baseSha) move = { ref: `refs/heads/${row.base_branch}`, from: baseSha, to: mergedCommit };
  }

  const recordMerge = async (moved: Promise<void>): Promise<PullRow> => {
    // Gitea's Merge removes the pull request's scheduled merge, whoever merges it (in the same statement)
    const [merged] = await tx.query<PullRow>(
      `WITH unscheduled AS (DELETE FROM pull_auto_merge WHERE pull_id = $1)
       UPDATE pull_request SET has_merged = true, merged_commit_id = $2, merger_id = $3, merged_at = now(), status = $4, updated = now()
       WHERE id = $1 RETURNING *`,
      [row.id, mergedCommit, doer.id, options.style === 'manually-merged' ? pullStatus.manuallyMerged : pullStatus.mergeable],
    );
    await setIssueClosed(tx, base, issue, doer, true, { commitId: mergedCommit, merged: true, lockedByCaller: true });
    await emit(tx, {
      kind: 'pull_request.merged', repoId: base.id, doerId: doer.id,
      payload: { ...issueFacts(issue), merged_commit_id: mergedCommit, style: options.style },
    });
    const deleteHead = options.deleteBranchAfterMerge ?? base.default_delete_branch_after_merge;
    if (deleteHead && headRepo && options.style !== 'manually-merged') await deleteHeadBranch(tx, deps.git, headRepo, row, doer);
    // the branch's row is read from git, so once git has moved it
    await moved;
    if (move) await recordRefUpdates(tx, repoGit, base, doer, [{ ref: move.ref, oldSha: move.from, newSha: move.to }]);
    return merged;
  };
  return move ? moveBranchWhile(tx, repoGit, move, recordMerge) : recordMerge(Promise.resolve());
}

/** The commit message of a merge: the caller's title and message where given, else the default's. */
async function mergeMessage(defaults: Promise<{ title: string; body: string }>, options: MergeOptions): Promise<string> {
  const { title: defaultTitle, body: defaultBody } = await defaults;
  const title = options.title?.trim() || defaultTitle;
  const body = options.message?.trim() || defaultBody;
  return title ? `${title}${body ? `\n\n${body}` : ''}\n` : '';
}

/** The base branch moving to a merge, from where the merge started. */
interface BranchMove {
  ref: string;
  from: string;
  to: string;
}

/**
 * Moves the branch (`update-ref` with the old value) while `record` writes the merge into the database, git and
 * PostgreSQL working at the same time; `record` awaits `moved` before what must see the branch moved. The transaction
 * still commits only with the branch moved: a branch that moved meanwhile is a 409 (and rolls `record` back), and a
 * rollback for any reason moves the branch back.
 */
async function moveBranchWhile<T>(tx: Tx, repoGit: GitRepo, { ref, from, to }: BranchMove, record: (moved: Promise<void>) => Promise<T>): Promise<T> {
  const moving = repoGit.updateRef(ref, to, from).then((moved) => {
    if (moved) tx.onRollback(async () => {
      await repoGit.updateRef(ref, from, to);
    });
    return moved;
  });
  const moved = moving.then((done) => {
    if (!done) throw conflict('merge push out of date');
  });
  moved.catch(() => undefined);
  const recorded = await record(moved).catch(async (error: unknown) => {
    // the rollback that follows must find the branch's way back registered
    await moving.catch(() => false);
    throw error;
  });
  await moved;
  return recorded;
}

/**
 * Deletes the head branch after a merge when the doer may write to the head repository and no other open pull
 * request still uses it; never the head repository's default branch.
 */
async function deleteHeadBranch(tx: Tx, git: GitStore, headRepo: RepoRow, pull: PullRow, doer: UserRow): Promise<void> {
  if (pull.head_branch === headRepo.default_branch) return;
  if ((await accessModeOf(tx, doer, headRepo, 'repo.code')) < accessModes.write) return;
  const [{ others }] = await tx.query<{ others: number }>(
    `SELECT count(*)::int AS others FROM pull_request p JOIN issue i ON i.id = p.issue_id
     WHERE p.head_repo_id = $1 AND p.head_branch = $2 AND p.id <> $3 AND NOT p.has_merged AND NOT i.is_closed`,
    [headRepo.id, pull.head_branch, pull.id],
  );
  if (others > 0) return;
  await deleteBranch(tx, git, headRepo, doer, pull.head_branch).catch((error: unknown) => {
    if (!(error instanceof HttpError)) throw error;
  });
}
