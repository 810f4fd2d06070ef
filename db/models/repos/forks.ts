import type { Queryable, Tx } from '../../data-source.js';
import { selectPage } from '../../sql.js';
import { conflict, forbidden, invalid, notFound } from '../../errors.js';
import { emit } from '../../events/emit.js';
import { accessModeOf, readableReposCondition } from '../access.js';
import { isBlocked } from '../users/blocks.js';
import { findOrgByName, isOrgMember, orgPermissionsOf } from '../orgs/orgs.js';
import { syncAllBranches } from '../code/branch-rows.js';
import { syncAllTags } from '../code/push-sync.js';
import { createRepository, reachedRepoLimit, type RepoContext } from './repos.js';
import { accessModes, type RepoRow } from './repo-row.js';
import { userTypes, visibilities, type UserRow } from '../users/user-row.js';

/**
 * The organization a fork goes to: it must exist (422), and the caller must be a member (403) who may create
 * repositories in it (403); administrators may fork into any organization.
 */
export async function resolveForkOwner(db: Queryable, doer: UserRow, orgName: string): Promise<UserRow> {
  const org = await findOrgByName(db, orgName);
  if (!org) throw invalid(`org does not exist [name: ${orgName}]`);
  if (doer.is_admin) return org;
  if (!(await isOrgMember(db, org.id, doer.id))) throw forbidden(`User is no Member of Organisation '${org.name}'`);
  if (!(await orgPermissionsOf(db, org, doer)).canCreateRepository) {
    throw forbidden('Given user is not allowed to create repository in organization.');
  }
  return org;
}

/** Copying a large repository's objects can take a while; Gitea allows a fork's clone ten minutes. */
const forkCopyTimeoutMs = 10 * 60_000;

/**
 * Gitea's ForkRepository: a new repository owned by `owner` with the base's branches and tags, its description,
 * default branch and object format, private when the base is (or its owner is private), with only the code and
 * pull request units on, and the base's fork count raised. One fork of a repository per owner.
 * The creation limit applies only when ALLOW_FORK_WITHOUT_MAXIMUM_LIMIT is off (409, as Gitea answers).
 */
export async function forkRepository(tx: Tx, ctx: RepoContext, base: RepoRow, owner: UserRow, doer: UserRow, name: string): Promise<RepoRow> {
  if (await isBlocked(tx, base.owner_id, doer.id)) throw forbidden('user is blocked by the repository owner');
  if (!ctx.config.repository.allowForkWithoutMaximumLimit) {
    const limit = await reachedRepoLimit(tx, owner, { maxCreationLimit: ctx.config.repository.maxCreationLimit });
    if (limit !== null) throw conflict(`user has reached maximum limit of repositories [limit: ${limit}]`);
  }
  // Raising the count first locks the base row, so two forks of it by one owner cannot both pass the check below.
  const [locked] = await tx.query<RepoRow>('UPDATE repository SET num_forks = num_forks + 1 WHERE id = $1 RETURNING *', [base.id]);
  if (!locked) throw notFound();
  const [existing] = await tx.query<{ owner_name: string; name: string }>(
    'SELECT owner_name, name FROM repository WHERE fork_id = $1 AND owner_id = $2 LIMIT 1',
    [locked.id, owner.id],
  );
  if (existing) {
    throw conflict(
      `repository is already forked by user [uname: ${owner.name}, repo path: ${locked.owner_name}/${locked.name}, fork path: ${existing.owner_name}/${existing.name}]`,
    );
  }
  const [baseOwner] = await tx.query<{ visibility: number }>('SELECT visibility FROM "user" WHERE id = $1', [locked.owner_id]);
  const fork = await createRepository(tx, ctx, owner, doer, {
    name,
    description: locked.description,
    private: locked.is_private || visibilities[baseOwner.visibility] === 'private',
    default_branch: locked.default_branch,
    object_format_name: locked.object_format_name as 'sha1' | 'sha256',
    fork_id: locked.id,
  }, { limit: false });
  const forkGit = ctx.git.open(fork);
  await forkGit.fetchBranchesAndTags(ctx.git.open(locked), forkCopyTimeoutMs);
  const branches = await syncAllBranches(tx, forkGit, fork.id, doer.id);
  await syncAllTags(tx, forkGit, fork.id, doer.id);
  const [row] = await tx.query<RepoRow>(
    `UPDATE repository SET is_empty = $2, has_issues = false, has_wiki = false, has_projects = false, has_releases = false,
       has_packages = false, has_actions = false
     WHERE id = $1 RETURNING *`,
    [fork.id, branches === 0],
  );
  if (owner.type === userTypes.organization) await grantCreatorAdmin(tx, row, doer);
  await emit(tx, { kind: 'repository.forked', repoId: row.id, doerId: doer.id, payload: { base_repo_id: locked.id, owner_id: owner.id, owner: owner.name, name: row.name } });
  return row;
}

/** A fork made into an organization by someone its teams do not make an administrator of it: they become one as a collaborator. */
async function grantCreatorAdmin(tx: Tx, repo: RepoRow, doer: UserRow): Promise<void> {
  if ((await accessModeOf(tx, doer, repo)) >= accessModes.admin) return;
  await tx.query(
    `INSERT INTO collaboration (repo_id, user_id, mode) VALUES ($1, $2, $3)
     ON CONFLICT (repo_id, user_id) DO UPDATE SET mode = EXCLUDED.mode`,
    [repo.id, doer.id, accessModes.admin],
  );
}

/** The forks of `base` the viewer may read, oldest first, with their number. */
export async function listForks(
  db: Queryable,
  base: RepoRow,
  viewer: UserRow | null,
  page: { limit: number; offset: number },
): Promise<{ repos: RepoRow[]; total: number }> {
  const where = `r.fork_id = $1 AND ${readableReposCondition('r', '$2')}`;
  const params = [base.id, viewer?.id ?? null];
  const { rows, total } = await selectPage<RepoRow>(db, { select: 'r.*', from: `repository r WHERE ${where}`, params, orderBy: 'r.id', page });
  return { repos: rows, total };
}
