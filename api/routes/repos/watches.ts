import { inTx } from '../../../db/data-source.js';
import { notFound } from '../../../db/errors.js';
import type { UserRow } from '../../../db/models/users/user-row.js';
import { findWatch, listWatchedRepos, listWatchers, unwatchRepository, watchRepository } from '../../../db/models/repos/watches.js';
import { doerOf, loadUser } from '../../context/user.js';
import { loadRepo, renderRepos } from '../../context/repo.js';
import { pageOf, paged } from '../../http/pagination.js';
import { noContent, ok, route, type Context, type Reply } from '../../http/route.js';
import { renderUser } from '../../render/user.js';
import { renderWatchInfo } from '../../render/watch.js';

type PageQuery = { page?: number; limit?: number };

async function watchedList(ctx: Context<undefined, PageQuery>, user: UserRow): Promise<Reply> {
  const page = pageOf(ctx.query);
  const viewer = ctx.caller.user;
  const { repos, total } = await listWatchedRepos(ctx.deps.db, user.id, viewer, page);
  return paged(await renderRepos(ctx.deps, repos, viewer), total, page, ctx.url);
}

export const watchRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/subscribers', operationId: 'repoListSubscribers', summary: "List a repo's watchers", tag: 'repository',
    scope: 'read:repository', paginated: true, responses: { 200: 'UserList', 404: 'notFound' },
    handle: async (ctx) => {
      const loaded = await loadRepo(ctx.deps, ctx.caller, ctx.params.owner, ctx.params.repo);
      const page = pageOf(ctx.query);
      const { users, total } = await listWatchers(ctx.deps.db, loaded.repo.id, page);
      return paged(users.map((u) => renderUser(u, ctx.caller.user, ctx.deps.config)), total, page, ctx.url);
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/subscription', operationId: 'userCurrentCheckSubscription', summary: 'Check if the current user is watching a repo', tag: 'repository',
    scope: 'read:repository', signedIn: true, responses: { 200: 'WatchInfo', 404: 'notFound' },
    handle: async ({ deps, caller, params }) => {
      const loaded = await loadRepo(deps, caller, params.owner, params.repo);
      const watch = await findWatch(deps.db, doerOf(caller).id, loaded.repo.id);
      if (!watch) throw notFound('User is not watching this repo');
      return ok(renderWatchInfo(watch, { owner_name: loaded.owner.name, name: loaded.repo.name }, deps.config));
    },
  }),
  route({
    method: 'put', path: '/repos/{owner}/{repo}/subscription', operationId: 'userCurrentPutSubscription', summary: 'Watch a repo', tag: 'repository',
    scope: 'write:repository', signedIn: true, responses: { 200: 'WatchInfo', 403: 'forbidden', 404: 'notFound' },
    handle: async ({ deps, caller, params }) => {
      const loaded = await loadRepo(deps, caller, params.owner, params.repo);
      const doer = doerOf(caller);
      const watch = await inTx(deps, async (tx) => {
        await watchRepository(tx, doer, loaded.repo);
        return findWatch(tx, doer.id, loaded.repo.id);
      });
      return ok(renderWatchInfo(watch!, { owner_name: loaded.owner.name, name: loaded.repo.name }, deps.config));
    },
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/subscription', operationId: 'userCurrentDeleteSubscription', summary: 'Unwatch a repo', tag: 'repository',
    scope: 'write:repository', signedIn: true, responses: { 204: 'empty', 404: 'notFound' },
    handle: async ({ deps, caller, params }) => {
      const loaded = await loadRepo(deps, caller, params.owner, params.repo);
      await inTx(deps, (tx) => unwatchRepository(tx, doerOf(caller).id, loaded.repo.id));
      return noContent();
    },
  }),
  route({
    method: 'get', path: '/user/subscriptions', operationId: 'userCurrentListSubscriptions', summary: 'List repositories watched by the authenticated user', tag: 'user',
    scope: 'read:user', signedIn: true, paginated: true, responses: { 200: 'RepositoryList' },
    handle: (ctx) => watchedList(ctx, doerOf(ctx.caller)),
  }),
  route({
    method: 'get', path: '/users/{username}/subscriptions', operationId: 'userListSubscriptions', summary: 'List the repositories watched by a user', tag: 'user',
    scope: 'read:user', signedIn: true, paginated: true, responses: { 200: 'RepositoryList', 404: 'notFound' },
    handle: async (ctx) => watchedList(ctx, await loadUser(ctx.deps, ctx.caller, ctx.params.username)),
  }),
];
