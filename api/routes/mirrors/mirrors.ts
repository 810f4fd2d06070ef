import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { resolveMigrationOwner, startMigration } from '../../../db/models/mirrors/migrations.js';
import { requestMirrorSync } from '../../../db/models/mirrors/pull-mirrors.js';
import {
  addPushMirror, deletePushMirror, getPushMirror, listPushMirrors, requestPushMirrorSync,
} from '../../../db/models/mirrors/push-mirrors.js';
import { loadRepoView } from '../../../db/views/repo.js';
import { created, noContent, ok, route } from '../../http/route.js';
import { renderPushMirror } from '../../render/push-mirror.js';
import { renderRepository } from '../../render/repository.js';

const migrateBody = z.object({
  clone_addr: z.string().min(1),
  repo_name: z.string().min(1).max(100),
  repo_owner: z.string().optional(),
  uid: z.number().int().optional(),
  service: z.enum(['git', 'github', 'gitea', 'gitlab', 'gogs', 'onedev', 'gitbucket', 'codebase', 'forgejo']).optional(),
  auth_username: z.string().optional(),
  auth_password: z.string().optional(),
  auth_token: z.string().optional(),
  mirror: z.boolean().optional(),
  mirror_interval: z.string().optional(),
  private: z.boolean().optional(),
  description: z.string().max(2048).optional(),
  wiki: z.boolean().optional(),
  issues: z.boolean().optional(),
  labels: z.boolean().optional(),
  milestones: z.boolean().optional(),
  releases: z.boolean().optional(),
  pull_requests: z.boolean().optional(),
  lfs: z.boolean().optional(),
  lfs_endpoint: z.string().optional(),
});

const pushMirrorBody = z.object({
  remote_address: z.string().min(1),
  remote_username: z.string().optional(),
  remote_password: z.string().optional(),
  interval: z.string().optional(),
  sync_on_commit: z.boolean().optional(),
});

/** Gitea guards the push mirror group with reqAdmin and reqToken. */
const repoAdmin = { mode: 'admin' } as const;

export const mirrorRoutes = [
  route({
    method: 'post', path: '/repos/migrate', operationId: 'repoMigrate', summary: 'Migrate a remote git repository', tag: 'repository',
    scope: 'write:repository', signedIn: true, body: migrateBody,
    responses: { 201: 'Repository', 403: 'forbidden', 409: 'error', 422: 'validationError' },
    handle: async ({ deps, doer, body }) => {
      const owner = await resolveMigrationOwner(deps.db, doer, body);
      const repo = await inTx(deps, (tx) => startMigration(tx, deps, doer, owner, body));
      return created(renderRepository(await loadRepoView(deps.db, repo, doer), doer, deps.config));
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/mirror-sync', operationId: 'repoMirrorSync', summary: 'Sync a mirrored repository', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: { unit: 'repo.code', mode: 'write' }, responses: { 200: 'empty', 400: 'error' },
    handle: async ({ deps, repo }) => {
      await inTx(deps, (tx) => requestMirrorSync(tx, repo.repo));
      return ok(undefined);
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/push_mirrors', operationId: 'repoListPushMirrors', summary: 'Get all push mirrors of the repository', tag: 'repository',
    scope: 'read:repository', signedIn: true, repo: repoAdmin, paginated: true, responses: { 200: 'PushMirrorList', 400: 'error' },
    handle: async ({ deps, repo, page, list }) => {
      const { rows, total } = await listPushMirrors(deps.db, repo.repo.id, page);
      return list(rows.map((row) => renderPushMirror(repo.repo, row)), total);
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/push_mirrors', operationId: 'repoAddPushMirror', summary: 'add a push mirror to the repository', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: repoAdmin, body: pushMirrorBody, responses: { 200: 'PushMirror', 400: 'error', 422: 'validationError' },
    handle: async ({ deps, repo, doer, body }) => {
      const row = await inTx(deps, (tx) => addPushMirror(tx, deps.config, repo.repo, doer.is_admin, body));
      return ok(renderPushMirror(repo.repo, row));
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/push_mirrors-sync', operationId: 'repoPushMirrorSync', summary: 'Sync all push mirrored repository', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: repoAdmin, responses: { 200: 'empty', 400: 'error' },
    handle: async ({ deps, repo }) => {
      await inTx(deps, (tx) => requestPushMirrorSync(tx, repo.repo.id));
      return ok(undefined);
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/push_mirrors/{name}', operationId: 'repoGetPushMirrorByRemoteName', summary: 'Get push mirror of the repository by remoteName', tag: 'repository',
    scope: 'read:repository', signedIn: true, repo: repoAdmin, responses: { 200: 'PushMirror', 400: 'error' },
    handle: async ({ deps, repo, params }) => ok(renderPushMirror(repo.repo, await getPushMirror(deps.db, repo.repo.id, params.name))),
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/push_mirrors/{name}', operationId: 'repoDeletePushMirror', summary: 'deletes a push mirror from a repository by remoteName', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: repoAdmin, responses: { 204: 'empty', 400: 'error' },
    handle: async ({ deps, repo, params }) => {
      await inTx(deps, (tx) => deletePushMirror(tx, repo.repo.id, params.name));
      return noContent();
    },
  }),
];
