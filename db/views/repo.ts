import type { Queryable } from '../data-source.js';
import { notFound } from '../errors.js';
import { ownerAndAccess, type OwnerAndAccess } from '../models/access.js';
import type { TeamView } from '../models/orgs/teams.js';
import { findRepoById } from '../models/repos/repos.js';
import { findPendingTransfer } from '../models/repos/transfers.js';
import type { AccessMode, RepoRow } from '../models/repos/repo-row.js';
import type { UserRow } from '../models/users/user-row.js';

export interface MirrorInfo {
  interval_seconds: number;
  enable_prune: boolean;
  updated: Date | null;
  next_update: Date | null;
  last_error: string;
}

/** A pending transfer of the repository: who started it, who may accept it, the teams it would grant. */
export interface RepoTransferView {
  doer: UserRow;
  recipient: UserRow;
  teams: TeamView[];
}

/** Everything a repository's JSON needs besides the row. */
export interface RepoView {
  repo: RepoRow;
  owner: UserRow;
  mode: AccessMode;
  parent?: RepoView | null;
  mirror?: MirrorInfo | null;
  transfer?: RepoTransferView | null;
}

/** Owner, the viewer's mode, the fork parent, mirror settings and a pending transfer: what rendering a repository needs. */
export async function loadRepoView(db: Queryable, repo: RepoRow, viewer: UserRow | null, depth = 0): Promise<RepoView> {
  const access = await ownerAndAccess(db, viewer, repo);
  if (!access) throw notFound();
  return completeRepoView(db, repo, access, viewer, depth);
}

/** The view of a repository whose owner and the viewer's mode are already loaded. */
export async function completeRepoView(db: Queryable, repo: RepoRow, access: OwnerAndAccess, viewer: UserRow | null, depth = 0): Promise<RepoView> {
  const { owner, mode } = access;
  const [mirrors, transfer] = await Promise.all([
    repo.is_mirror ? db.query<MirrorInfo>('SELECT interval_seconds, enable_prune, updated, next_update, last_error FROM mirror WHERE repo_id = $1', [repo.id]) : [],
    access.transferPending ? findPendingTransfer(db, repo.id) : null,
  ]);
  let parent: RepoView | null = null;
  if (repo.fork_id && depth === 0) {
    const parentRepo = await findRepoById(db, repo.fork_id);
    if (parentRepo) parent = await loadRepoView(db, parentRepo, viewer, 1);
  }
  return { repo, owner, mode, parent, mirror: mirrors[0] ?? null, transfer };
}

/** The views of a list of repositories (lists, searches, feeds), in the list's order. */
export function loadRepoViews(db: Queryable, repos: RepoRow[], viewer: UserRow | null): Promise<RepoView[]> {
  return Promise.all(repos.map((repo) => loadRepoView(db, repo, viewer)));
}
