import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { forbidden, invalid, methodNotAllowed, notFound } from '../../../db/errors.js';
import { accessModeOf, mayChangeRepoTeams } from '../../../db/models/access.js';
import { listOrgFeed, type OrgRow } from '../../../db/models/orgs/orgs.js';
import { findRepo } from '../../../db/models/repos/repos.js';
import { accessModes } from '../../../db/models/repos/repo-row.js';
import {
  addTeamMember, addTeamRepo, createTeam, deleteTeam, editTeam, findTeamByName, isTeamMember, listTeamMembers,
  listTeamRepos, listTeams, removeTeamMember, removeTeamRepo, teamHasRepo, type TeamFilter, type TeamView,
} from '../../../db/models/orgs/teams.js';
import { getIndividualByName } from '../../../db/models/users/users.js';
import { userTypes, type UserRow } from '../../../db/models/users/user-row.js';
import type { Deps } from '../../deps.js';
import { created, noContent, ok, route } from '../../http/route.js';
import { renderRepository } from '../../render/repository.js';
import { renderTeam, type ApiTeam } from '../../render/team.js';
import { renderUser } from '../../render/user.js';
import { type LoadedRepo, renderRepos } from '../../context/repo.js';
import { requireOrgOwner } from '../../context/org.js';
import { loadRepoView } from '../../../db/views/repo.js';
import { loadTeamView, loadTeamViews } from '../../../db/views/teams.js';
import { renderFeed } from '../activity/activity-feeds.js';

