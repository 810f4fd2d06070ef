import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { decodeBase64Strict } from '../../../db/encoding.js';
import { badRequest, forbidden, invalid, notFound } from '../../../db/errors.js';
import { blockUser, isBlocked, listBlocked, unblockUser } from '../../../db/models/users/blocks.js';
import {
  canSeeOrg, createOrganization, createOrgRepository, deleteAvatar, deleteOrganization, editOrganization, findOrgByName,
  isOrgMember, isOrgOwner, isPublicMember, listMembers, listOrgFeed, listOrgRepos, listOrgs, listUserOrgs,
  orgPermissionsOf, removeOrgMember, setMembershipVisibility, updateAvatar, type OrgRow,
} from '../../../db/models/orgs/orgs.js';
import { findRepoById } from '../../../db/models/repos/repos.js';
import { findUserByName, getIndividualByName } from '../../../db/models/users/users.js';
import type { FeedEntry } from '../../../db/models/activity/activity-feeds.js';
import { visibilities, type UserRow } from '../../../db/models/users/user-row.js';
import { scopeAllows, type Scope } from '../../../db/scopes.js';
import type { Caller } from '../../auth/caller.js';
import type { Deps } from '../../deps.js';
import { pageOf, paged, type Page } from '../../http/pagination.js';
import { created, noContent, ok, route, type Context, type Reply } from '../../http/route.js';
import { doerOf, loadUser } from '../../context/user.js';
import { renderActivity, type ApiActivity } from '../../render/activity.js';
import { renderOrganization, renderOrgPermissions } from '../../render/org.js';
import { renderRepository } from '../../render/repository.js';
import { renderUser } from '../../render/user.js';
import { renderRepos, viewOf } from '../../context/repo.js';
import { createRepoBody } from '../repos/repos.js';

/** The organization a path names, if the caller may see it; missing and invisible answer the same 404. */
export async function loadOrg(deps: Deps, caller: Caller, name: string): Promise<OrgRow> {
  const org = await findOrgByName(deps.db, name);
  if (!org || !(await canSeeOrg(deps.db, caller.user, org))) throw notFound(`organization ${name} does not exist`);
  return org;
}

/** reqOrgOwnership with an organization in the path: administrators and owners pass, other callers get a 403. */
export async function requireOrgOwner(deps: Deps, caller: Caller, org: OrgRow): Promise<UserRow> {
  const doer = doerOf(caller);
  if (!doer.is_admin && !(await isOrgOwner(deps.db, org.id, doer.id))) throw forbidden('Must be an organization owner');
  return doer;
}

/** reqOrgMembership with an organization in the path. */
export async function requireOrgMember(deps: Deps, caller: Caller, org: OrgRow): Promise<UserRow> {
  const doer = doerOf(caller);
  if (!doer.is_admin && !(await isOrgMember(deps.db, org.id, doer.id))) throw forbidden('Must be an organization member');
  return doer;
}

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

type PageQuery = { page?: number; limit?: number };
type CreateOrgBody = z.infer<typeof createOrgBody>;

async function orgList(ctx: Context<unknown, PageQuery>, list: (page: Page) => Promise<{ orgs: OrgRow[]; total: number }>): Promise<Reply> {
  const page = pageOf(ctx.query);
  const { orgs, total } = await list(page);
  return paged(orgs.map((org) => renderOrganization(org, ctx.caller.user, ctx.deps.config)), total, page, ctx.url);
}

async function userList(ctx: Context<unknown, PageQuery>, list: (page: Page) => Promise<{ users: UserRow[]; total: number }>): Promise<Reply> {
  const page = pageOf(ctx.query);
  const { users, total } = await list(page);
  return paged(users.map((user) => renderUser(user, ctx.caller.user, ctx.deps.config)), total, page, ctx.url);
}

async function createOrg(deps: Deps, owner: UserRow, doer: UserRow, body: CreateOrgBody): Promise<Reply> {
  const org = await inTx(deps, (tx) => createOrganization(tx, owner, body, doer));
  return created(renderOrganization(org, doer, deps.config));
}

