import { z } from 'zod';
import { queryId } from '../../http/fields.js';
import { inTx } from '../../../db/data-source.js';
import { addDeployKey, deleteDeployKey, getDeployKey, listDeployKeys } from '../../../db/models/repos/deploy-keys.js';
import { created, noContent, ok, route } from '../../http/route.js';
import { renderDeployKey } from '../../render/deploy-key.js';

const createKeyBody = z.object({
  title: z.string().trim().min(1).max(255),
  key: z.string().min(1).max(16384),
  read_only: z.boolean().optional(),
});
const listQuery = z.object({ key_id: queryId().optional(), fingerprint: z.string().optional() });

/** reqToken + reqAdmin, as Gitea guards the whole /keys group. */
const keysAdmin = { mode: 'admin' } as const;

export const deployKeyRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/keys', operationId: 'repoListKeys', summary: "List a repository's keys", tag: 'repository',
    scope: 'read:repository', signedIn: true, repo: keysAdmin, paginated: true, query: listQuery, responses: { 200: 'DeployKeyList' },
    handle: async ({ deps, repo, doer, query, page, list }) => {
      const { keys, total } = await listDeployKeys(deps.db, repo.repo.id, { keyId: query.key_id, fingerprint: query.fingerprint }, page);
      return list(keys.map((key) => renderDeployKey(key, repo, doer, deps.config)), total);
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/keys', operationId: 'repoCreateKey', summary: 'Add a key to a repository', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: keysAdmin, body: createKeyBody, responses: { 201: 'DeployKey', 422: 'validationError' },
    handle: async ({ deps, repo, doer, body }) => {
      const key = await inTx(deps, (tx) => addDeployKey(tx, repo.repo, doer, body));
      return created(renderDeployKey(key, repo, doer, deps.config));
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/keys/{id}', operationId: 'repoGetKey', summary: "Get a repository's key by id", tag: 'repository',
    scope: 'read:repository', signedIn: true, repo: keysAdmin, ids: ['id'], responses: { 200: 'DeployKey' },
    handle: async ({ deps, repo, doer, ids }) => {
      const key = await getDeployKey(deps.db, repo.repo.id, ids.id);
      return ok(renderDeployKey(key, repo, doer, deps.config));
    },
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/keys/{id}', operationId: 'repoDeleteKey', summary: 'Delete a key from a repository', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: keysAdmin, ids: ['id'], responses: { 204: 'empty' },
    handle: async ({ deps, repo, doer, ids }) => {
      await inTx(deps, (tx) => deleteDeployKey(tx, repo.repo, doer, ids.id));
      return noContent();
    },
  }),
];
