import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { decodeBase64Strict } from '../../../db/encoding.js';
import { badRequest, forbidden, invalid, notFound } from '../../../db/errors.js';
import { blockUser, isBlocked, listBlocked, unblockUser } from '../../../db/models/users/blocks.js';
import {
  canSeeOrg, createOrganization, createOrgRepository, deleteAvatar, deleteOrganization, editOrganization, isOrgMember,
  isPublicMember, listMembers, listOrgFeed, listOrgRepos, listOrgs, listUserOrgs, orgPermissionsOf, removeOrgMember,
  setMembershipVisibility, updateAvatar, type OrgRow,
} from '../../../db/models/orgs/orgs.js';
import { findUserByName, getIndividualByName } from '../../../db/models/users/users.js';
import { visibilities, type UserRow } from '../../../db/models/users/user-row.js';
import { scopeAllows, type Scope } from '../../../db/scopes.js';
import type { Caller } from '../../auth/caller.js';
import type { Deps } from '../../deps.js';
import { created, noContent, ok, route, type Reply } from '../../http/route.js';
import { loadUser } from '../../context/user.js';
import { renderOrganization, renderOrgPermissions, type ApiOrganization } from '../../render/org.js';
import { renderRepository } from '../../render/repository.js';
import { renderUser, type ApiUser } from '../../render/user.js';
import { renderRepos } from '../../context/repo.js';
import { loadRepoView } from '../../../db/views/repo.js';
import { renderFeed } from '../activity/activity-feeds.js';
import { createRepoBody } from '../repos/repos.js';

/** Gitea asks some routes for two token scope categories; the route declaration carries the first, this the others. */
export function requireScopes(caller: Caller, ...scopes: Scope[]): void {
  if (caller.method !== 'token' && caller.method !== 'query') return;
  const missing = scopes.filter((scope) => !scopeAllows(caller.scope, scope));
  if (missing.length) throw forbidden(`token does not have at least one of required scope(s): [${missing.join(' ')}]`);
}

