import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { forbidden } from '../../../db/errors.js';
import { createToken, deleteToken, listTokens } from '../../../db/models/users/tokens.js';
import { getIndividualByName } from '../../../db/models/users/users.js';
import type { UserRow } from '../../../db/models/users/user-row.js';
import { doerOf } from '../../context/user.js';
import { pageOf, paged } from '../../http/pagination.js';
import { created, noContent, route, type Context } from '../../http/route.js';
import { renderAccessToken } from '../../render/user.js';

const createTokenBody = z.object({ name: z.string(), scopes: z.array(z.string()).default([]) });

/** reqSelfOrAdmin: administrators manage anyone's tokens; others only their own. */
async function tokenOwner(ctx: Context<unknown, unknown>): Promise<UserRow> {
  const doer = doerOf(ctx.caller);
  const owner = await getIndividualByName(ctx.deps.db, ctx.params.username);
  if (!doer.is_admin && doer.id !== owner.id) {
    throw forbidden('doer should be the site admin or be same as the contextUser');
  }
  return owner;
}

const guards = { scope: 'write:user', basicOnly: true } as const;

export const tokenRoutes = [
  route({
    method: 'get', path: '/users/{username}/tokens', operationId: 'userGetTokens', summary: "List the authenticated user's access tokens", tag: 'user',
    ...guards, scope: 'read:user', paginated: true, responses: { 200: 'AccessTokenList', 403: 'forbidden' },
    handle: async (ctx) => {
      const owner = await tokenOwner(ctx);
      const page = pageOf(ctx.query as { page?: number; limit?: number });
      const { tokens, total } = await listTokens(ctx.deps.db, owner.id, page);
      return paged(tokens.map((t) => renderAccessToken(t)), total, page, ctx.url);
    },
  }),
  route({
    method: 'post', path: '/users/{username}/tokens', operationId: 'userCreateToken', summary: 'Create an access token', tag: 'user',
    ...guards, body: createTokenBody, responses: { 201: 'AccessToken', 400: 'error', 403: 'forbidden' },
    handle: async (ctx) => {
      const owner = await tokenOwner(ctx);
      const { row, token } = await inTx(ctx.deps, (tx) => createToken(tx, owner, ctx.body));
      return created(renderAccessToken(row, token));
    },
  }),
  route({
    method: 'delete', path: '/users/{username}/tokens/{token}', operationId: 'userDeleteAccessToken', summary: 'delete an access token', tag: 'user',
    ...guards, responses: { 204: 'empty', 403: 'forbidden', 404: 'notFound', 422: 'error' },
    handle: async (ctx) => {
      const owner = await tokenOwner(ctx);
      await inTx(ctx.deps, (tx) => deleteToken(tx, owner.id, ctx.params.token));
      return noContent();
    },
  }),
];
