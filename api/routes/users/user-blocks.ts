import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { notFound } from '../../../db/errors.js';
import { blockUser, isBlocked, listBlocked, unblockUser } from '../../../db/models/users/blocks.js';
import { findUserByName } from '../../../db/models/users/users.js';
import type { UserRow } from '../../../db/models/users/user-row.js';
import type { Deps } from '../../deps.js';
import { noContent, route } from '../../http/route.js';
import { renderUser } from '../../render/user.js';

const blockQuery = z.object({ note: z.string().max(255).optional() });

/** Gitea's GetUserByName: any account by name, organizations included (blocking one is then refused with 422). */
async function blockeeOf(deps: Deps, name: string): Promise<UserRow> {
  const user = await findUserByName(deps.db, name);
  if (!user) throw notFound(`user ${name} does not exist`);
  return user;
}

export const userBlockRoutes = [
  route({
    method: 'get', path: '/user/blocks', operationId: 'userListBlocks', summary: 'List users blocked by the authenticated user', tag: 'user',
    scope: 'read:user', signedIn: true, paginated: true, responses: { 200: 'UserList' },
    handle: async ({ deps, doer, page, list }) => {
      const { users, total } = await listBlocked(deps.db, doer.id, page);
      return list(users.map((user) => renderUser(user, doer, deps.config)), total);
    },
  }),
  route({
    method: 'get', path: '/user/blocks/{username}', operationId: 'userCheckUserBlock', summary: 'Check if a user is blocked by the authenticated user', tag: 'user',
    scope: 'read:user', signedIn: true, responses: { 204: 'empty', 404: 'notFound' },
    handle: async ({ deps, doer, params }) => {
      const blockee = await blockeeOf(deps, params.username);
      if (!(await isBlocked(deps.db, doer.id, blockee.id))) throw notFound();
      return noContent();
    },
  }),
  route({
    method: 'put', path: '/user/blocks/{username}', operationId: 'userBlockUser', summary: 'Block a user', tag: 'user',
    scope: 'write:user', signedIn: true, query: blockQuery, responses: { 204: 'empty', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, doer, params, query }) => {
      const blockee = await blockeeOf(deps, params.username);
      await inTx(deps, (tx) => blockUser(tx, doer, doer, blockee, query.note ?? ''));
      return noContent();
    },
  }),
  route({
    method: 'delete', path: '/user/blocks/{username}', operationId: 'userUnblockUser', summary: 'Unblock a user', tag: 'user',
    scope: 'write:user', signedIn: true, responses: { 204: 'empty', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, doer, params }) => {
      const blockee = await blockeeOf(deps, params.username);
      await inTx(deps, (tx) => unblockUser(tx, doer, doer, blockee));
      return noContent();
    },
  }),
];
