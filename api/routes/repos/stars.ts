import { inTx } from '../../../db/data-source.js';
import { notFound } from '../../../db/errors.js';
import { isStarring, listStargazers, listStarredRepos, starRepository, unstarRepository } from '../../../db/models/repos/stars.js';
import type { UserRow } from '../../../db/models/users/user-row.js';
import { doerOf, loadUser } from '../../context/user.js';
import { loadRepo, renderRepos } from '../../context/repo.js';
import { pageOf, paged } from '../../http/pagination.js';
import { noContent, route, type Context, type Reply } from '../../http/route.js';
import { renderUser } from '../../render/user.js';

type PageQuery = { page?: number; limit?: number };

async function starredList(ctx: Context<undefined, PageQuery>, user: UserRow): Promise<Reply> {
  const page = pageOf(ctx.query);
  const viewer = ctx.caller.user;
  const { repos, total } = await listStarredRepos(ctx.deps.db, user.id, viewer, page);
  return paged(await renderRepos(ctx.deps, repos, viewer), total, page, ctx.url);
}

export const starRoutes = [
  route({
    method: 'get', path: '/user/starred', operationId: 'userCurrentListStarred', summary: 'The repos that the authenticated user has starred', tag: 'user',
    scope: 'read:repository', signedIn: true, paginated: true, responses: { 200: 'RepositoryList' },
    handle: (ctx) => starredList(ctx, doerOf(ctx.caller)),
  }),
  route({
    method: 'get', path: '/users/{username}/starred', operationId: 'userListStarred', summary: 'The repos that the given user has starred', tag: 'user',
    scope: 'read:user', signedIn: true, paginated: true, responses: { 200: 'RepositoryList', 404: 'notFound' },
    handle: async (ctx) => starredList(ctx, await loadUser(ctx.deps, ctx.caller, ctx.params.username)),
  }),
  route({
    method: 'get', path: '/user/starred/{owner}/{repo}', operationId: 'userCurrentCheckStarring', summary: 'Whether the authenticated is starring the repo', tag: 'user',
    scope: 'read:repository', signedIn: true, responses: { 204: 'empty', 404: 'notFound' },
    handle: async ({ deps, caller, params }) => {
      const loaded = await loadRepo(deps, caller, params.owner, params.repo);
      if (!(await isStarring(deps.db, doerOf(caller).id, loaded.repo.id))) throw notFound('the repository is not starred');
      return noContent();
    },
  }),
  route({
    method: 'put', path: '/user/starred/{owner}/{repo}', operationId: 'userCurrentPutStar', summary: 'Star the given repo', tag: 'user',
    scope: 'write:repository', signedIn: true, responses: { 204: 'empty', 403: 'forbidden', 404: 'notFound' },
    handle: async ({ deps, caller, params }) => {
      const loaded = await loadRepo(deps, caller, params.owner, params.repo);
      await inTx(deps, (tx) => starRepository(tx, doerOf(caller), loaded.repo));
      return noContent();
    },
  }),
  route({
    method: 'delete', path: '/user/starred/{owner}/{repo}', operationId: 'userCurrentDeleteStar', summary: 'Unstar the given repo', tag: 'user',
    scope: 'write:repository', signedIn: true, responses: { 204: 'empty', 404: 'notFound' },
    handle: async ({ deps, caller, params }) => {
      const loaded = await loadRepo(deps, caller, params.owner, params.repo);
      await inTx(deps, (tx) => unstarRepository(tx, doerOf(caller).id, loaded.repo.id));
      return noContent();
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/stargazers', operationId: 'repoListStargazers', summary: "List a repo's stargazers", tag: 'repository',
    scope: 'read:repository', paginated: true, responses: { 200: 'UserList', 404: 'notFound' },
    handle: async (ctx) => {
      const loaded = await loadRepo(ctx.deps, ctx.caller, ctx.params.owner, ctx.params.repo);
      const page = pageOf(ctx.query);
      const { users, total } = await listStargazers(ctx.deps.db, loaded.repo.id, page);
      return paged(users.map((u) => renderUser(u, ctx.caller.user, ctx.deps.config)), total, page, ctx.url);
    },
  }),
];
