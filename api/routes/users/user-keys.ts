import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { notFound } from '../../../db/errors.js';
import { addPublicKey, deletePublicKey, getPublicKey, listPublicKeys, type OwnedPublicKey } from '../../../db/models/users/public-keys.js';
import { getIndividualByName } from '../../../db/models/users/users.js';
import type { UserRow } from '../../../db/models/users/user-row.js';
import { doerOf, loadUser } from '../../context/user.js';
import { pageOf, paged } from '../../http/pagination.js';
import { created, noContent, ok, route, type Context, type Reply } from '../../http/route.js';
import { renderPublicKey } from '../../render/public-key.js';

const createKeyBody = z.object({
  title: z.string().trim().min(1).max(255),
  key: z.string().min(1).max(16384),
  read_only: z.boolean().optional(),
});
type CreateKeyBody = z.infer<typeof createKeyBody>;
const listQuery = z.object({ fingerprint: z.string().optional() });
type ListQuery = z.infer<typeof listQuery> & { page?: number; limit?: number };


function keyIdOf(raw: string): number {
  if (!/^\d{1,15}$/.test(raw)) throw notFound();
  return Number(raw);
}

/**
 * Gitea's listPublicKeys: a fingerprint finds that one key (among `owner`'s keys when the path names a user, among
 * everyone's on /user/keys); otherwise the owner's keys, paginated.
 */
async function listKeys(ctx: Context<unknown, ListQuery>, owner: UserRow, ownerNamed: boolean): Promise<Reply> {
  const render = ({ keys }: { keys: OwnedPublicKey[] }): unknown[] => keys.map((key) => renderPublicKey(key, ctx.caller.user, ctx.deps.config));
  const { fingerprint } = ctx.query;
  if (fingerprint) {
    const found = await listPublicKeys(ctx.deps.db, { fingerprint, ...(ownerNamed ? { ownerId: owner.id } : {}) }, { limit: 1, offset: 0 });
    return { status: 200, body: render(found), headers: { 'X-Total-Count': String(found.total) } };
  }
  const page = pageOf(ctx.query);
  const listed = await listPublicKeys(ctx.deps.db, { ownerId: owner.id }, page);
  return paged(render(listed), listed.total, page, ctx.url);
}

async function createKey(ctx: Context<CreateKeyBody, unknown>, owner: UserRow): Promise<Reply> {
  const row = await inTx(ctx.deps, (tx) => addPublicKey(tx, owner, doerOf(ctx.caller), ctx.body));
  return created(renderPublicKey({ key: row, owner }, ctx.caller.user, ctx.deps.config));
}

const userRead = { scope: 'read:user', signedIn: true } as const;
const userWrite = { scope: 'write:user', signedIn: true } as const;
const adminWrite = { scope: 'write:admin', admin: true } as const;

export const userKeyRoutes = [
  route({
    method: 'get', path: '/user/keys', operationId: 'userCurrentListKeys', summary: "List the authenticated user's public keys", tag: 'user',
    ...userRead, paginated: true, query: listQuery, responses: { 200: 'PublicKeyList' },
    handle: (ctx) => listKeys(ctx, doerOf(ctx.caller), false),
  }),
  route({
    method: 'post', path: '/user/keys', operationId: 'userCurrentPostKey', summary: 'Create a public key', tag: 'user',
    ...userWrite, body: createKeyBody, responses: { 201: 'PublicKey', 422: 'validationError' },
    handle: (ctx) => createKey(ctx, doerOf(ctx.caller)),
  }),
  route({
    method: 'get', path: '/user/keys/{id}', operationId: 'userCurrentGetKey', summary: 'Get a public key', tag: 'user',
    ...userRead, responses: { 200: 'PublicKey', 404: 'notFound' },
    handle: async ({ deps, caller, params }) => ok(renderPublicKey(await getPublicKey(deps.db, keyIdOf(params.id)), caller.user, deps.config)),
  }),
  route({
    method: 'delete', path: '/user/keys/{id}', operationId: 'userCurrentDeleteKey', summary: 'Delete a public key', tag: 'user',
    ...userWrite, responses: { 204: 'empty', 403: 'forbidden', 404: 'notFound' },
    handle: async ({ deps, caller, params }) => {
      const id = keyIdOf(params.id);
      const doer = doerOf(caller);
      await inTx(deps, (tx) => deletePublicKey(tx, doer, doer, id));
      return noContent();
    },
  }),
  route({
    method: 'get', path: '/users/{username}/keys', operationId: 'userListKeys', summary: "List the given user's public keys", tag: 'user',
    ...userRead, paginated: true, query: listQuery, responses: { 200: 'PublicKeyList', 404: 'notFound' },
    handle: async (ctx) => listKeys(ctx, await loadUser(ctx.deps, ctx.caller, ctx.params.username), true),
  }),
  route({
    method: 'post', path: '/admin/users/{username}/keys', operationId: 'adminCreatePublicKey', summary: 'Add a public key on behalf of a user', tag: 'admin',
    ...adminWrite, body: createKeyBody, responses: { 201: 'PublicKey', 403: 'forbidden', 404: 'notFound', 422: 'validationError' },
    handle: async (ctx) => createKey(ctx, await getIndividualByName(ctx.deps.db, ctx.params.username)),
  }),
  route({
    method: 'delete', path: '/admin/users/{username}/keys/{id}', operationId: 'adminDeleteUserPublicKey', summary: "Delete a user's public key", tag: 'admin',
    ...adminWrite, responses: { 204: 'empty', 403: 'forbidden', 404: 'notFound' },
    handle: async ({ deps, caller, params }) => {
      const owner = await getIndividualByName(deps.db, params.username);
      const id = keyIdOf(params.id);
      await inTx(deps, (tx) => deletePublicKey(tx, owner, doerOf(caller), id));
      return noContent();
    },
  }),
];
