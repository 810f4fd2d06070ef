import { forbidden, notFound } from '../../db/errors.js';
import { unitModeOf } from '../../db/models/access.js';
import type { UnitKey } from '../../db/models/orgs/teams.js';
import { accessModes } from '../../db/models/repos/repo-row.js';
import { scopeAllows, type Scope } from '../../db/scopes.js';
import type { Caller } from '../auth/caller.js';
import { loadRepo, type LoadedRepo } from '../context/repo.js';
import type { Deps } from '../deps.js';

/** A token caller needs the scope the API asks for the same data; other callers have every scope. */
export function requireScope(caller: Caller, scope: Scope): void {
  if ((caller.method === 'token' || caller.method === 'query') && !scopeAllows(caller.scope, scope)) {
    throw forbidden(`token does not have at least one of required scope(s): [${scope}]`);
  }
}

/**
 * The repository of a web path (`/{owner}/{repo}/…`, a `.git` suffix allowed as Gitea allows it) when the caller may
 * read `unit` of it (Gitea's RepoAssignment + reqRepoReader on web routes): anything else, a unit the caller may not
 * read included, is the same 404, since web routes never tell a stranger that a repository exists.
 */
export async function loadWebRepo(deps: Deps, caller: Caller, owner: string, name: string, unit: UnitKey): Promise<LoadedRepo> {
  requireScope(caller, 'read:repository');
  const loaded = await loadRepo(deps, caller, owner, name.replace(/\.git$/i, ''));
  const mode = await unitModeOf(deps.db, caller.user, loaded.repo, unit, loaded.repoMode);
  if (mode < accessModes.read) throw notFound();
  return { ...loaded, mode };
}
