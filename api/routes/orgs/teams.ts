import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { forbidden, invalid, methodNotAllowed, notFound } from '../../../db/errors.js';
import { accessModeOf } from '../../../db/models/access.js';
import { findOrgsByIds, isOrgMember, isOrgOwner, listOrgFeed, type OrgRow } from '../../../db/models/orgs/orgs.js';
import { findRepo } from '../../../db/models/repos/repos.js';
import { accessModes } from '../../../db/models/repos/repo-row.js';
import {
  addTeamMember, addTeamRepo, createTeam, deleteTeam, editTeam, findTeam, findTeamByName, isTeamMember, listTeamMembers,
  listTeamRepos, listTeams, removeTeamMember, removeTeamRepo, teamHasRepo, type TeamFilter, type TeamView,
} from '../../../db/models/orgs/teams.js';
import { getIndividualByName } from '../../../db/models/users/users.js';
import { userTypes, type UserRow } from '../../../db/models/users/user-row.js';
import type { Caller } from '../../auth/caller.js';
import type { Deps } from '../../deps.js';
import { pageOf, paged } from '../../http/pagination.js';
import { created, noContent, ok, route, type Context, type Reply } from '../../http/route.js';
import { doerOf } from '../../context/user.js';
import { renderRepository } from '../../render/repository.js';
import { renderTeam, type ApiTeam } from '../../render/team.js';
import { renderUser } from '../../render/user.js';
import { type LoadedRepo, loadRepo, renderRepos, requireMode, viewOf } from '../../context/repo.js';
import { loadOrg, renderFeed, requireOrgMember, requireOrgOwner } from './orgs.js';

