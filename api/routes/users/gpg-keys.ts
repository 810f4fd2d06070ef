import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { addGpgKeys, deleteGpgKey, getGpgKey, listGpgKeys, verificationToken, verifyGpgKey } from '../../../db/models/users/gpg-keys.js';
import { loadUser } from '../../context/user.js';
import { created, noContent, ok, route } from '../../http/route.js';
import { renderGpgKey } from '../../render/gpg-key.js';

const createKeyBody = z.object({
  armored_public_key: z.string().min(1).max(1 << 20),
  armored_signature: z.string().max(1 << 16).optional(),
});
const verifyBody = z.object({
  key_id: z.string().min(1).max(40),
  armored_signature: z.string().max(1 << 16).default(''),
});

const read = { scope: 'read:user', signedIn: true } as const;
const write = { scope: 'write:user', signedIn: true } as const;

export const gpgKeyRoutes = [
  route({
    method: 'get', path: '/user/gpg_keys', operationId: 'userCurrentListGPGKeys', summary: "List the authenticated user's GPG keys", tag: 'user',
    ...read, paginated: true, responses: { 200: 'GPGKeyList' },
    handle: async ({ deps, doer, page, list }) => {
      const { keys, total } = await listGpgKeys(deps.db, doer.id, page);
      return list(keys.map(renderGpgKey), total);
    },
  }),
  route({
    method: 'post', path: '/user/gpg_keys', operationId: 'userCurrentPostGPGKey', summary: 'Create a GPG key', tag: 'user',
    ...write, body: createKeyBody, responses: { 201: 'GPGKey', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, doer, body }) => {
      const [first] = await inTx(deps, (tx) => addGpgKeys(tx, doer, body.armored_public_key, body.armored_signature || undefined));
      return created(renderGpgKey(first));
    },
  }),
  route({
    method: 'get', path: '/user/gpg_keys/{id}', operationId: 'userCurrentGetGPGKey', summary: 'Get a GPG key', tag: 'user',
    ...read, ids: ['id'], responses: { 200: 'GPGKey', 404: 'notFound' },
    handle: async ({ deps, doer, ids }) => ok(renderGpgKey(await getGpgKey(deps.db, doer.id, ids.id))),
  }),
  route({
    method: 'delete', path: '/user/gpg_keys/{id}', operationId: 'userCurrentDeleteGPGKey', summary: 'Remove a GPG key', tag: 'user',
    ...write, ids: ['id'], responses: { 204: 'empty', 403: 'forbidden', 404: 'notFound' },
    handle: async ({ deps, doer, ids }) => {
      await inTx(deps, (tx) => deleteGpgKey(tx, doer, ids.id));
      return noContent();
    },
  }),
  route({
    method: 'get', path: '/users/{username}/gpg_keys', operationId: 'userListGPGKeys', summary: "List the given user's GPG keys", tag: 'user',
    ...read, paginated: true, responses: { 200: 'GPGKeyList', 404: 'notFound' },
    handle: async ({ deps, caller, params, page, list }) => {
      const owner = await loadUser(deps, caller, params.username);
      const { keys, total } = await listGpgKeys(deps.db, owner.id, page);
      return list(keys.map(renderGpgKey), total);
    },
  }),
  route({
    method: 'get', path: '/user/gpg_key_token', operationId: 'getVerificationToken', summary: 'Get a Token to verify', tag: 'user',
    ...read, responses: { 200: 'string', 404: 'notFound' },
    handle: async ({ doer }) => ({
      status: 200,
      content: verificationToken(doer, 1),
      headers: { 'Content-Type': 'text/plain; charset=utf-8' },
    }),
  }),
  route({
    method: 'post', path: '/user/gpg_key_verify', operationId: 'userVerifyGPGKey', summary: 'Verify a GPG key', tag: 'user',
    ...write, body: verifyBody, responses: { 201: 'GPGKey', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, doer, body }) => {
      const key = await inTx(deps, (tx) => verifyGpgKey(tx, doer, body.key_id, body.armored_signature));
      return created(renderGpgKey(key));
    },
  }),
];
