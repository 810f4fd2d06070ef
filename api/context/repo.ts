import { forbidden, locked, notFound, unauthorized } from '../../db/errors.js';
import { findRepoAndAccess, unitModeWithOwner, type RepoPreload } from '../../db/models/access.js';
import type { AccessModeName, UnitKey } from '../../db/models/orgs/teams.js';
import { findRedirect, findRepoById } from '../../db/models/repos/repos.js';
import { accessModes, type AccessMode, type RepoRow } from '../../db/models/repos/repo-row.js';
import type { UserRow } from '../../db/models/users/user-row.js';
import { completeRepoView, loadRepoView, loadRepoViews, type RepoView } from '../../db/views/repo.js';
import type { Caller } from '../auth/caller.js';
import type { Deps } from '../deps.js';
import { parseId } from '../http/ids.js';
import { renderRepository, type ApiRepository } from '../render/repository.js';

/**
 * What a route declares about the repository in its path, as Gitea's api.go says it: `{}` is repoAssignment (the
 * repository must be readable), `unit` is reqRepoReader(unit), `mode` reqRepoWriter / reqRepoAdmin / reqOwner
 * (of the unit, when one is named), `notArchived` mustNotBeArchived.
 */
export interface RepoGuard {
  unit?: UnitKey;
  mode?: Exclude<AccessModeName, 'none'>;
  /** Gitea's mustNotBeArchived: an archived repository refuses the route's change (423). */
  notArchived?: true;
}

/** A repository as a route's guard loaded it. */
export interface LoadedRepo extends RepoView {
  /** The caller's mode in the declared unit (the repository's mode when the route names no unit). */
  mode: AccessMode;
  /** The caller's mode in the repository as a whole. */
  repoMode: AccessMode;
  caller: Caller;
  /** What the route's preload read with the repository; undefined without one, or when it could not run (a repository found by a redirect or by id). */
  preloaded?: unknown;
}

/** A list of repositories as `viewer` sees them, rendered (lists, searches, feeds). */
export async function renderRepos(deps: Deps, repos: RepoRow[], viewer: UserRow | null): Promise<ApiRepository[]> {
  return (await loadRepoViews(deps.db, repos, viewer)).map((view) => renderRepository(view, viewer, deps.config));
}

/**
 * The repository a path names, if the caller may read it. Missing and invisible answer the same 404,
 * and a renamed repository is found under its old name.
 */
export async function loadRepo(deps: Deps, caller: Caller, ownerName: string, repoName: string): Promise<LoadedRepo> {
  return (await loadRepoInUnit(deps, caller, ownerName, repoName)).loaded;
}

/**
 * loadRepo with the caller's mode in `unit` from the same query (the repository guard's hot path: one round trip
 * for the repository, its owner and both modes). `unitMode` is null for a repository found by a redirect.
 */
async function loadRepoInUnit(
  deps: Deps, caller: Caller, ownerName: string, repoName: string, unit?: UnitKey, preload?: RepoPreload<unknown>,
): Promise<{ loaded: LoadedRepo; unitMode: AccessMode | null }> {
  const missing = `repository ${ownerName}/${repoName} does not exist`;
  const found = await findRepoAndAccess(deps.db, ownerName, repoName, caller.user, unit, preload);
  if (found) {
    if (found.mode < accessModes.read) throw notFound(missing);
    const view = await completeRepoView(deps.db, found.repo, found, caller.user);
    return { loaded: { ...view, repoMode: view.mode, caller, preloaded: found.preloaded }, unitMode: found.unitMode };
  }
  const redirected = await findRedirect(deps.db, ownerName, repoName);
  if (!redirected) throw notFound(missing);
  return { loaded: await readable(deps, caller, redirected, missing), unitMode: null };
}

async function loadRepoById(deps: Deps, caller: Caller, id: number): Promise<LoadedRepo> {
  const repo = await findRepoById(deps.db, id);
  if (!repo) throw notFound();
  return readable(deps, caller, repo);
}

async function readable(deps: Deps, caller: Caller, repo: RepoRow, missing?: string): Promise<LoadedRepo> {
  const view = await loadRepoView(deps.db, repo, caller.user);
  if (view.mode < accessModes.read) throw notFound(missing);
  return { ...view, repoMode: view.mode, caller };
}

/**
 * Applies a route's repository guard: the repository of `{owner}/{repo}` (or `/repositories/{id}`), its unit, the mode.
 * A `preload` is read in the same statement when the repository is found by its names.
 */
export async function loadGuardedRepo(
  deps: Deps, caller: Caller, params: Record<string, string>, guard: RepoGuard, preload?: RepoPreload<unknown>,
): Promise<LoadedRepo> {
  const { loaded, unitMode } = params.owner !== undefined && params.repo !== undefined
    ? await loadRepoInUnit(deps, caller, params.owner, params.repo, guard.unit, preload)
    : { loaded: await loadRepoById(deps, caller, parseId(params.id)), unitMode: null };
  const scoped = guard.unit ? await narrowToUnit(deps, loaded, guard.unit, unitMode) : loaded;
  if (guard.mode) requireMode(scoped, accessModes[guard.mode]);
  if (guard.notArchived && scoped.repo.is_archived) throw locked('repo is archived');
  return scoped;
}

/** reqRepoReader(unit): 403 unless the caller may read the unit; afterwards `mode` is the unit's mode. */
async function narrowToUnit(deps: Deps, loaded: LoadedRepo, unit: UnitKey, known: AccessMode | null): Promise<LoadedRepo> {
  const mode = known ?? await unitModeWithOwner(deps.db, loaded.caller.user, loaded.repo, loaded.owner, unit, loaded.repoMode);
  if (mode < accessModes.read) throw forbidden('user should have specific read permission or be a repo admin or a site admin');
  return { ...loaded, mode };
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
