import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { notFound } from '../../../db/errors.js';
import { addGpgKeys, deleteGpgKey, getGpgKey, listGpgKeys, verificationToken, verifyGpgKey } from '../../../db/models/users/gpg-keys.js';
import type { UserRow } from '../../../db/models/users/user-row.js';
import { doerOf, loadUser } from '../../context/user.js';
import { pageOf, paged } from '../../http/pagination.js';
import { created, noContent, ok, route, type Context, type Reply } from '../../http/route.js';
import { renderGpgKey } from '../../render/gpg-key.js';

const createKeyBody = z.object({
  armored_public_key: z.string().min(1).max(1 << 20),
  armored_signature: z.string().max(1 << 16).optional(),
});
const verifyBody = z.object({
  key_id: z.string().min(1).max(40),
  armored_signature: z.string().max(1 << 16).default(''),
});
type PageQuery = { page?: number; limit?: number };

function keyIdOf(raw: string): number {
  if (!/^\d{1,15}$/.test(raw)) throw notFound();
  return Number(raw);
}

async function listKeys(ctx: Context<unknown, PageQuery>, owner: UserRow): Promise<Reply> {
  const page = pageOf(ctx.query);
  const { keys, total } = await listGpgKeys(ctx.deps.db, owner.id, page);
  return paged(keys.map(renderGpgKey), total, page, ctx.url);
}

const read = { scope: 'read:user', signedIn: true } as const;
const write = { scope: 'write:user', signedIn: true } as const;

export const gpgKeyRoutes = [
  route({
    method: 'get', path: '/user/gpg_keys', operationId: 'userCurrentListGPGKeys', summary: "List the authenticated user's GPG keys", tag: 'user',
    ...read, paginated: true, responses: { 200: 'GPGKeyList' },
    handle: (ctx) => listKeys(ctx, doerOf(ctx.caller)),
  }),
  route({
    method: 'post', path: '/user/gpg_keys', operationId: 'userCurrentPostGPGKey', summary: 'Create a GPG key', tag: 'user',
    ...write, body: createKeyBody, responses: { 201: 'GPGKey', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, caller, body }) => {
      const [first] = await inTx(deps, (tx) => addGpgKeys(tx, doerOf(caller), body.armored_public_key, body.armored_signature || undefined));
      return created(renderGpgKey(first));
    },
  }),
  route({
    method: 'get', path: '/user/gpg_keys/{id}', operationId: 'userCurrentGetGPGKey', summary: 'Get a GPG key', tag: 'user',
    ...read, responses: { 200: 'GPGKey', 404: 'notFound' },
    handle: async ({ deps, caller, params }) => ok(renderGpgKey(await getGpgKey(deps.db, doerOf(caller).id, keyIdOf(params.id)))),
  }),
  route({
    method: 'delete', path: '/user/gpg_keys/{id}', operationId: 'userCurrentDeleteGPGKey', summary: 'Remove a GPG key', tag: 'user',
    ...write, responses: { 204: 'empty', 403: 'forbidden', 404: 'notFound' },
    handle: async ({ deps, caller, params }) => {
      const id = keyIdOf(params.id);
      await inTx(deps, (tx) => deleteGpgKey(tx, doerOf(caller), id));
      return noContent();
    },
  }),
  route({
    method: 'get', path: '/users/{username}/gpg_keys', operationId: 'userListGPGKeys', summary: "List the given user's GPG keys", tag: 'user',
    ...read, paginated: true, responses: { 200: 'GPGKeyList', 404: 'notFound' },
    handle: async (ctx) => listKeys(ctx, await loadUser(ctx.deps, ctx.caller, ctx.params.username)),
  }),
  route({
    method: 'get', path: '/user/gpg_key_token', operationId: 'getVerificationToken', summary: 'Get a Token to verify', tag: 'user',
    ...read, responses: { 200: 'string', 404: 'notFound' },
    handle: async ({ caller }) => ({
      status: 200,
      content: verificationToken(doerOf(caller), 1),
      headers: { 'Content-Type': 'text/plain; charset=utf-8' },
    }),
  }),
  route({
    method: 'post', path: '/user/gpg_key_verify', operationId: 'userVerifyGPGKey', summary: 'Verify a GPG key', tag: 'user',
    ...write, body: verifyBody, responses: { 201: 'GPGKey', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, caller, body }) => {
      const key = await inTx(deps, (tx) => verifyGpgKey(tx, doerOf(caller), body.key_id, body.armored_signature));
      return created(renderGpgKey(key));
    },
  }),
];
