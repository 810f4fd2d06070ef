import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { notFound } from '../../../db/errors.js';
import { addDeployKey, deleteDeployKey, getDeployKey, listDeployKeys } from '../../../db/models/repos/deploy-keys.js';
import { accessModes } from '../../../db/models/repos/repo-row.js';
import { doerOf } from '../../context/user.js';
import { loadRepo, requireMode, type LoadedRepo } from '../../context/repo.js';
import { pageOf, paged } from '../../http/pagination.js';
import { created, noContent, ok, route, type Context } from '../../http/route.js';
import { renderDeployKey } from '../../render/deploy-key.js';
import type { Deps } from '../../deps.js';

const createKeyBody = z.object({
  title: z.string().trim().min(1).max(255),
  key: z.string().min(1).max(16384),
  read_only: z.boolean().optional(),
});
const listQuery = z.object({ key_id: z.coerce.number().int().min(0).optional(), fingerprint: z.string().optional() });
type ListQuery = z.infer<typeof listQuery> & { page?: number; limit?: number };

/** reqToken + reqAdmin, as Gitea guards the whole /keys group. */
async function loadAdministered(deps: Deps, ctx: Pick<Context<unknown, unknown>, 'caller' | 'params'>): Promise<LoadedRepo> {
  const loaded = await loadRepo(deps, ctx.caller, ctx.params.owner, ctx.params.repo);
  requireMode(loaded, accessModes.admin);
  return loaded;
}

function keyId(raw: string): number {
  if (!/^\d{1,15}$/.test(raw)) throw notFound();
  return Number(raw);
}

export const deployKeyRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/keys', operationId: 'repoListKeys', summary: "List a repository's keys", tag: 'repository',
    scope: 'read:repository', signedIn: true, paginated: true, query: listQuery, responses: { 200: 'DeployKeyList', 404: 'notFound' },
    handle: async (ctx) => {
      const loaded = await loadAdministered(ctx.deps, ctx);
      const page = pageOf(ctx.query);
      const { keys, total } = await listDeployKeys(ctx.deps.db, loaded.repo.id, { keyId: ctx.query.key_id, fingerprint: ctx.query.fingerprint }, page);
      const url = ctx.url;
      return paged(keys.map((key) => renderDeployKey(key, loaded, ctx.caller.user, ctx.deps.config)), total, page, url);
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/keys', operationId: 'repoCreateKey', summary: 'Add a key to a repository', tag: 'repository',
    scope: 'write:repository', signedIn: true, body: createKeyBody, responses: { 201: 'DeployKey', 404: 'notFound', 422: 'validationError' },
    handle: async (ctx) => {
      const loaded = await loadAdministered(ctx.deps, ctx);
      const key = await inTx(ctx.deps, (tx) => addDeployKey(tx, loaded.repo, doerOf(ctx.caller), ctx.body));
      return created(renderDeployKey(key, loaded, ctx.caller.user, ctx.deps.config));
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/keys/{id}', operationId: 'repoGetKey', summary: "Get a repository's key by id", tag: 'repository',
    scope: 'read:repository', signedIn: true, responses: { 200: 'DeployKey', 404: 'notFound' },
    handle: async (ctx) => {
      const loaded = await loadAdministered(ctx.deps, ctx);
      const key = await getDeployKey(ctx.deps.db, loaded.repo.id, keyId(ctx.params.id));
      return ok(renderDeployKey(key, loaded, ctx.caller.user, ctx.deps.config));
    },
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/keys/{id}', operationId: 'repoDeleteKey', summary: 'Delete a key from a repository', tag: 'repository',
    scope: 'write:repository', signedIn: true, responses: { 204: 'empty', 403: 'forbidden', 404: 'notFound' },
    handle: async (ctx) => {
      const loaded = await loadAdministered(ctx.deps, ctx);
      const id = keyId(ctx.params.id);
      await inTx(ctx.deps, (tx) => deleteDeployKey(tx, loaded.repo, doerOf(ctx.caller), id));
      return noContent();
    },
  }),
];
