import { forbidden, notFound, unauthorized } from '../../db/errors.js';
import type { Queryable } from '../../db/data-source.js';
import { ownerAndAccess } from '../../db/models/access.js';
import { findRedirect, findRepo, findRepoById } from '../../db/models/repos/repos.js';
import { findPendingTransfer } from '../../db/models/repos/transfers.js';
import { accessModes, type AccessMode, type RepoRow } from '../../db/models/repos/repo-row.js';
import type { UserRow } from '../../db/models/users/user-row.js';
import type { Caller } from '../auth/caller.js';
import type { Deps } from '../deps.js';
import { renderRepository, type ApiRepository, type MirrorInfo, type RepoView } from '../render/repository.js';

export interface LoadedRepo extends RepoView {
  /** The caller's mode, as a name for guard messages. */
  caller: Caller;
}

/** Owner, the viewer's mode, the fork parent, mirror settings and a pending transfer: what rendering a repository needs. */
export async function viewOf(db: Queryable, repo: RepoRow, viewer: UserRow | null, depth = 0): Promise<RepoView> {
  const access = await ownerAndAccess(db, viewer, repo);
  if (!access) throw notFound();
  const { owner, mode } = access;
  const [mirrors, transfer] = await Promise.all([
    repo.is_mirror ? db.query<MirrorInfo>('SELECT interval_seconds, enable_prune, updated FROM mirror WHERE repo_id = $1', [repo.id]) : [],
    access.transferPending ? findPendingTransfer(db, repo.id) : null,
  ]);
  let parent: RepoView | null = null;
  if (repo.fork_id && depth === 0) {
    const parentRepo = await findRepoById(db, repo.fork_id);
    if (parentRepo) parent = await viewOf(db, parentRepo, viewer, 1);
  }
  return { repo, owner, mode, parent, mirror: mirrors[0] ?? null, transfer };
}

/** A list of repositories as `viewer` sees them: one view per repository, rendered (lists, searches, feeds). */
export async function renderRepos(deps: Deps, repos: RepoRow[], viewer: UserRow | null): Promise<ApiRepository[]> {
  const views = await Promise.all(repos.map((repo) => viewOf(deps.db, repo, viewer)));
  return views.map((view) => renderRepository(view, viewer, deps.config));
}

/**
 * The repository a path names, if the caller may read it. Missing and invisible answer the same 404,
 * and a renamed repository is found under its old name.
 */
export async function loadRepo(deps: Deps, caller: Caller, ownerName: string, repoName: string): Promise<LoadedRepo> {
  const repo = (await findRepo(deps.db, ownerName, repoName)) ?? (await findRedirect(deps.db, ownerName, repoName));
  if (!repo) throw notFound(`repository ${ownerName}/${repoName} does not exist`);
  const view = await viewOf(deps.db, repo, caller.user);
  if (view.mode < accessModes.read) throw notFound(`repository ${ownerName}/${repoName} does not exist`);
  return { ...view, caller };
}

export async function loadRepoById(deps: Deps, caller: Caller, id: number): Promise<LoadedRepo> {
  const repo = await findRepoById(deps.db, id);
  if (!repo) throw notFound();
  const view = await viewOf(deps.db, repo, caller.user);
  if (view.mode < accessModes.read) throw notFound();
  return { ...view, caller };
}

const modeMessages: Record<number, string> = {
  [accessModes.write]: 'user should have a permission to write to a repo',
  [accessModes.admin]: 'user should be an owner or a collaborator with admin write of a repository',
  [accessModes.owner]: 'user should be the owner of the repo',
};

/** reqRepoWriter / reqAdmin / reqOwner: 401 without a caller, 403 when the caller's mode is too low. */
export function requireMode(loaded: LoadedRepo, needed: AccessMode): void {
  if (loaded.mode >= needed || (loaded.caller.user?.is_admin && loaded.mode >= accessModes.admin)) return;
  if (!loaded.caller.user) throw unauthorized('token is required');
  throw forbidden(modeMessages[needed] ?? 'forbidden');
}
