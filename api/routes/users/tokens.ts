import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { forbidden } from '../../../db/errors.js';
import { createToken, deleteToken, listTokens } from '../../../db/models/users/tokens.js';
import { getIndividualByName } from '../../../db/models/users/users.js';
import type { UserRow } from '../../../db/models/users/user-row.js';
import type { Deps } from '../../deps.js';
import { created, noContent, route } from '../../http/route.js';
import { renderAccessToken } from '../../render/user.js';

const createTokenBody = z.object({ name: z.string(), scopes: z.array(z.string()).default([]) });

/** reqSelfOrAdmin: administrators manage anyone's tokens; others only their own. */
async function tokenOwner(deps: Deps, doer: UserRow, name: string): Promise<UserRow> {
  const owner = await getIndividualByName(deps.db, name);
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
    handle: async ({ deps, doer, params, page, list }) => {
      const owner = await tokenOwner(deps, doer, params.username);
      const { tokens, total } = await listTokens(deps.db, owner.id, page);
      return list(tokens.map((t) => renderAccessToken(t)), total);
    },
  }),
  route({
    method: 'post', path: '/users/{username}/tokens', operationId: 'userCreateToken', summary: 'Create an access token', tag: 'user',
    ...guards, body: createTokenBody, responses: { 201: 'AccessToken', 400: 'error', 403: 'forbidden' },
    handle: async ({ deps, doer, params, body }) => {
      const owner = await tokenOwner(deps, doer, params.username);
      const { row, token } = await inTx(deps, (tx) => createToken(tx, owner, body));
      return created(renderAccessToken(row, token));
    },
  }),
  route({
    method: 'delete', path: '/users/{username}/tokens/{token}', operationId: 'userDeleteAccessToken', summary: 'delete an access token', tag: 'user',
    ...guards, responses: { 204: 'empty', 403: 'forbidden', 404: 'notFound', 422: 'error' },
    handle: async ({ deps, doer, params }) => {
      const owner = await tokenOwner(deps, doer, params.username);
      await inTx(deps, (tx) => deleteToken(tx, owner.id, params.token));
      return noContent();
    },
  }),
];
