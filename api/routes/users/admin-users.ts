import { z } from 'zod';
import { int32, int64, queryId } from '../../http/fields.js';
import { inTx } from '../../../db/data-source.js';
import { invalid } from '../../../db/errors.js';
import { searchAllEmails } from '../../../db/models/users/emails.js';
import { createUser, deleteUser, editUser, getIndividualByName, renameUser, searchUsers } from '../../../db/models/users/users.js';
import { visibilities } from '../../../db/models/users/user-row.js';
import { created, noContent, ok, route } from '../../http/route.js';
import { renderEmail, renderUser } from '../../render/user.js';

const visibility = z.enum(visibilities);
const createUserBody = z.object({
  username: z.string().min(1).max(40),
  email: z.string().min(1).max(254),
  password: z.string().max(255).optional(),
  full_name: z.string().max(100).optional(),
  login_name: z.string().max(255).optional(),
  source_id: int64().min(0).optional(),
  must_change_password: z.boolean().optional(),
  restricted: z.boolean().optional(),
  send_notify: z.boolean().optional(),
  visibility: visibility.optional(),
  created_at: z.iso.datetime({ offset: true }).optional(),
});
const editUserBody = z.object({
  email: z.string().max(254).optional(),
  full_name: z.string().max(100).optional(),
  login_name: z.string().max(255).optional(),
  source_id: int64().min(0).optional(),
  password: z.string().max(255).optional(),
  must_change_password: z.boolean().optional(),
  website: z.string().max(255).optional(),
  location: z.string().max(50).optional(),
  description: z.string().max(255).optional(),
  active: z.boolean().optional(),
  admin: z.boolean().optional(),
  allow_git_hook: z.boolean().optional(),
  allow_import_local: z.boolean().optional(),
  allow_create_organization: z.boolean().optional(),
  max_repo_creation: int32().optional(),
  prohibit_login: z.boolean().optional(),
  restricted: z.boolean().optional(),
  visibility: visibility.optional(),
});
const renameBody = z.object({ new_username: z.string().min(1).max(40) });
const searchQuery = z.object({ source_id: queryId().optional(), login_name: z.string().optional() });
const emailSearchQuery = z.object({ q: z.string().optional() });

const admin = { scope: 'write:admin', admin: true } as const;
const adminRead = { scope: 'read:admin', admin: true } as const;

export const adminUserRoutes = [
  route({
    method: 'post', path: '/admin/users', operationId: 'adminCreateUser', summary: 'Create a user', tag: 'admin',
    ...admin, body: createUserBody, responses: { 201: 'User', 400: 'error', 403: 'forbidden', 422: 'validationError' },
    handle: async ({ body, deps, doer }) => {
      const { send_notify, created_at, ...input } = body;
      const options = {
        passwordAlgo: deps.config.security.passwordHashAlgo,
        notify: send_notify ? { rootUrl: deps.config.rootUrl } : undefined,
      };
      const user = await inTx(deps, (tx) =>
        createUser(tx, { ...input, must_change_password: input.must_change_password ?? true, created_at: created_at ? new Date(created_at) : undefined }, options),
      );
      return created(renderUser(user, doer, deps.config));
    },
  }),
  route({
    method: 'get', path: '/admin/users', operationId: 'adminSearchUsers', summary: 'Search users according filter conditions', tag: 'admin',
    ...adminRead, query: searchQuery, paginated: true, responses: { 200: 'UserList', 403: 'forbidden' },
    handle: async ({ deps, doer, query, page, list }) => {
      const { users, total } = await searchUsers(deps.db, {
        sourceId: query.source_id, loginName: query.login_name, visible: ['public', 'limited', 'private'], ...page,
      });
      return list(users.map((u) => renderUser(u, doer, deps.config)), total);
    },
  }),
  route({
    method: 'patch', path: '/admin/users/{username}', operationId: 'adminEditUser', summary: 'Edit an existing user', tag: 'admin',
    ...admin, body: editUserBody, responses: { 200: 'User', 400: 'error', 403: 'forbidden', 422: 'validationError' },
    handle: async ({ body, deps, doer, params }) => {
      const user = await inTx(deps, async (tx) =>
        editUser(tx, await getIndividualByName(tx, params.username), body, deps.config.security.passwordHashAlgo),
      );
      return ok(renderUser(user, doer, deps.config));
    },
  }),
  route({
    method: 'delete', path: '/admin/users/{username}', operationId: 'adminDeleteUser', summary: 'Delete a user', tag: 'admin',
    ...admin, query: z.object({ purge: z.enum(['true', 'false']).transform((v) => v === 'true').optional() }),
    responses: { 204: 'empty', 403: 'forbidden', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, doer, params, query }) => {
      await inTx(deps, async (tx) => {
        const user = await getIndividualByName(tx, params.username);
        if (user.id === doer.id) throw invalid('you cannot delete yourself');
        await deleteUser(tx, user, { ctx: deps, doer, purge: query.purge ?? false });
      });
      return noContent();
    },
  }),
  route({
    method: 'post', path: '/admin/users/{username}/rename', operationId: 'adminRenameUser', summary: 'Rename a user', tag: 'admin',
    ...admin, body: renameBody, responses: { 204: 'empty', 403: 'forbidden', 422: 'validationError' },
    handle: async ({ body, deps, params }) => {
      await inTx(deps, async (tx) => renameUser(tx, await getIndividualByName(tx, params.username), body.new_username));
      return noContent();
    },
  }),
  route({
    method: 'get', path: '/admin/emails', operationId: 'adminGetAllEmails', summary: 'List all emails', tag: 'admin',
    ...adminRead, paginated: true, responses: { 200: 'EmailList', 403: 'forbidden' },
    handle: async ({ deps, page, list }) => {
      const { emails, total } = await searchAllEmails(deps.db, page);
      return list(emails.map(renderEmail), total);
    },
  }),
  route({
    method: 'get', path: '/admin/emails/search', operationId: 'adminSearchEmails', summary: 'Search all emails', tag: 'admin',
    ...adminRead, query: emailSearchQuery, paginated: true, responses: { 200: 'EmailList', 403: 'forbidden' },
    handle: async ({ deps, query, page, list }) => {
      const { emails, total } = await searchAllEmails(deps.db, { q: query.q, ...page });
      return list(emails.map(renderEmail), total);
    },
  }),
];