/** createOrgRepo: owners, members of a team that may create repositories, and administrators. */
async function createOrgRepo(ctx: Context<z.infer<typeof createRepoBody>, unknown>): Promise<Reply> {
  const { deps, caller, body } = ctx;
  const org = await loadOrg(deps, caller, ctx.params.org);
  const doer = doerOf(caller);
  if (!doer.is_admin && !(await orgPermissionsOf(deps.db, org, doer)).canCreateRepository) {
    throw forbidden('Given user is not allowed to create repository in organization.');
  }
  if (body.gitignores || body.license || body.issue_labels) {
    throw invalid('gitignores, license and issue_labels templates are not available on this server');
  }
  const repo = await inTx(deps, (tx) => createOrgRepository(tx, deps, org, doer, body));
  return created(renderRepository(await viewOf(deps.db, repo, doer), doer, deps.config));
}

/** Feed entries rendered for the caller, each with its repository as the caller sees it. */
export async function renderFeed(deps: Deps, entries: FeedEntry[], viewer: UserRow | null): Promise<ApiActivity[]> {
  const rendered: ApiActivity[] = [];
  for (const entry of entries) {
    const repo = await findRepoById(deps.db, entry.repo_id);
    if (repo) rendered.push(renderActivity(entry, await viewOf(deps.db, repo, viewer), viewer, deps.config));
  }
  return rendered;
}

function decodeImage(text: string): Buffer {
  const image = decodeBase64Strict(text);
  if (!image) throw badRequest('illegal base64 data in image');
  return image;
}

const admin = { scope: 'write:admin', admin: true } as const;
const orgRead = { scope: 'read:organization' } as const;
const orgWrite = { scope: 'write:organization', signedIn: true } as const;

