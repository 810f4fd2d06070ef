import { z } from 'zod';
import { queryId } from '../../http/fields.js';
import { inTx } from '../../../db/data-source.js';
import { addEmails, deleteEmails, listEmails } from '../../../db/models/users/emails.js';
import { follow, isFollowing, listFollows, unfollow } from '../../../db/models/users/follows.js';
import { searchUsers, updateSettings, visibleTo } from '../../../db/models/users/users.js';
import { notFound } from '../../../db/errors.js';
import type { UserRow } from '../../../db/models/users/user-row.js';
import { loadUser } from '../../context/user.js';
import type { Deps } from '../../deps.js';
import { created, noContent, ok, route } from '../../http/route.js';
import { renderEmail, renderUser, renderUserSettings, type ApiUser } from '../../render/user.js';

const emailsBody = z.object({ emails: z.array(z.string()).default([]) });
const settingsBody = z.object({
  full_name: z.string().max(100).optional(),
  website: z.string().max(255).optional(),
  description: z.string().max(255).optional(),
  location: z.string().max(50).optional(),
  language: z.string().max(10).optional(),
  theme: z.string().max(30).optional(),
  diff_view_style: z.enum(['', 'unified', 'split']).optional(),
  hide_email: z.boolean().optional(),
  hide_activity: z.boolean().optional(),
});

const renderUsers = (deps: Deps, users: UserRow[], viewer: UserRow | null): ApiUser[] => users.map((u) => renderUser(u, viewer, deps.config));

