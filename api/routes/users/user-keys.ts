import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { addPublicKey, deletePublicKey, getPublicKey, listPublicKeys, type OwnedPublicKey } from '../../../db/models/users/public-keys.js';
import { getIndividualByName } from '../../../db/models/users/users.js';
import type { UserRow } from '../../../db/models/users/user-row.js';
import { loadUser } from '../../context/user.js';
import type { Deps } from '../../deps.js';
import { created, noContent, ok, route, type Reply } from '../../http/route.js';
import { renderPublicKey, type ApiPublicKey } from '../../render/public-key.js';

const createKeyBody = z.object({
  title: z.string().trim().min(1).max(255),
  key: z.string().min(1).max(16384),
  read_only: z.boolean().optional(),
});
type CreateKeyBody = z.infer<typeof createKeyBody>;
const listQuery = z.object({ fingerprint: z.string().optional() });

const renderKeys = (deps: Deps, keys: OwnedPublicKey[], viewer: UserRow | null): ApiPublicKey[] =>
  keys.map((key) => renderPublicKey(key, viewer, deps.config));

/**
 * Gitea's listPublicKeys with a fingerprint: that one key (among `ownerId`'s keys when the path names a user, among
 * everyone's on /user/keys), with its count and no pages. Without one, the owner's keys are listed page by page.
 */
async function findKeyByFingerprint(deps: Deps, viewer: UserRow | null, fingerprint: string, ownerId?: number): Promise<Reply> {
  const { keys, total } = await listPublicKeys(deps.db, { fingerprint, ownerId }, { limit: 1, offset: 0 });
  return { status: 200, body: renderKeys(deps, keys, viewer), headers: { 'X-Total-Count': String(total) } };
}

async function createKey(deps: Deps, owner: UserRow, doer: UserRow, body: CreateKeyBody): Promise<Reply> {
  const row = await inTx(deps, (tx) => addPublicKey(tx, owner, doer, body));
  return created(renderPublicKey({ key: row, owner }, doer, deps.config));
}

const userRead = { scope: 'read:user', signedIn: true } as const;
const userWrite = { scope: 'write:user', signedIn: true } as const;
const adminWrite = { scope: 'write:admin', admin: true } as const;

export const userKeyRoutes = [
  route({
    method: 'get', path: '/user/keys', operationId: 'userCurrentListKeys', summary: "List the authenticated user's public keys", tag: 'user',
    ...userRead, paginated: true, query: listQuery, responses: { 200: 'PublicKeyList' },
    handle: async ({ deps, doer, query, page, list }) => {
      if (query.fingerprint) return findKeyByFingerprint(deps, doer, query.fingerprint);
      const { keys, total } = await listPublicKeys(deps.db, { ownerId: doer.id }, page);
      return list(renderKeys(deps, keys, doer), total);
    },
  }),
  route({
    method: 'post', path: '/user/keys', operationId: 'userCurrentPostKey', summary: 'Create a public key', tag: 'user',
    ...userWrite, body: createKeyBody, responses: { 201: 'PublicKey', 422: 'validationError' },
    handle: ({ deps, doer, body }) => createKey(deps, doer, doer, body),
  }),
  route({
    method: 'get', path: '/user/keys/{id}', operationId: 'userCurrentGetKey', summary: 'Get a public key', tag: 'user',
    ...userRead, ids: ['id'], responses: { 200: 'PublicKey', 404: 'notFound' },
    handle: async ({ deps, doer, ids }) => ok(renderPublicKey(await getPublicKey(deps.db, ids.id), doer, deps.config)),
  }),
  route({
    method: 'delete', path: '/user/keys/{id}', operationId: 'userCurrentDeleteKey', summary: 'Delete a public key', tag: 'user',
    ...userWrite, ids: ['id'], responses: { 204: 'empty', 403: 'forbidden', 404: 'notFound' },
    handle: async ({ deps, doer, ids }) => {
      await inTx(deps, (tx) => deletePublicKey(tx, doer, doer, ids.id));
      return noContent();
    },
  }),
  route({
    method: 'get', path: '/users/{username}/keys', operationId: 'userListKeys', summary: "List the given user's public keys", tag: 'user',
    ...userRead, paginated: true, query: listQuery, responses: { 200: 'PublicKeyList', 404: 'notFound' },
    handle: async ({ deps, caller, doer, params, query, page, list }) => {
      const owner = await loadUser(deps, caller, params.username);
      if (query.fingerprint) return findKeyByFingerprint(deps, doer, query.fingerprint, owner.id);
      const { keys, total } = await listPublicKeys(deps.db, { ownerId: owner.id }, page);
      return list(renderKeys(deps, keys, doer), total);
    },
  }),
  route({
    method: 'post', path: '/admin/users/{username}/keys', operationId: 'adminCreatePublicKey', summary: 'Add a public key on behalf of a user', tag: 'admin',
    ...adminWrite, body: createKeyBody, responses: { 201: 'PublicKey', 403: 'forbidden', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, doer, params, body }) => createKey(deps, await getIndividualByName(deps.db, params.username), doer, body),
  }),
  route({
    method: 'delete', path: '/admin/users/{username}/keys/{id}', operationId: 'adminDeleteUserPublicKey', summary: "Delete a user's public key", tag: 'admin',
    ...adminWrite, ids: ['id'], responses: { 204: 'empty', 403: 'forbidden', 404: 'notFound' },
    handle: async ({ deps, doer, params, ids }) => {
      const owner = await getIndividualByName(deps.db, params.username);
      await inTx(deps, (tx) => deletePublicKey(tx, owner, doer, ids.id));
      return noContent();
    },
  }),
];