const unitsMap = z.record(z.string(), z.string());
const teamFields = {
  description: z.string().max(255).optional(),
  includes_all_repositories: z.boolean().optional(),
  // Gitea reads a permission it does not know as none
  permission: z.enum(['none', 'read', 'write', 'admin']).optional().catch('none'),
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

async function renderTeams(deps: Deps, teams: TeamView[], viewer: UserRow | null, withOrg: boolean): Promise<ApiTeam[]> {
  return (await loadTeamViews(deps.db, teams, withOrg)).map((view) => renderTeam(view, viewer, deps.config));
}

async function renderOneTeam(deps: Deps, team: TeamView, viewer: UserRow | null): Promise<ApiTeam> {
  return renderTeam(await loadTeamView(deps.db, team), viewer, deps.config);
}

/** A repository of the team's organization, named by /teams/{id}/repos/{org}/{repo}. */
async function loadTeamRepo(deps: Deps, team: TeamView, orgName: string, repoName: string) {
  const repo = await findRepo(deps.db, orgName, repoName);
  if (!repo || repo.owner_id !== team.org_id) throw notFound(`repository ${orgName}/${repoName} does not exist`);
  return repo;
}

/** The organization owning the repository: a user's repository has no teams. */
function repoOrgOf(repo: LoadedRepo): OrgRow {
  if (repo.owner.type !== userTypes.organization) throw methodNotAllowed('repo is not owned by an organization');
  return repo.owner as OrgRow;
}

async function findRepoTeam(deps: Deps, org: OrgRow, name: string): Promise<TeamView> {
  const team = await findTeamByName(deps.db, org.id, name);
  if (!team) throw notFound(`team ${name} does not exist`);
  return team;
}

const orgRead = { scope: 'read:organization', signedIn: true } as const;
const orgWrite = { scope: 'write:organization', signedIn: true } as const;

export const teamRoutes = [
  route({
    method: 'get', path: '/orgs/{org}/teams', operationId: 'orgListTeams', summary: "List an organization's teams", tag: 'organization',
    ...orgRead, org: { role: 'member' }, paginated: true, responses: { 200: 'TeamList', 403: 'forbidden', 404: 'notFound' },
    handle: async ({ deps, doer, org, page, list }) => {
      const { teams, total } = await listTeams(deps.db, { orgId: org.id }, page);
      return list(await renderTeams(deps, teams, doer, false), total);
    },
  }),
  route({
    method: 'post', path: '/orgs/{org}/teams', operationId: 'orgCreateTeam', summary: 'Create a team', tag: 'organization',
    ...orgWrite, org: { role: 'member' }, body: createTeamBody, responses: { 201: 'Team', 403: 'forbidden', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, caller, doer, org, body }) => {
      await requireOrgOwner(deps, caller, org);
      const team = await inTx(deps, (tx) => createTeam(tx, org, body, doer));
      return created(await renderOneTeam(deps, team, doer));
    },
  }),
  route({
    method: 'get', path: '/orgs/{org}/teams/search', operationId: 'teamSearch', summary: 'Search for teams within an organization', tag: 'organization',
    ...orgRead, org: { role: 'member' }, query: searchQuery, paginated: true,
    responses: { 200: 'TeamSearchResults', 403: 'forbidden', 404: 'notFound' },
    handle: async ({ deps, doer, org, query, page, list }) => {
      const filter: TeamFilter = {
        orgId: org.id, keyword: query.q?.trim(), includeDesc: query.include_desc ?? true,
        // Only administrators search all teams; everyone else searches the teams they belong to.
        memberId: doer.is_admin ? undefined : doer.id,
      };
      const { teams, total } = await listTeams(deps.db, filter, page);
      const reply = list(await renderTeams(deps, teams, doer, false), total);
      return { ...reply, body: { ok: true, data: reply.body } };
    },
  }),
  route({
    method: 'get', path: '/user/teams', operationId: 'userListTeams', summary: 'List all the teams a user belongs to', tag: 'user',
    scope: 'read:user', signedIn: true, paginated: true, responses: { 200: 'TeamList' },
    handle: async ({ deps, doer, page, list }) => {
      const { teams, total } = await listTeams(deps.db, { memberId: doer.id }, page);
      return list(await renderTeams(deps, teams, doer, true), total);
    },
  }),
  route({
    method: 'get', path: '/teams/{id}', operationId: 'orgGetTeam', summary: 'Get a team', tag: 'organization',
    ...orgRead, ids: ['id'], team: {}, responses: { 200: 'Team', 404: 'notFound' },
    handle: async ({ deps, doer, team }) => ok(await renderOneTeam(deps, team, doer)),
  }),
  route({
    method: 'patch', path: '/teams/{id}', operationId: 'orgEditTeam', summary: 'Edit a team', tag: 'organization',
    ...orgWrite, ids: ['id'], team: { role: 'owner' }, body: editTeamBody, responses: { 200: 'Team', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, doer, team, body }) => ok(await renderOneTeam(deps, await inTx(deps, (tx) => editTeam(tx, team, body, doer)), doer)),
  }),
  route({
    method: 'delete', path: '/teams/{id}', operationId: 'orgDeleteTeam', summary: 'Delete a team', tag: 'organization',
    ...orgWrite, ids: ['id'], team: { role: 'owner' }, responses: { 204: 'team deleted', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, doer, team }) => {
      await inTx(deps, (tx) => deleteTeam(tx, team, doer));
      return noContent();
    },
  }),
  route({
    method: 'get', path: '/teams/{id}/members', operationId: 'orgListTeamMembers', summary: "List a team's members", tag: 'organization',
    ...orgRead, ids: ['id'], team: {}, paginated: true, responses: { 200: 'UserList', 404: 'notFound' },
    handle: async ({ deps, doer, team, page, list }) => {
      const { users, total } = await listTeamMembers(deps.db, team.id, page);
      return list(users.map((user) => renderUser(user, doer, deps.config)), total);
    },
  }),
  route({
    method: 'get', path: '/teams/{id}/members/{username}', operationId: 'orgListTeamMember', summary: 'List a particular member of team', tag: 'organization',
    ...orgRead, ids: ['id'], team: {}, responses: { 200: 'User', 404: 'notFound' },
    handle: async ({ deps, doer, team, params }) => {
      const user = await getIndividualByName(deps.db, params.username);
      if (!(await isTeamMember(deps.db, team.id, user.id))) throw notFound();
      return ok(renderUser(user, doer, deps.config));
    },
  }),
  ...(['put', 'delete'] as const).map((method) =>
    route({
      method, path: '/teams/{id}/members/{username}',
      operationId: method === 'put' ? 'orgAddTeamMember' : 'orgRemoveTeamMember',
      summary: method === 'put' ? 'Add a team member' : 'Remove a team member', tag: 'organization',
      ...orgWrite, ids: ['id'], team: { role: 'owner' }, responses: { 204: 'empty', 403: 'forbidden', 404: 'notFound', 422: 'validationError' },
      handle: async ({ deps, doer, team, params }) => {
        const user = await getIndividualByName(deps.db, params.username);
        await inTx(deps, (tx) => (method === 'put' ? addTeamMember(tx, team, user, doer) : removeTeamMember(tx, team, user, doer)));
        return noContent();
      },
    }),
  ),
  route({
    method: 'get', path: '/teams/{id}/repos', operationId: 'orgListTeamRepos', summary: "List a team's repos", tag: 'organization',
    ...orgRead, ids: ['id'], team: {}, paginated: true, responses: { 200: 'RepositoryList', 404: 'notFound' },
    handle: async ({ deps, doer, team, page, list }) => {
      const { repos, total } = await listTeamRepos(deps.db, team, page);
      return list(await renderRepos(deps, repos, doer), total);
    },
  }),
  route({
    method: 'get', path: '/teams/{id}/repos/{org}/{repo}', operationId: 'orgListTeamRepo', summary: 'List a particular repo of team', tag: 'organization',
    ...orgRead, ids: ['id'], team: {}, responses: { 200: 'Repository', 404: 'notFound' },
    handle: async ({ deps, doer, team, params }) => {
      const repo = await loadTeamRepo(deps, team, params.org, params.repo);
      if (!(await teamHasRepo(deps.db, team, repo))) throw notFound();
      return ok(renderRepository(await loadRepoView(deps.db, repo, doer), doer, deps.config));
    },
  }),
  ...(['put', 'delete'] as const).map((method) =>
    route({
      method, path: '/teams/{id}/repos/{org}/{repo}',
      operationId: method === 'put' ? 'orgAddTeamRepository' : 'orgRemoveTeamRepository',
      summary: method === 'put' ? 'Add a repository to a team' : 'Remove a repository from a team', tag: 'organization',
      ...orgWrite, ids: ['id'], team: {}, responses: { 204: 'empty', 403: 'forbidden', 404: 'notFound' },
      handle: async ({ deps, doer, team, params }) => {
        const repo = await loadTeamRepo(deps, team, params.org, params.repo);
        if ((await accessModeOf(deps.db, doer, repo)) < accessModes.admin) throw forbidden('Must have admin-level access to the repository');
        await inTx(deps, (tx) => (method === 'put' ? addTeamRepo(tx, team, repo, doer) : removeTeamRepo(tx, team, repo, doer)));
        return noContent();
      },
    }),
  ),
  route({
    method: 'get', path: '/teams/{id}/activities/feeds', operationId: 'orgListTeamActivityFeeds', summary: "List a team's activity feeds", tag: 'organization',
    ...orgRead, ids: ['id'], team: {}, query: feedQuery, paginated: true, responses: { 200: 'ActivityFeedsList', 404: 'notFound' },
    handle: async ({ deps, doer, team, query, page, list }) => {
      const filter = { orgId: team.org_id, teamId: team.id, includePrivate: true, day: query.date };
      const { entries, total } = await listOrgFeed(deps.db, filter, page);
      return list(await renderFeed(deps, entries, doer), total);
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/teams', operationId: 'repoListTeams', summary: "List a repository's teams", tag: 'repository',
    scope: 'read:repository', signedIn: true, repo: {}, responses: { 200: 'TeamList', 404: 'notFound', 405: 'error' },
    handle: async ({ deps, doer, repo }) => {
      repoOrgOf(repo);
      const { teams } = await listTeams(deps.db, { repoId: repo.repo.id });
      return ok(await renderTeams(deps, teams, doer, false));
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/teams/{team}', operationId: 'repoCheckTeam', summary: 'Check if a team is assigned to a repository', tag: 'repository',
    scope: 'read:repository', signedIn: true, repo: {}, responses: { 200: 'Team', 404: 'notFound', 405: 'error' },
    handle: async ({ deps, doer, repo, params }) => {
      const team = await findRepoTeam(deps, repoOrgOf(repo), params.team);
      if (!(await teamHasRepo(deps.db, team, repo.repo))) throw notFound();
      return ok(await renderOneTeam(deps, team, doer));
    },
  }),
  ...(['put', 'delete'] as const).map((method) =>
    route({
      method, path: '/repos/{owner}/{repo}/teams/{team}',
      operationId: method === 'put' ? 'repoAddTeam' : 'repoDeleteTeam',
      summary: method === 'put' ? 'Add a team to a repository' : 'Delete a team from a repository', tag: 'repository',
      scope: 'write:repository', signedIn: true, repo: { mode: 'admin' },
      responses: { 204: 'empty', 403: 'forbidden', 404: 'notFound', 405: 'error', 422: 'validationError' },
      handle: async ({ deps, doer, repo, params }) => {
        const org = repoOrgOf(repo);
        if (!mayChangeRepoTeams(org, repo.repoMode, doer)) throw forbidden('user is nor repo admin nor owner');
        const team = await findRepoTeam(deps, org, params.team);
        const has = await teamHasRepo(deps.db, team, repo.repo);
        if (method === 'put' && has) throw invalid(`team '${team.name}' is already added to repo`);
        if (method === 'delete' && !has) throw invalid(`team '${team.name}' was not added to repo`);
        await inTx(deps, (tx) => (method === 'put' ? addTeamRepo(tx, team, repo.repo, doer) : removeTeamRepo(tx, team, repo.repo, doer)));
        return noContent();
      },
    }),
  ),
];
