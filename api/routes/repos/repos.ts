import { z } from 'zod';
import { limits, refName, text } from '../../http/fields.js';
import { inTx } from '../../../db/data-source.js';
import { editRepository } from '../../../db/models/repos/repo-edit.js';
import { createRepository, deleteRepository, listOwnedRepos, listReposOfMember } from '../../../db/models/repos/repos.js';
import { getOwnerByName } from '../../../db/models/users/users.js';
import type { UserRow } from '../../../db/models/users/user-row.js';
import { loadUser } from '../../context/user.js';
import { renderRepos } from '../../context/repo.js';
import { loadRepoView } from '../../../db/views/repo.js';
import { created, noContent, ok, route, type Reply } from '../../http/route.js';
import { renderRepository } from '../../render/repository.js';
import type { Deps } from '../../deps.js';

export const createRepoBody = z.object({
  name: z.string().min(1).max(100),
  description: z.string().max(2048).optional(),
  private: z.boolean().optional(),
  auto_init: z.boolean().optional(),
  default_branch: refName(limits.branch).optional(),
  readme: text(limits.name).optional(),
  template: z.boolean().optional(),
  object_format_name: z.enum(['sha1', 'sha256']).optional(),
  gitignores: text(limits.text).optional(),
  license: text(limits.name).optional(),
  issue_labels: text(limits.name).optional(),
  trust_model: z.enum(['default', 'collaborator', 'committer', 'collaboratorcommitter']).optional(),
});

const flag = z.boolean().optional();
const editRepoBody = z.object({
  name: z.string().min(1).max(100).optional(),
  description: z.string().max(2048).optional(),
  website: text(limits.url).optional(),
  private: flag, template: flag, archived: flag,
  default_branch: refName().optional(),
  has_issues: flag, has_wiki: flag, has_pull_requests: flag, has_projects: flag, has_releases: flag, has_packages: flag, has_actions: flag,
  projects_mode: z.enum(['repo', 'owner', 'all']).optional(),
  internal_tracker: z.object({ enable_time_tracker: flag, allow_only_contributors_to_track_time: flag, enable_issue_dependencies: flag }).optional(),
  external_tracker: z.object({
    external_tracker_url: z.string().optional(), external_tracker_format: z.string().optional(),
    external_tracker_style: z.enum(['numeric', 'alphanumeric', 'regexp']).optional(), external_tracker_regexp_pattern: z.string().optional(),
  }).optional(),
  external_wiki: z.object({ external_wiki_url: z.string().optional() }).optional(),
  ignore_whitespace_conflicts: flag, allow_merge_commits: flag, allow_rebase: flag, allow_rebase_explicit: flag, allow_squash_merge: flag,
  allow_fast_forward_only_merge: flag, allow_manual_merge: flag, autodetect_manual_merge: flag, allow_rebase_update: flag,
  default_delete_branch_after_merge: flag,
  default_merge_style: z.enum(['merge', 'rebase', 'rebase-merge', 'squash', 'fast-forward-only', 'manually-merged']).optional(),
  default_allow_maintainer_edit: flag,
  mirror_interval: z.string().optional(),
  enable_prune: flag,
});

/** The creation shared by /user/repos, /admin/users/{username}/repos and (with organizations) /orgs/{org}/repos. */
export async function createAndRender(deps: Deps, owner: UserRow, doer: UserRow, body: z.infer<typeof createRepoBody>): Promise<Reply> {
  const repo = await inTx(deps, (tx) => createRepository(tx, deps, owner, doer, body));
  return created(renderRepository(await loadRepoView(deps.db, repo, doer), doer, deps.config));
}

export const repoRoutes = [
  route({
    method: 'post', path: '/user/repos', operationId: 'createCurrentUserRepo', summary: 'Create a repository', tag: 'repository',
    scope: ['write:user', 'write:repository'], signedIn: true, body: createRepoBody,
    responses: { 201: 'Repository', 400: 'error', 403: 'forbidden', 409: 'error', 422: 'validationError' },
    handle: async ({ deps, doer, body }) => createAndRender(deps, doer, doer, body),
  }),
  route({
    method: 'post', path: '/admin/users/{username}/repos', operationId: 'adminCreateRepo', summary: 'Create a repository on behalf of a user', tag: 'admin',
    scope: 'write:admin', admin: true, body: createRepoBody,
    responses: { 201: 'Repository', 400: 'error', 403: 'forbidden', 404: 'notFound', 409: 'error', 422: 'validationError' },
    handle: async ({ deps, doer, body, params }) => createAndRender(deps, await getOwnerByName(deps.db, params.username), doer, body),
  }),
  route({
    method: 'get', path: '/user/repos', operationId: 'userCurrentListRepos', summary: 'List the repos that the authenticated user owns', tag: 'user',
    scope: ['read:user', 'read:repository'], signedIn: true, paginated: true, responses: { 200: 'RepositoryList' },
    handle: async ({ deps, doer, page, list }) => {
      const { repos, total } = await listReposOfMember(deps.db, doer, page);
      return list(await renderRepos(deps, repos, doer), total);
    },
  }),
  route({
    method: 'get', path: '/users/{username}/repos', operationId: 'userListRepos', summary: 'List the repos owned by the given user', tag: 'user',
    scope: ['read:user', 'read:repository'], paginated: true, responses: { 200: 'RepositoryList', 404: 'notFound' },
    handle: async ({ deps, caller, doer, params, page, list }) => {
      const owner = await loadUser(deps, caller, params.username);
      const { repos, total } = await listOwnedRepos(deps.db, owner, doer, page);
      return list(await renderRepos(deps, repos, doer), total);
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}', operationId: 'repoGet', summary: 'Get a repository', tag: 'repository',
    scope: 'read:repository', repo: {}, responses: { 200: 'Repository' },
    handle: async ({ deps, repo, doer }) => ok(renderRepository(repo, doer, deps.config)),
  }),
  route({
    method: 'get', path: '/repositories/{id}', operationId: 'repoGetByID', summary: 'Get a repository by id', tag: 'repository',
    scope: 'read:repository', signedIn: true, repo: {}, ids: ['id'], responses: { 200: 'Repository' },
    handle: async ({ deps, repo, doer }) => ok(renderRepository(repo, doer, deps.config)),
  }),
  route({
    method: 'patch', path: '/repos/{owner}/{repo}', operationId: 'repoEdit', summary: "Edit a repository's properties. Only fields that are set will be changed.", tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: { mode: 'admin' }, body: editRepoBody,
    responses: { 200: 'Repository', 422: 'validationError' },
    handle: async ({ deps, repo, doer, body }) => {
      const ctx = { ...deps, minMirrorInterval: deps.config.mirror.minInterval, appUrl: deps.config.rootUrl };
      const edited = await inTx(deps, (tx) => editRepository(tx, ctx, repo.repo, doer, body));
      return ok(renderRepository(await loadRepoView(deps.db, edited, doer), doer, deps.config));
    },
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}', operationId: 'repoDelete', summary: 'Delete a repository', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: { mode: 'owner' }, responses: { 204: 'empty' },
    handle: async ({ deps, repo, doer }) => {
      await inTx(deps, (tx) => deleteRepository(tx, deps, repo.repo, doer));
      return noContent();
    },
  }),
];