export const orgRoutes = [
  route<undefined, PageQuery>({
    method: 'get', path: '/orgs', operationId: 'orgGetAll', summary: 'Get list of organizations', tag: 'organization',
    ...orgRead, paginated: true, responses: { 200: 'OrganizationList' },
    handle: (ctx) => orgList(ctx, (page) => listOrgs(ctx.deps.db, ctx.caller.user, page)),
  }),
  route<CreateOrgBody>({
    method: 'post', path: '/orgs', operationId: 'orgCreate', summary: 'Create an organization', tag: 'organization',
    ...orgWrite, body: createOrgBody, responses: { 201: 'Organization', 403: 'forbidden', 422: 'validationError' },
    handle: async ({ deps, caller, body }) => createOrg(deps, doerOf(caller), doerOf(caller), body),
  }),
  route<CreateOrgBody>({
    method: 'post', path: '/admin/users/{username}/orgs', operationId: 'adminCreateOrg', summary: 'Create an organization', tag: 'admin',
    ...admin, body: createOrgBody, responses: { 201: 'Organization', 403: 'forbidden', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, caller, body, params }) => createOrg(deps, await getIndividualByName(deps.db, params.username), doerOf(caller), body),
  }),
  route<undefined, PageQuery>({
    method: 'get', path: '/admin/orgs', operationId: 'adminGetAllOrgs', summary: 'List all organizations', tag: 'admin',
    scope: 'read:admin', admin: true, paginated: true, responses: { 200: 'OrganizationList', 403: 'forbidden' },
    handle: (ctx) => orgList(ctx, (page) => listOrgs(ctx.deps.db, doerOf(ctx.caller), page)),
  }),
  route<undefined, PageQuery>({
    method: 'get', path: '/user/orgs', operationId: 'orgListCurrentUserOrgs', summary: "List the current user's organizations", tag: 'organization',
    scope: 'read:organization', signedIn: true, paginated: true, responses: { 200: 'OrganizationList', 404: 'notFound' },
    handle: (ctx) => {
      requireScopes(ctx.caller, 'read:user');
      return orgList(ctx, (page) => listUserOrgs(ctx.deps.db, doerOf(ctx.caller), ctx.caller.user, page));
    },
  }),
  route<undefined, PageQuery>({
    method: 'get', path: '/users/{username}/orgs', operationId: 'orgListUserOrgs', summary: "List a user's organizations", tag: 'organization',
    scope: 'read:organization', signedIn: true, paginated: true, responses: { 200: 'OrganizationList', 404: 'notFound' },
    handle: async (ctx) => {
      requireScopes(ctx.caller, 'read:user');
      const user = await loadUser(ctx.deps, ctx.caller, ctx.params.username);
      return orgList(ctx, (page) => listUserOrgs(ctx.deps.db, user, ctx.caller.user, page));
    },
  }),
  route({
    method: 'get', path: '/users/{username}/orgs/{org}/permissions', operationId: 'orgGetUserPermissions', summary: 'Get user permissions in organization', tag: 'organization',
    scope: 'read:organization', signedIn: true, responses: { 200: 'OrganizationPermissions', 403: 'forbidden', 404: 'notFound' },
    handle: async ({ deps, caller, params }) => {
      requireScopes(caller, 'read:user');
      const user = await loadUser(deps, caller, params.username);
      const org = await loadOrg(deps, caller, params.org);
      if (!(await canSeeOrg(deps.db, user, org))) throw notFound(`organization ${params.org} does not exist`);
      return ok(renderOrgPermissions(await orgPermissionsOf(deps.db, org, user)));
    },
  }),
  route({
    method: 'get', path: '/orgs/{org}', operationId: 'orgGet', summary: 'Get an organization', tag: 'organization',
    ...orgRead, responses: { 200: 'Organization', 404: 'notFound' },
    handle: async ({ deps, caller, params }) => ok(renderOrganization(await loadOrg(deps, caller, params.org), caller.user, deps.config)),
  }),
  route<z.infer<typeof editOrgBody>>({
    method: 'patch', path: '/orgs/{org}', operationId: 'orgEdit', summary: 'Edit an organization', tag: 'organization',
    ...orgWrite, body: editOrgBody, responses: { 200: 'Organization', 403: 'forbidden', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, caller, params, body }) => {
      const org = await loadOrg(deps, caller, params.org);
      await requireOrgOwner(deps, caller, org);
      return ok(renderOrganization(await inTx(deps, (tx) => editOrganization(tx, org, body)), caller.user, deps.config));
    },
  }),
  route({
    method: 'delete', path: '/orgs/{org}', operationId: 'orgDelete', summary: 'Delete an organization', tag: 'organization',
    ...orgWrite, responses: { 204: 'empty', 403: 'forbidden', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, caller, params }) => {
      const org = await loadOrg(deps, caller, params.org);
      const doer = await requireOrgOwner(deps, caller, org);
      await inTx(deps, (tx) => deleteOrganization(tx, deps, org, doer));
      return noContent();
    },
  }),
  route<undefined, PageQuery>({
    method: 'get', path: '/orgs/{org}/members', operationId: 'orgListMembers', summary: "List an organization's members", tag: 'organization',
    scope: 'read:organization', signedIn: true, paginated: true, responses: { 200: 'UserList', 404: 'notFound' },
    handle: async (ctx) => {
      const org = await loadOrg(ctx.deps, ctx.caller, ctx.params.org);
      const doer = doerOf(ctx.caller);
      const publicOnly = !doer.is_admin && !(await isOrgMember(ctx.deps.db, org.id, doer.id));
      return userList(ctx, (page) => listMembers(ctx.deps.db, org, publicOnly, page));
    },
  }),
  route({
    method: 'get', path: '/orgs/{org}/members/{username}', operationId: 'orgIsMember', summary: 'Check if a user is a member of an organization', tag: 'organization',
    scope: 'read:organization', signedIn: true, responses: { 204: 'user is a member', 303: 'redirection to /orgs/{org}/public_members/{username}', 404: 'user is not a member' },
    handle: async ({ deps, caller, params }) => {
      const org = await loadOrg(deps, caller, params.org);
      const user = await loadUser(deps, caller, params.username);
      const doer = doerOf(caller);
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
    ...orgWrite, responses: { 204: 'member removed', 403: 'forbidden', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, caller, params }) => {
      const org = await loadOrg(deps, caller, params.org);
      const doer = await requireOrgOwner(deps, caller, org);
      const user = await getIndividualByName(deps.db, params.username);
      await inTx(deps, (tx) => removeOrgMember(tx, org, user, doer));
      return noContent();
    },
  }),
  route<undefined, PageQuery>({
    method: 'get', path: '/orgs/{org}/public_members', operationId: 'orgListPublicMembers', summary: "List an organization's public members", tag: 'organization',
    ...orgRead, paginated: true, responses: { 200: 'UserList', 404: 'notFound' },
    handle: async (ctx) => {
      const org = await loadOrg(ctx.deps, ctx.caller, ctx.params.org);
      return userList(ctx, (page) => listMembers(ctx.deps.db, org, true, page));
    },
  }),
  route({
    method: 'get', path: '/orgs/{org}/public_members/{username}', operationId: 'orgIsPublicMember', summary: 'Check if a user is a public member of an organization', tag: 'organization',
    ...orgRead, responses: { 204: 'user is a public member', 404: 'user is not a public member' },
    handle: async ({ deps, caller, params }) => {
      const org = await loadOrg(deps, caller, params.org);
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
      ...orgWrite, responses: { 204: method === 'put' ? 'membership publicized' : 'empty', 403: 'forbidden', 404: 'notFound' },
      handle: async ({ deps, caller, params }) => {
        const org = await loadOrg(deps, caller, params.org);
        const doer = await requireOrgMember(deps, caller, org);
        const user = await loadUser(deps, caller, params.username);
        if (user.id !== doer.id) throw forbidden(method === 'put' ? 'Cannot publicize another member' : 'Cannot conceal another member');
        await inTx(deps, (tx) => setMembershipVisibility(tx, org, user, method === 'put'));
        return noContent();
      },
    }),
  ),
  route<undefined, PageQuery>({
    method: 'get', path: '/orgs/{org}/repos', operationId: 'orgListRepos', summary: "List an organization's repos", tag: 'organization',
    ...orgRead, paginated: true, responses: { 200: 'RepositoryList', 404: 'notFound' },
    handle: async (ctx) => {
      const { deps, caller } = ctx;
      const org = await loadOrg(deps, caller, ctx.params.org);
      const page = pageOf(ctx.query);
      const { repos, total } = await listOrgRepos(deps.db, org, caller.user, page);
      return paged(await renderRepos(deps, repos, caller.user), total, page, ctx.url);
    },
  }),
  route<z.infer<typeof createRepoBody>>({
    method: 'post', path: '/orgs/{org}/repos', operationId: 'createOrgRepo', summary: 'Create a repository in an organization', tag: 'organization',
    ...orgWrite, body: createRepoBody, responses: { 201: 'Repository', 400: 'error', 403: 'forbidden', 404: 'notFound', 409: 'error', 422: 'validationError' },
    handle: createOrgRepo,
  }),
  route<z.infer<typeof createRepoBody>>({
    method: 'post', path: '/org/{org}/repos', operationId: 'createOrgRepoDeprecated', summary: 'Create a repository in an organization', tag: 'organization',
    deprecated: true, ...orgWrite, body: createRepoBody,
    responses: { 201: 'Repository', 403: 'forbidden', 404: 'notFound', 409: 'error', 422: 'validationError' },
    handle: (ctx) => {
      requireScopes(ctx.caller, 'write:repository');
      return createOrgRepo(ctx);
    },
  }),
  route<z.infer<typeof avatarBody>>({
    method: 'post', path: '/orgs/{org}/avatar', operationId: 'orgUpdateAvatar', summary: 'Update Avatar', tag: 'organization',
    ...orgWrite, body: avatarBody, responses: { 204: 'empty', 400: 'error', 403: 'forbidden', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, caller, params, body }) => {
      const org = await loadOrg(deps, caller, params.org);
      await requireOrgOwner(deps, caller, org);
      const image = decodeImage(body.image);
      await inTx(deps, (tx) => updateAvatar(tx, deps, org, image));
      return noContent();
    },
  }),
  route({
    method: 'delete', path: '/orgs/{org}/avatar', operationId: 'orgDeleteAvatar', summary: 'Delete Avatar', tag: 'organization',
    ...orgWrite, responses: { 204: 'empty', 403: 'forbidden', 404: 'notFound' },
    handle: async ({ deps, caller, params }) => {
      const org = await loadOrg(deps, caller, params.org);
      await requireOrgOwner(deps, caller, org);
      await inTx(deps, (tx) => deleteAvatar(tx, deps, org));
      return noContent();
    },
  }),
  route<undefined, PageQuery & { date?: string }>({
    method: 'get', path: '/orgs/{org}/activities/feeds', operationId: 'orgListActivityFeeds', summary: "List an organization's activity feeds", tag: 'organization',
    ...orgRead, query: feedQuery, paginated: true, responses: { 200: 'ActivityFeedsList', 404: 'notFound' },
    handle: async (ctx) => {
      const { deps, caller } = ctx;
      const org = await loadOrg(deps, caller, ctx.params.org);
      const viewer = caller.user;
      const includePrivate = viewer !== null && (viewer.is_admin || (await isOrgMember(deps.db, org.id, viewer.id)));
      const page = pageOf(ctx.query);
      const { entries, total } = await listOrgFeed(deps.db, { orgId: org.id, includePrivate, day: ctx.query.date }, page);
      return paged(await renderFeed(deps, entries, viewer), total, page, ctx.url);
    },
  }),
  route<undefined, PageQuery>({
    method: 'get', path: '/orgs/{org}/blocks', operationId: 'organizationListBlocks', summary: 'List users blocked by the organization', tag: 'organization',
    ...orgWrite, scope: 'read:organization', paginated: true, responses: { 200: 'UserList', 403: 'forbidden', 404: 'notFound' },
    handle: async (ctx) => {
      const org = await loadOrg(ctx.deps, ctx.caller, ctx.params.org);
      await requireOrgOwner(ctx.deps, ctx.caller, org);
      return userList(ctx, (page) => listBlocked(ctx.deps.db, org.id, page));
    },
  }),
  route({
    method: 'get', path: '/orgs/{org}/blocks/{username}', operationId: 'organizationCheckUserBlock', summary: 'Check if a user is blocked by the organization', tag: 'organization',
    ...orgWrite, scope: 'read:organization', responses: { 204: 'empty', 403: 'forbidden', 404: 'notFound' },
    handle: async ({ deps, caller, params }) => {
      const org = await loadOrg(deps, caller, params.org);
      await requireOrgOwner(deps, caller, org);
      const blockee = await findUserByName(deps.db, params.username);
      if (!blockee || !(await isBlocked(deps.db, org.id, blockee.id))) throw notFound();
      return noContent();
    },
  }),
  route<undefined, { note?: string }>({
    method: 'put', path: '/orgs/{org}/blocks/{username}', operationId: 'organizationBlockUser', summary: 'Block a user', tag: 'organization',
    ...orgWrite, query: blockQuery, responses: { 204: 'empty', 403: 'forbidden', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, caller, params, query }) => {
      const org = await loadOrg(deps, caller, params.org);
      const doer = await requireOrgOwner(deps, caller, org);
      const blockee = await findUserByName(deps.db, params.username);
      if (!blockee) throw notFound(`user ${params.username} does not exist`);
      await inTx(deps, (tx) => blockUser(tx, doer, org, blockee, query.note ?? ''));
      return noContent();
    },
  }),
  route({
    method: 'delete', path: '/orgs/{org}/blocks/{username}', operationId: 'organizationUnblockUser', summary: 'Unblock a user', tag: 'organization',
    ...orgWrite, responses: { 204: 'empty', 403: 'forbidden', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, caller, params }) => {
      const org = await loadOrg(deps, caller, params.org);
      const doer = await requireOrgOwner(deps, caller, org);
      const blockee = await findUserByName(deps.db, params.username);
      if (!blockee) throw notFound(`user ${params.username} does not exist`);
      await inTx(deps, (tx) => unblockUser(tx, doer, org, blockee));
      return noContent();
    },
  }),
];