const unitsMap = z.record(z.string(), z.string());
const teamFields = {
  description: z.string().max(255).optional(),
  includes_all_repositories: z.boolean().optional(),
  permission: z.enum(['read', 'write', 'admin']).optional(),
  units: z.array(z.string()).optional(),
  units_map: unitsMap.optional(),
  can_create_org_repo: z.boolean().optional(),
};
const createTeamBody = z.object({ name: z.string().min(1).max(255), ...teamFields });
const editTeamBody = z.object({ name: z.string().max(255).optional(), ...teamFields });
const searchQuery = z.object({
  q: z.string().optional(),
  include_desc: z.enum(['true', 'false']).transform((v) => v === 'true').optional(),
});
const feedQuery = z.object({ date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date: YYYY-MM-DD').optional() });

type PageQuery = { page?: number; limit?: number };

/**
 * The teams of a list rendered in one pass: `withOrg` fills `organization` (as Gitea does for the caller's
 * teams and single teams) from one query for all the teams' organizations.
 */
async function renderTeams(deps: Deps, teams: TeamView[], viewer: UserRow | null, withOrg: boolean): Promise<ApiTeam[]> {
  const orgs = withOrg ? await findOrgsByIds(deps.db, [...new Set(teams.map((team) => team.org_id))]) : [];
  const byId = new Map<number, OrgRow>(orgs.map((org) => [org.id, org]));
  return teams.map((team) => renderTeam(team, byId.get(team.org_id) ?? null, viewer, deps.config));
}

async function teamList(ctx: Context<unknown, PageQuery>, filter: TeamFilter, withOrg: boolean): Promise<Reply> {
  const page = pageOf(ctx.query);
  const { teams, total } = await listTeams(ctx.deps.db, filter, page);
  return paged(await renderTeams(ctx.deps, teams, ctx.caller.user, withOrg), total, page, ctx.url);
}

async function oneTeam(deps: Deps, team: TeamView, viewer: UserRow | null): Promise<ApiTeam> {
  const [rendered] = await renderTeams(deps, [team], viewer, true);
  return rendered;
}

/**
 * The team a path names, as Gitea's orgAssignment + reqTeamMembership: administrators, organization owners and
 * the team's members pass; other members of the organization get a 403, everyone else a 404.
 */
async function loadTeam(deps: Deps, caller: Caller, id: string): Promise<TeamView> {
  const team = /^\d+$/.test(id) ? await findTeam(deps.db, Number(id)) : null;
  if (!team) throw notFound(`team ${id} does not exist`);
  const doer = doerOf(caller);
  if (doer.is_admin || (await isOrgOwner(deps.db, team.org_id, doer.id)) || (await isTeamMember(deps.db, team.id, doer.id))) return team;
  if (await isOrgMember(deps.db, team.org_id, doer.id)) throw forbidden('Must be a team member');
  throw notFound(`team ${id} does not exist`);
}

/** reqOrgOwnership in a team's path: a team member who is not an owner gets a 404, as in Gitea. */
async function requireTeamOwner(deps: Deps, caller: Caller, team: TeamView): Promise<UserRow> {
  const doer = doerOf(caller);
  if (!doer.is_admin && !(await isOrgOwner(deps.db, team.org_id, doer.id))) throw notFound();
  return doer;
}

/** A repository of the team's organization, named by /teams/{id}/repos/{org}/{repo}. */
async function loadTeamRepo(deps: Deps, team: TeamView, orgName: string, repoName: string) {
  const repo = await findRepo(deps.db, orgName, repoName);
  if (!repo || repo.owner_id !== team.org_id) throw notFound(`repository ${orgName}/${repoName} does not exist`);
  return repo;
}

/** Changing which teams a repository has: only for organization repositories, by owners (or admins when the organization allows). */
async function loadRepoTeam(deps: Deps, caller: Caller, params: Record<string, string>, change: boolean): Promise<{ loaded: LoadedRepo; team: TeamView }> {
  const loaded = await loadRepo(deps, caller, params.owner, params.repo);
  if (change) requireMode(loaded, accessModes.admin);
  if (loaded.owner.type !== userTypes.organization) throw methodNotAllowed('repo is not owned by an organization');
  if (change) {
    const allowed = (loaded.owner as OrgRow).repo_admin_change_team_access || loaded.mode >= accessModes.owner || caller.user?.is_admin;
    if (!allowed) throw forbidden('user is nor repo admin nor owner');
  }
  const team = await findTeamByName(deps.db, loaded.owner.id, params.team);
  if (!team) throw notFound(`team ${params.team} does not exist`);
  return { loaded, team };
}

const orgRead = { scope: 'read:organization', signedIn: true } as const;
const orgWrite = { scope: 'write:organization', signedIn: true } as const;

export const teamRoutes = [
  route<undefined, PageQuery>({
    method: 'get', path: '/orgs/{org}/teams', operationId: 'orgListTeams', summary: "List an organization's teams", tag: 'organization',
    ...orgRead, paginated: true, responses: { 200: 'TeamList', 403: 'forbidden', 404: 'notFound' },
    handle: async (ctx) => {
      const org = await loadOrg(ctx.deps, ctx.caller, ctx.params.org);
      await requireOrgMember(ctx.deps, ctx.caller, org);
      return teamList(ctx, { orgId: org.id }, false);
    },
  }),
  route<z.infer<typeof createTeamBody>>({
    method: 'post', path: '/orgs/{org}/teams', operationId: 'orgCreateTeam', summary: 'Create a team', tag: 'organization',
    ...orgWrite, body: createTeamBody, responses: { 201: 'Team', 403: 'forbidden', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, caller, params, body }) => {
      const org = await loadOrg(deps, caller, params.org);
      await requireOrgMember(deps, caller, org);
      const doer = await requireOrgOwner(deps, caller, org);
      const team = await inTx(deps, (tx) => createTeam(tx, org, body, doer));
      return created(await oneTeam(deps, team, caller.user));
    },
  }),
  route<undefined, PageQuery & { q?: string; include_desc?: boolean }>({
    method: 'get', path: '/orgs/{org}/teams/search', operationId: 'teamSearch', summary: 'Search for teams within an organization', tag: 'organization',
    ...orgRead, query: searchQuery, paginated: true, responses: { 200: 'SearchResults of a successful search', 403: 'forbidden', 404: 'notFound' },
    handle: async (ctx) => {
      const org = await loadOrg(ctx.deps, ctx.caller, ctx.params.org);
      const doer = await requireOrgMember(ctx.deps, ctx.caller, org);
      const filter: TeamFilter = {
        orgId: org.id, keyword: ctx.query.q?.trim(), includeDesc: ctx.query.include_desc ?? true,
        // Only administrators search all teams; everyone else searches the teams they belong to.
        memberId: doer.is_admin ? undefined : doer.id,
      };
      const reply = await teamList(ctx, filter, false);
      return { ...reply, body: { ok: true, data: reply.body } };
    },
  }),
  route<undefined, PageQuery>({
    method: 'get', path: '/user/teams', operationId: 'userListTeams', summary: 'List all the teams a user belongs to', tag: 'user',
    scope: 'read:user', signedIn: true, paginated: true, responses: { 200: 'TeamList' },
    handle: (ctx) => teamList(ctx, { memberId: doerOf(ctx.caller).id }, true),
  }),
  route({
    method: 'get', path: '/teams/{id}', operationId: 'orgGetTeam', summary: 'Get a team', tag: 'organization',
    ...orgRead, responses: { 200: 'Team', 404: 'notFound' },
    handle: async ({ deps, caller, params }) => ok(await oneTeam(deps, await loadTeam(deps, caller, params.id), caller.user)),
  }),
  route<z.infer<typeof editTeamBody>>({
    method: 'patch', path: '/teams/{id}', operationId: 'orgEditTeam', summary: 'Edit a team', tag: 'organization',
    ...orgWrite, body: editTeamBody, responses: { 200: 'Team', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, caller, params, body }) => {
      const team = await loadTeam(deps, caller, params.id);
      const doer = await requireTeamOwner(deps, caller, team);
      return ok(await oneTeam(deps, await inTx(deps, (tx) => editTeam(tx, team, body, doer)), caller.user));
    },
  }),
  route({
    method: 'delete', path: '/teams/{id}', operationId: 'orgDeleteTeam', summary: 'Delete a team', tag: 'organization',
    ...orgWrite, responses: { 204: 'team deleted', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, caller, params }) => {
      const team = await loadTeam(deps, caller, params.id);
      const doer = await requireTeamOwner(deps, caller, team);
      await inTx(deps, (tx) => deleteTeam(tx, team, doer));
      return noContent();
    },
  }),
  route<undefined, PageQuery>({
    method: 'get', path: '/teams/{id}/members', operationId: 'orgListTeamMembers', summary: "List a team's members", tag: 'organization',
    ...orgRead, paginated: true, responses: { 200: 'UserList', 404: 'notFound' },
    handle: async (ctx) => {
      const team = await loadTeam(ctx.deps, ctx.caller, ctx.params.id);
      const page = pageOf(ctx.query);
      const { users, total } = await listTeamMembers(ctx.deps.db, team.id, page);
      return paged(users.map((user) => renderUser(user, ctx.caller.user, ctx.deps.config)), total, page, ctx.url);
    },
  }),
  route({
    method: 'get', path: '/teams/{id}/members/{username}', operationId: 'orgListTeamMember', summary: 'List a particular member of team', tag: 'organization',
    ...orgRead, responses: { 200: 'User', 404: 'notFound' },
    handle: async ({ deps, caller, params }) => {
      const team = await loadTeam(deps, caller, params.id);
      const user = await getIndividualByName(deps.db, params.username);
      if (!(await isTeamMember(deps.db, team.id, user.id))) throw notFound();
      return ok(renderUser(user, caller.user, deps.config));
    },
  }),
  ...(['put', 'delete'] as const).map((method) =>
    route({
      method, path: '/teams/{id}/members/{username}',
      operationId: method === 'put' ? 'orgAddTeamMember' : 'orgRemoveTeamMember',
      summary: method === 'put' ? 'Add a team member' : 'Remove a team member', tag: 'organization',
      ...orgWrite, responses: { 204: 'empty', 403: 'forbidden', 404: 'notFound', 422: 'validationError' },
      handle: async ({ deps, caller, params }) => {
        const team = await loadTeam(deps, caller, params.id);
        const doer = await requireTeamOwner(deps, caller, team);
        const user = await getIndividualByName(deps.db, params.username);
        await inTx(deps, (tx) => (method === 'put' ? addTeamMember(tx, team, user, doer) : removeTeamMember(tx, team, user, doer)));
        return noContent();
      },
    }),
  ),
  route<undefined, PageQuery>({
    method: 'get', path: '/teams/{id}/repos', operationId: 'orgListTeamRepos', summary: "List a team's repos", tag: 'organization',
    ...orgRead, paginated: true, responses: { 200: 'RepositoryList', 404: 'notFound' },
    handle: async (ctx) => {
      const { deps, caller } = ctx;
      const team = await loadTeam(deps, caller, ctx.params.id);
      const page = pageOf(ctx.query);
      const { repos, total } = await listTeamRepos(deps.db, team, page);
      return paged(await renderRepos(deps, repos, caller.user), total, page, ctx.url);
    },
  }),
  route({
    method: 'get', path: '/teams/{id}/repos/{org}/{repo}', operationId: 'orgListTeamRepo', summary: 'List a particular repo of team', tag: 'organization',
    ...orgRead, responses: { 200: 'Repository', 404: 'notFound' },
    handle: async ({ deps, caller, params }) => {
      const team = await loadTeam(deps, caller, params.id);
      const repo = await loadTeamRepo(deps, team, params.org, params.repo);
      if (!(await teamHasRepo(deps.db, team, repo))) throw notFound();
      return ok(renderRepository(await viewOf(deps.db, repo, caller.user), caller.user, deps.config));
    },
  }),
  ...(['put', 'delete'] as const).map((method) =>
    route({
      method, path: '/teams/{id}/repos/{org}/{repo}',
      operationId: method === 'put' ? 'orgAddTeamRepository' : 'orgRemoveTeamRepository',
      summary: method === 'put' ? 'Add a repository to a team' : 'Remove a repository from a team', tag: 'organization',
      ...orgWrite, responses: { 204: 'empty', 403: 'forbidden', 404: 'notFound' },
      handle: async ({ deps, caller, params }) => {
        const team = await loadTeam(deps, caller, params.id);
        const repo = await loadTeamRepo(deps, team, params.org, params.repo);
        const doer = doerOf(caller);
        if ((await accessModeOf(deps.db, doer, repo)) < accessModes.admin) throw forbidden('Must have admin-level access to the repository');
        await inTx(deps, (tx) => (method === 'put' ? addTeamRepo(tx, team, repo, doer) : removeTeamRepo(tx, team, repo, doer)));
        return noContent();
      },
    }),
  ),
  route<undefined, PageQuery & { date?: string }>({
    method: 'get', path: '/teams/{id}/activities/feeds', operationId: 'orgListTeamActivityFeeds', summary: "List a team's activity feeds", tag: 'organization',
    ...orgRead, query: feedQuery, paginated: true, responses: { 200: 'ActivityFeedsList', 404: 'notFound' },
    handle: async (ctx) => {
      const { deps, caller } = ctx;
      const team = await loadTeam(deps, caller, ctx.params.id);
      const page = pageOf(ctx.query);
      const filter = { orgId: team.org_id, teamId: team.id, includePrivate: true, day: ctx.query.date };
      const { entries, total } = await listOrgFeed(deps.db, filter, page);
      return paged(await renderFeed(deps, entries, caller.user), total, page, ctx.url);
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/teams', operationId: 'repoListTeams', summary: "List a repository's teams", tag: 'repository',
    scope: 'read:repository', signedIn: true, responses: { 200: 'TeamList', 404: 'notFound', 405: 'error' },
    handle: async ({ deps, caller, params }) => {
      const loaded = await loadRepo(deps, caller, params.owner, params.repo);
      if (loaded.owner.type !== userTypes.organization) throw methodNotAllowed('repo is not owned by an organization');
      const { teams } = await listTeams(deps.db, { repoId: loaded.repo.id });
      return ok(await renderTeams(deps, teams, caller.user, false));
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/teams/{team}', operationId: 'repoCheckTeam', summary: 'Check if a team is assigned to a repository', tag: 'repository',
    scope: 'read:repository', signedIn: true, responses: { 200: 'Team', 404: 'notFound', 405: 'error' },
    handle: async ({ deps, caller, params }) => {
      const { loaded, team } = await loadRepoTeam(deps, caller, params, false);
      if (!(await teamHasRepo(deps.db, team, loaded.repo))) throw notFound();
      return ok(await oneTeam(deps, team, caller.user));
    },
  }),
  ...(['put', 'delete'] as const).map((method) =>
    route({
      method, path: '/repos/{owner}/{repo}/teams/{team}',
      operationId: method === 'put' ? 'repoAddTeam' : 'repoDeleteTeam',
      summary: method === 'put' ? 'Add a team to a repository' : 'Delete a team from a repository', tag: 'repository',
      scope: 'write:repository', signedIn: true, responses: { 204: 'empty', 403: 'forbidden', 404: 'notFound', 405: 'error', 422: 'validationError' },
      handle: async ({ deps, caller, params }) => {
        const { loaded, team } = await loadRepoTeam(deps, caller, params, true);
        const has = await teamHasRepo(deps.db, team, loaded.repo);
        if (method === 'put' && has) throw invalid(`team '${team.name}' is already added to repo`);
        if (method === 'delete' && !has) throw invalid(`team '${team.name}' was not added to repo`);
        const doer = doerOf(caller);
        await inTx(deps, (tx) => (method === 'put' ? addTeamRepo(tx, team, loaded.repo, doer) : removeTeamRepo(tx, team, loaded.repo, doer)));
        return noContent();
      },
    }),
  ),
];
