import { existsSync } from 'node:fs';
import { forbidden, notFound, unauthorized } from '../../db/errors.js';
import { accessModeOf, wikiModeOf } from '../../db/models/access.js';
import type { Pusher } from '../../db/models/code/branch-protection.js';
import { accessModes, type AccessMode, type RepoRow } from '../../db/models/repos/repo-row.js';
import { findRedirect, findRepo } from '../../db/models/repos/repos.js';
import type { UserRow } from '../../db/models/users/user-row.js';
import { findUsersByIds } from '../../db/models/users/users.js';
import type { Deps } from '../deps.js';
import { isLookupName } from '../http/path-params.js';

export type GitService = 'upload-pack' | 'receive-pack' | 'upload-archive';

/** Who asks, over HTTP or SSH: a user (or nobody), or a deploy key with its mode on its one repository. */
export type GitCaller = { user: UserRow | null; deployKeys?: undefined } | { user: null; deployKeys: { repoId: number; mode: AccessMode }[] };

/** A repository (or its wiki) a caller may use for a service, with the caller's mode on it. */
export interface GitTarget {
  repo: RepoRow;
  dir: string;
  mode: AccessMode;
  /** The repository's wiki (`{repo}.wiki.git`) rather than the repository. */
  wiki: boolean;
  /** Who a push is recorded as: the user, or for a deploy key the repository's owner (as in Gitea). */
  pusher: Pusher | null;
}

/**
 * Who may do what, for git over HTTP and SSH alike: a repository the caller cannot read is missing (a 401 asking for
 * credentials when the caller is anonymous); pushing needs write access to a repository that is neither archived,
 * a mirror nor being migrated. `name` may end in `.git` and name the wiki with `.wiki`.
 */
export async function resolveGitTarget(deps: Deps, caller: GitCaller, owner: string, name: string, service: GitService): Promise<GitTarget> {
  const asked = name.replace(/\.git$/i, '');
  // Repository names never end in `.wiki`: such a name is the wiki of the repository before it.
  const wiki = /\.wiki$/i.test(asked);
  const repoName = wiki ? asked.slice(0, -'.wiki'.length) : asked;
  const repo = isLookupName(owner) && isLookupName(repoName) ? ((await findRepo(deps.db, owner, repoName)) ?? (await findRedirect(deps.db, owner, repoName))) : null;
  const mode = repo ? await modeOf(deps, caller, repo, wiki) : accessModes.none;
  const signedIn = caller.user !== null || caller.deployKeys !== undefined;
  if (!repo || mode < accessModes.read) {
    if (!signedIn) throw unauthorized('authentication required');
    throw notFound();
  }
  let pusher: Pusher | null = null;
  if (service === 'receive-pack') {
    if (!signedIn) throw unauthorized('authentication required');
    if (mode < accessModes.write) throw forbidden('User permission denied for writing.');
    if (repo.is_archived) throw forbidden('repo is archived');
    if (repo.is_mirror) throw forbidden('mirror repository is read-only');
    if (repo.status !== 0) throw forbidden('repository is being migrated');
    pusher = caller.deployKeys ? { user: await ownerOf(deps, repo), deployKey: true } : { user: caller.user!, deployKey: false };
    if (wiki) await createWikiOnFirstPush(deps, repo);
  }
  const dir = wiki ? deps.git.openWiki(repo).dir : deps.git.pathOf(repo.owner_name, repo.name);
  if (!existsSync(dir)) throw notFound();
  return { repo, dir, mode, wiki, pusher };
}

/** A user's mode from ownership, teams and collaboration; a deploy key's is its own, on its repository only. */
async function modeOf(deps: Deps, caller: GitCaller, repo: RepoRow, wiki: boolean): Promise<AccessMode> {
  if (caller.deployKeys) return caller.deployKeys.find((key) => key.repoId === repo.id)?.mode ?? accessModes.none;
  const repoMode = await accessModeOf(deps.db, caller.user, repo, wiki ? undefined : 'repo.code');
  return wiki ? wikiModeOf(deps.db, caller.user, repo, repoMode) : repoMode;
}

async function ownerOf(deps: Deps, repo: RepoRow): Promise<UserRow> {
  const owner = (await findUsersByIds(deps.db, [repo.owner_id])).get(repo.owner_id);
  if (!owner) throw notFound();
  return owner;
}

/** A wiki that was never written is created by the first push to it, as by its first page. */
async function createWikiOnFirstPush(deps: Deps, repo: RepoRow): Promise<void> {
  try {
    await deps.git.initWiki(repo);
  } catch (error) {
    // two first pushes at once: the other one created it
    if (!deps.git.wikiExists(repo)) throw error;
  }
}