export const userRoutes = [
  route({
    method: 'get', path: '/user', operationId: 'userGetCurrent', summary: 'Get the authenticated user', tag: 'user',
    scope: 'read:user', signedIn: true, responses: { 200: 'User' },
    handle: async ({ doer, deps }) => ok(renderUser(doer, doer, deps.config)),
  }),
  route({
    method: 'get', path: '/users/search', operationId: 'userSearch', summary: 'Search for users', tag: 'user',
    scope: 'read:user', paginated: true,
    query: z.object({ q: z.string().optional(), uid: queryId().optional() }),
    responses: { 200: 'UserSearchResults' },
    handle: async ({ deps, doer, query, page, list }) => {
      const { users, total } = await searchUsers(deps.db, { q: query.q, uid: query.uid, visible: visibleTo(doer), ...page });
      const reply = list([], total);
      return { ...reply, body: { ok: true, data: renderUsers(deps, users, doer) } };
    },
  }),
  route({
    method: 'get', path: '/users/{username}', operationId: 'userGet', summary: 'Get a user', tag: 'user',
    scope: 'read:user', responses: { 200: 'User', 404: 'notFound' },
    handle: async ({ caller, doer, deps, params }) => ok(renderUser(await loadUser(deps, caller, params.username), doer, deps.config)),
  }),
  route({
    method: 'get', path: '/user/settings', operationId: 'getUserSettings', summary: 'Get user settings', tag: 'user',
    scope: 'read:user', signedIn: true, responses: { 200: 'UserSettings' },
    handle: async ({ doer }) => ok(renderUserSettings(doer)),
  }),
  route({
    method: 'patch', path: '/user/settings', operationId: 'updateUserSettings', summary: 'Update user settings', tag: 'user',
    scope: 'write:user', signedIn: true, body: settingsBody, responses: { 200: 'UserSettings' },
    handle: async ({ doer, deps, body }) => ok(renderUserSettings(await inTx(deps, (tx) => updateSettings(tx, doer, body)))),
  }),
  route({
    method: 'get', path: '/user/emails', operationId: 'userListEmails', summary: "List the authenticated user's email addresses", tag: 'user',
    scope: 'read:user', signedIn: true, responses: { 200: 'EmailList' },
    handle: async ({ doer, deps }) => ok((await listEmails(deps.db, doer.id)).map(renderEmail)),
  }),
  route({
    method: 'post', path: '/user/emails', operationId: 'userAddEmail', summary: 'Add email addresses', tag: 'user',
    scope: 'write:user', signedIn: true, body: emailsBody, responses: { 201: 'EmailList', 422: 'validationError' },
    handle: async ({ doer, deps, body }) => created((await inTx(deps, (tx) => addEmails(tx, doer.id, body.emails))).map(renderEmail)),
  }),
  route({
    method: 'delete', path: '/user/emails', operationId: 'userDeleteEmail', summary: 'Delete email addresses', tag: 'user',
    scope: 'write:user', signedIn: true, body: emailsBody, responses: { 204: 'empty', 404: 'notFound' },
    handle: async ({ doer, deps, body }) => {
      await inTx(deps, (tx) => deleteEmails(tx, doer.id, body.emails));
      return noContent();
    },
  }),
  route({
    method: 'get', path: '/user/followers', operationId: 'userCurrentListFollowers', summary: "List the authenticated user's followers", tag: 'user',
    scope: 'read:user', signedIn: true, paginated: true, responses: { 200: 'UserList' },
    handle: async ({ deps, doer, page, list }) => {
      const { users, total } = await listFollows(deps.db, doer.id, 'followers', page);
      return list(renderUsers(deps, users, doer), total);
    },
  }),
  route({
    method: 'get', path: '/user/following', operationId: 'userCurrentListFollowing', summary: 'List the users that the authenticated user is following', tag: 'user',
    scope: 'read:user', signedIn: true, paginated: true, responses: { 200: 'UserList' },
    handle: async ({ deps, doer, page, list }) => {
      const { users, total } = await listFollows(deps.db, doer.id, 'following', page);
      return list(renderUsers(deps, users, doer), total);
    },
  }),
  route({
    method: 'get', path: '/user/following/{username}', operationId: 'userCurrentCheckFollowing', summary: 'Check whether a user is followed by the authenticated user', tag: 'user',
    scope: 'read:user', signedIn: true, responses: { 204: 'empty', 404: 'notFound' },
    handle: async ({ caller, doer, deps, params }) => {
      const target = await loadUser(deps, caller, params.username);
      if (!(await isFollowing(deps.db, doer.id, target.id))) throw notFound();
      return noContent();
    },
  }),
  route({
    method: 'put', path: '/user/following/{username}', operationId: 'userCurrentPutFollow', summary: 'Follow a user', tag: 'user',
    scope: 'write:user', signedIn: true, responses: { 204: 'empty', 404: 'notFound' },
    handle: async ({ caller, doer, deps, params }) => {
      const target = await loadUser(deps, caller, params.username);
      await inTx(deps, (tx) => follow(tx, doer, target));
      return noContent();
    },
  }),
  route({
    method: 'delete', path: '/user/following/{username}', operationId: 'userCurrentDeleteFollow', summary: 'Unfollow a user', tag: 'user',
    scope: 'write:user', signedIn: true, responses: { 204: 'empty', 404: 'notFound' },
    handle: async ({ caller, doer, deps, params }) => {
      const target = await loadUser(deps, caller, params.username);
      await inTx(deps, (tx) => unfollow(tx, doer, target));
      return noContent();
    },
  }),
  route({
    method: 'get', path: '/users/{username}/followers', operationId: 'userListFollowers', summary: "List the given user's followers", tag: 'user',
    scope: 'read:user', paginated: true, responses: { 200: 'UserList', 404: 'notFound' },
    handle: async ({ deps, caller, doer, params, page, list }) => {
      const user = await loadUser(deps, caller, params.username);
      const { users, total } = await listFollows(deps.db, user.id, 'followers', page);
      return list(renderUsers(deps, users, doer), total);
    },
  }),
  route({
    method: 'get', path: '/users/{username}/following', operationId: 'userListFollowing', summary: 'List the users that the given user is following', tag: 'user',
    scope: 'read:user', paginated: true, responses: { 200: 'UserList', 404: 'notFound' },
    handle: async ({ deps, caller, doer, params, page, list }) => {
      const user = await loadUser(deps, caller, params.username);
      const { users, total } = await listFollows(deps.db, user.id, 'following', page);
      return list(renderUsers(deps, users, doer), total);
    },
  }),
  route({
    method: 'get', path: '/users/{username}/following/{target}', operationId: 'userCheckFollowing', summary: 'Check if one user is following another user', tag: 'user',
    scope: 'read:user', responses: { 204: 'empty', 404: 'notFound' },
    handle: async ({ caller, deps, params }) => {
      const user = await loadUser(deps, caller, params.username);
      const target = await loadUser(deps, caller, params.target);
      if (!(await isFollowing(deps.db, user.id, target.id))) throw notFound();
      return noContent();
    },
  }),
];
