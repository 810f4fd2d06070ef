import type { Queryable } from '../data-source.js';
import type { CommitObject } from '../git/objects.js';
import type { FileChange, GitReader } from '../git/read.js';
import type { GitStore } from '../git/store.js';
import { accessModeOf, type OwnerAndAccess } from '../models/access.js';
import type { AccessMode, RepoRow } from '../models/repos/repo-row.js';
import { findUsersByEmails } from '../models/users/emails.js';
import type { UserRow } from '../models/users/user-row.js';
import type { RepoView } from './repo.js';
import { completeRepoView, loadRepoView } from './repo.js';

/** One pushed commit with what a payload commit shows: its files by status and the users its addresses belong to. */
export interface PushCommitView {
  commit: CommitObject;
  files: FileChange[];
  authorUsername: string;
  committerUsername: string;
}

/** What a push payload shows besides the repository and the pusher (Gitea's PushCommits). */
export interface PushView {
  ref: string;
  before: string;
  after: string;
  /** The base of the compare URL: `before`, or for a new branch the parent of its oldest listed commit. */
  compareFrom: string;
  /** Newest first. */
  commits: PushCommitView[];
  totalCommits: number;
  head: PushCommitView | null;
}

/** Gitea lists at most this many commits for a new branch (CommitsBeforeLimit(10)). */
const newBranchCommitLimit = 10;

const zeroSha = /^0+$/;

/** A repository as a payload shows it: with the access mode Gitea's notifier renders it with. */
export async function repoViewWithMode(db: Queryable, repo: RepoRow, mode: AccessMode): Promise<RepoView> {
  return { ...(await loadRepoView(db, repo, null)), mode };
}

/** repoViewWithMode for a repository whose owner is loaded already (see anonymousAccessSql). */
export async function repoViewWithOwner(db: Queryable, repo: RepoRow, owner: OwnerAndAccess, mode: AccessMode): Promise<RepoView> {
  return { ...(await completeRepoView(db, repo, owner, null)), mode };
}

/** The mode `user` has on `repo`, as Gitea's AccessLevel. */
export function accessLevel(db: Queryable, user: UserRow | null, repo: RepoRow): Promise<AccessMode> {
  return accessModeOf(db, user, repo);
}

export async function commitViews(db: Queryable, reader: GitReader, commits: CommitObject[]): Promise<PushCommitView[]> {
  const [changes, users] = await Promise.all([
    reader.changesOf(commits.map((c) => c.oid), { stats: false, files: true }),
    findUsersByEmails(db, commits.flatMap((c) => [c.author.email, c.committer.email])),
  ]);
  return commits.map((commit) => ({
    commit,
    files: changes.get(commit.oid)?.files ?? [],
    authorUsername: users.get(commit.author.email.toLowerCase())?.name ?? '',
    committerUsername: users.get(commit.committer.email.toLowerCase())?.name ?? '',
  }));
}

/**
 * The commits of one ref update as Gitea's push notification lists them: for a branch, the new commits (newest
 * first; at most ten for a new branch); for a tag, none, with the tagged commit as head.
 */
export async function loadPushView(db: Queryable, git: GitStore, repo: RepoRow, update: { ref: string; before: string; after: string }): Promise<PushView> {
  const reader = git.open(repo);
  const isNew = zeroSha.test(update.before);
  const head = await reader.findCommit(update.after);
  if (!head) throw new Error(`push ${update.ref}: commit ${update.after} is not in ${repo.owner_name}/${repo.name}`);
  if (update.ref.startsWith('refs/tags/')) {
    const [headView] = await commitViews(db, reader, [head]);
    return { ...update, compareFrom: update.before, commits: [], totalCommits: 0, head: headView };
  }
  const ids = await reader.log({ rev: update.after, not: isNew ? undefined : update.before, max: isNew ? newBranchCommitLimit : undefined });
  const commits = (await Promise.all(ids.map((id) => reader.findCommit(id)))).filter((c): c is CommitObject => c !== null);
  const views = await commitViews(db, reader, commits);
  let compareFrom = update.before;
  const oldest = commits.at(-1);
  if (isNew && oldest && oldest.parents.length > 0) compareFrom = oldest.parents[0];
  return {
    ...update,
    compareFrom,
    commits: views,
    totalCommits: views.length,
    head: views.find((v) => v.commit.oid === update.after) ?? (await commitViews(db, reader, [head]))[0],
  };
}