const visibility = z.enum(visibilities);
const createOrgBody = z.object({
  username: z.string().min(1).max(40),
  full_name: z.string().max(100).optional(),
  email: z.string().max(255).optional(),
  description: z.string().max(255).optional(),
  website: z.string().max(255).optional(),
  location: z.string().max(50).optional(),
  visibility: z.union([visibility, z.literal('')]).optional().transform((v) => v || undefined),
  repo_admin_change_team_access: z.boolean().optional(),
});
const editOrgBody = createOrgBody.omit({ username: true });
const avatarBody = z.object({ image: z.string() });
const feedQuery = z.object({ date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date: YYYY-MM-DD').optional() });
const blockQuery = z.object({ note: z.string().max(255).optional() });

type CreateOrgBody = z.infer<typeof createOrgBody>;

const renderOrgs = (deps: Deps, orgs: OrgRow[], viewer: UserRow | null): ApiOrganization[] =>
  orgs.map((org) => renderOrganization(org, viewer, deps.config));

const renderUsers = (deps: Deps, users: UserRow[], viewer: UserRow | null): ApiUser[] =>
  users.map((user) => renderUser(user, viewer, deps.config));

async function createOrg(deps: Deps, owner: UserRow, doer: UserRow, body: CreateOrgBody): Promise<Reply> {
  const org = await inTx(deps, (tx) => createOrganization(tx, owner, body, doer));
  return created(renderOrganization(org, doer, deps.config));
}

/** createOrgRepo: owners, members of a team that may create repositories, and administrators. */
async function createOrgRepo(deps: Deps, org: OrgRow, doer: UserRow, body: z.infer<typeof createRepoBody>): Promise<Reply> {
  if (!doer.is_admin && !(await orgPermissionsOf(deps.db, org, doer)).canCreateRepository) {
    throw forbidden('Given user is not allowed to create repository in organization.');
  }
  if (body.gitignores || body.license || body.issue_labels) {
    throw invalid('gitignores, license and issue_labels templates are not available on this server');
  }
  const repo = await inTx(deps, (tx) => createOrgRepository(tx, deps, org, doer, body));
  return created(renderRepository(await loadRepoView(deps.db, repo, doer), doer, deps.config));
}

function decodeImage(text: string): Buffer {
  const image = decodeBase64Strict(text);
  if (!image) throw badRequest('illegal base64 data in image');
  return image;
}

const admin = { scope: 'write:admin', admin: true } as const;
const orgRead = { scope: 'read:organization' } as const;
const orgWrite = { scope: 'write:organization', signedIn: true } as const;

/** Members and site administrators see every member of an organization; everyone else its public members only. */
async function seesEveryMember(deps: Deps, org: { id: number }, viewer: UserRow | null): Promise<boolean> {
  return viewer !== null && (viewer.is_admin || (await isOrgMember(deps.db, org.id, viewer.id)));
}

export const orgRoutes = [
  route({
    method: 'get', path: '/orgs', operationId: 'orgGetAll', summary: 'Get list of organizations', tag: 'organization',
    ...orgRead, paginated: true, responses: { 200: 'OrganizationList' },
    handle: async ({ deps, doer, page, list }) => {
      const { orgs, total } = await listOrgs(deps.db, doer, page);
      return list(renderOrgs(deps, orgs, doer), total);
    },
  }),
  route({
    method: 'post', path: '/orgs', operationId: 'orgCreate', summary: 'Create an organization', tag: 'organization',
    ...orgWrite, body: createOrgBody, responses: { 201: 'Organization', 403: 'forbidden', 422: 'validationError' },
    handle: async ({ deps, doer, body }) => createOrg(deps, doer, doer, body),
  }),
  route({
    method: 'post', path: '/admin/users/{username}/orgs', operationId: 'adminCreateOrg', summary: 'Create an organization', tag: 'admin',
    ...admin, body: createOrgBody, responses: { 201: 'Organization', 403: 'forbidden', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, doer, body, params }) => createOrg(deps, await getIndividualByName(deps.db, params.username), doer, body),
  }),
  route({
    method: 'get', path: '/admin/orgs', operationId: 'adminGetAllOrgs', summary: 'List all organizations', tag: 'admin',
    scope: 'read:admin', admin: true, paginated: true, responses: { 200: 'OrganizationList', 403: 'forbidden' },
    handle: async ({ deps, doer, page, list }) => {
      const { orgs, total } = await listOrgs(deps.db, doer, page);
      return list(renderOrgs(deps, orgs, doer), total);
    },
  }),
  route({
    method: 'get', path: '/user/orgs', operationId: 'orgListCurrentUserOrgs', summary: "List the current user's organizations", tag: 'organization',
    scope: 'read:organization', signedIn: true, paginated: true, responses: { 200: 'OrganizationList', 404: 'notFound' },
    handle: async ({ deps, caller, doer, page, list }) => {
      requireScopes(caller, 'read:user');
      const { orgs, total } = await listUserOrgs(deps.db, doer, doer, page);
      return list(renderOrgs(deps, orgs, doer), total);
    },
  }),
  route({
    method: 'get', path: '/users/{username}/orgs', operationId: 'orgListUserOrgs', summary: "List a user's organizations", tag: 'organization',
    scope: 'read:organization', signedIn: true, paginated: true, responses: { 200: 'OrganizationList', 404: 'notFound' },
    handle: async ({ deps, caller, doer, params, page, list }) => {
      requireScopes(caller, 'read:user');
      const user = await loadUser(deps, caller, params.username);
      const { orgs, total } = await listUserOrgs(deps.db, user, doer, page);
      return list(renderOrgs(deps, orgs, doer), total);
    },
  }),
  route({
    method: 'get', path: '/users/{username}/orgs/{org}/permissions', operationId: 'orgGetUserPermissions', summary: 'Get user permissions in organization', tag: 'organization',
    scope: 'read:organization', signedIn: true, org: {}, responses: { 200: 'OrganizationPermissions', 403: 'forbidden', 404: 'notFound' },
    handle: async ({ deps, caller, org, params }) => {
      requireScopes(caller, 'read:user');
      const user = await loadUser(deps, caller, params.username);
      if (!(await canSeeOrg(deps.db, user, org))) throw notFound(`organization ${params.org} does not exist`);
      return ok(renderOrgPermissions(await orgPermissionsOf(deps.db, org, user)));
    },
  }),
  route({
    method: 'get', path: '/orgs/{org}', operationId: 'orgGet', summary: 'Get an organization', tag: 'organization',
    ...orgRead, org: {}, responses: { 200: 'Organization', 404: 'notFound' },
    handle: async ({ deps, doer, org }) => ok(renderOrganization(org, doer, deps.config)),
  }),
  route({
    method: 'patch', path: '/orgs/{org}', operationId: 'orgEdit', summary: 'Edit an organization', tag: 'organization',
    ...orgWrite, org: { role: 'owner' }, body: editOrgBody, responses: { 200: 'Organization', 403: 'forbidden', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, doer, org, body }) => ok(renderOrganization(await inTx(deps, (tx) => editOrganization(tx, org, body)), doer, deps.config)),
  }),
  route({
    method: 'delete', path: '/orgs/{org}', operationId: 'orgDelete', summary: 'Delete an organization', tag: 'organization',
    ...orgWrite, org: { role: 'owner' }, responses: { 204: 'empty', 403: 'forbidden', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, doer, org }) => {
      await inTx(deps, (tx) => deleteOrganization(tx, deps, org, doer));
      return noContent();
    },
  }),
  route({
    method: 'get', path: '/orgs/{org}/members', operationId: 'orgListMembers', summary: "List an organization's members", tag: 'organization',
    scope: 'read:organization', signedIn: true, org: {}, paginated: true, responses: { 200: 'UserList', 404: 'notFound' },
    handle: async ({ deps, doer, org, page, list }) => {
      const { users, total } = await listMembers(deps.db, org, !(await seesEveryMember(deps, org, doer)), page);
      return list(renderUsers(deps, users, doer), total);
    },
  }),
  route({
    method: 'get', path: '/orgs/{org}/members/{username}', operationId: 'orgIsMember', summary: 'Check if a user is a member of an organization', tag: 'organization',
    scope: 'read:organization', signedIn: true, org: {},
    responses: { 204: 'user is a member', 303: 'redirection to /orgs/{org}/public_members/{username}', 404: 'user is not a member' },
    handle: async ({ deps, caller, doer, org, params }) => {
      const user = await loadUser(deps, caller, params.username);
      if (doer.is_admin || (await isOrgMember(deps.db, org.id, doer.id))) {
        if (await isOrgMember(deps.db, org.id, user.id)) return noContent();
        throw notFound();
      }
      if (doer.id === user.id) throw notFound();
      const location = `${deps.config.rootUrl}api/v1/orgs/${encodeURIComponent(org.name)}/public_members/${encodeURIComponent(user.name)}`;
      return { status: 303, headers: { Location: location } };
    },
  }),
  route({
    method: 'delete', path: '/orgs/{org}/members/{username}', operationId: 'orgDeleteMember', summary: 'Remove a member from an organization', tag: 'organization',
    ...orgWrite, org: { role: 'owner' }, responses: { 204: 'member removed', 403: 'forbidden', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, doer, org, params }) => {
      const user = await getIndividualByName(deps.db, params.username);
      await inTx(deps, (tx) => removeOrgMember(tx, org, user, doer));
      return noContent();
    },
  }),
  route({
    method: 'get', path: '/orgs/{org}/public_members', operationId: 'orgListPublicMembers', summary: "List an organization's public members", tag: 'organization',
    ...orgRead, org: {}, paginated: true, responses: { 200: 'UserList', 404: 'notFound' },
    handle: async ({ deps, doer, org, page, list }) => {
      const { users, total } = await listMembers(deps.db, org, !(await seesEveryMember(deps, org, doer)), page);
      return list(renderUsers(deps, users, doer), total);
    },
  }),
  route({
    method: 'get', path: '/orgs/{org}/public_members/{username}', operationId: 'orgIsPublicMember', summary: 'Check if a user is a public member of an organization', tag: 'organization',
    ...orgRead, org: {}, responses: { 204: 'user is a public member', 404: 'user is not a public member' },
    handle: async ({ deps, caller, org, params }) => {
      const user = await loadUser(deps, caller, params.username);
      if (!(await isPublicMember(deps.db, org.id, user.id))) throw notFound();
      return noContent();
    },
  }),
  ...(['put', 'delete'] as const).map((method) =>
    route({
      method, path: '/orgs/{org}/public_members/{username}',
      operationId: method === 'put' ? 'orgPublicizeMember' : 'orgConcealMember',
      summary: method === 'put' ? "Publicize a user's membership" : "Conceal a user's membership", tag: 'organization',
      ...orgWrite, org: { role: 'member' }, responses: { 204: method === 'put' ? 'membership publicized' : 'empty', 403: 'forbidden', 404: 'notFound' },
      handle: async ({ deps, caller, doer, org, params }) => {
        const user = await loadUser(deps, caller, params.username);
        if (user.id !== doer.id) throw forbidden(method === 'put' ? 'Cannot publicize another member' : 'Cannot conceal another member');
        await inTx(deps, (tx) => setMembershipVisibility(tx, org, user, method === 'put'));
        return noContent();
      },
    }),
  ),
  route({
    method: 'get', path: '/orgs/{org}/repos', operationId: 'orgListRepos', summary: "List an organization's repos", tag: 'organization',
    ...orgRead, org: {}, paginated: true, responses: { 200: 'RepositoryList', 404: 'notFound' },
    handle: async ({ deps, doer, org, page, list }) => {
      const { repos, total } = await listOrgRepos(deps.db, org, doer, page);
      return list(await renderRepos(deps, repos, doer), total);
    },
  }),
  route({
    method: 'post', path: '/orgs/{org}/repos', operationId: 'createOrgRepo', summary: 'Create a repository in an organization', tag: 'organization',
    ...orgWrite, org: {}, body: createRepoBody,
    responses: { 201: 'Repository', 400: 'error', 403: 'forbidden', 404: 'notFound', 409: 'error', 422: 'validationError' },
    handle: ({ deps, doer, org, body }) => createOrgRepo(deps, org, doer, body),
  }),
  route({
    method: 'post', path: '/org/{org}/repos', operationId: 'createOrgRepoDeprecated', summary: 'Create a repository in an organization', tag: 'organization',
    deprecated: true, ...orgWrite, org: {}, body: createRepoBody,
    responses: { 201: 'Repository', 403: 'forbidden', 404: 'notFound', 409: 'error', 422: 'validationError' },
    handle: ({ deps, caller, doer, org, body }) => {
      requireScopes(caller, 'write:repository');
      return createOrgRepo(deps, org, doer, body);
    },
  }),
  route({
    method: 'post', path: '/orgs/{org}/avatar', operationId: 'orgUpdateAvatar', summary: 'Update Avatar', tag: 'organization',
    ...orgWrite, org: { role: 'owner' }, body: avatarBody,
    responses: { 204: 'empty', 400: 'error', 403: 'forbidden', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, org, body }) => {
      const image = decodeImage(body.image);
      await inTx(deps, (tx) => updateAvatar(tx, deps, org, image));
      return noContent();
    },
  }),
  route({
    method: 'delete', path: '/orgs/{org}/avatar', operationId: 'orgDeleteAvatar', summary: 'Delete Avatar', tag: 'organization',
    ...orgWrite, org: { role: 'owner' }, responses: { 204: 'empty', 403: 'forbidden', 404: 'notFound' },
    handle: async ({ deps, org }) => {
      await inTx(deps, (tx) => deleteAvatar(tx, deps, org));
      return noContent();
    },
  }),
  route({
    method: 'get', path: '/orgs/{org}/activities/feeds', operationId: 'orgListActivityFeeds', summary: "List an organization's activity feeds", tag: 'organization',
    ...orgRead, org: {}, query: feedQuery, paginated: true, responses: { 200: 'ActivityFeedsList', 404: 'notFound' },
    handle: async ({ deps, doer, org, query, page, list }) => {
      const includePrivate = doer !== null && (doer.is_admin || (await isOrgMember(deps.db, org.id, doer.id)));
      const { entries, total } = await listOrgFeed(deps.db, { orgId: org.id, includePrivate, day: query.date }, page);
      return list(await renderFeed(deps, entries, doer), total);
    },
  }),
  route({
    method: 'get', path: '/orgs/{org}/blocks', operationId: 'organizationListBlocks', summary: 'List users blocked by the organization', tag: 'organization',
    ...orgWrite, scope: 'read:organization', org: { role: 'owner' }, paginated: true, responses: { 200: 'UserList', 403: 'forbidden', 404: 'notFound' },
    handle: async ({ deps, doer, org, page, list }) => {
      const { users, total } = await listBlocked(deps.db, org.id, page);
      return list(renderUsers(deps, users, doer), total);
    },
  }),
  route({
    method: 'get', path: '/orgs/{org}/blocks/{username}', operationId: 'organizationCheckUserBlock', summary: 'Check if a user is blocked by the organization', tag: 'organization',
    ...orgWrite, scope: 'read:organization', org: { role: 'owner' }, responses: { 204: 'empty', 403: 'forbidden', 404: 'notFound' },
    handle: async ({ deps, org, params }) => {
      const blockee = await findUserByName(deps.db, params.username);
      if (!blockee || !(await isBlocked(deps.db, org.id, blockee.id))) throw notFound();
      return noContent();
    },
  }),
  route({
    method: 'put', path: '/orgs/{org}/blocks/{username}', operationId: 'organizationBlockUser', summary: 'Block a user', tag: 'organization',
    ...orgWrite, org: { role: 'owner' }, query: blockQuery, responses: { 204: 'empty', 403: 'forbidden', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, doer, org, params, query }) => {
      const blockee = await findUserByName(deps.db, params.username);
      if (!blockee) throw notFound(`user ${params.username} does not exist`);
      await inTx(deps, (tx) => blockUser(tx, doer, org, blockee, query.note ?? ''));
      return noContent();
    },
  }),
  route({
    method: 'delete', path: '/orgs/{org}/blocks/{username}', operationId: 'organizationUnblockUser', summary: 'Unblock a user', tag: 'organization',
    ...orgWrite, org: { role: 'owner' }, responses: { 204: 'empty', 403: 'forbidden', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, doer, org, params }) => {
      const blockee = await findUserByName(deps.db, params.username);
      if (!blockee) throw notFound(`user ${params.username} does not exist`);
      await inTx(deps, (tx) => unblockUser(tx, doer, org, blockee));
      return noContent();
    },
  }),
];
