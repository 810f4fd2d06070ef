import { inTx } from '../../../db/data-source.js';
import { notFound } from '../../../db/errors.js';
import { findWatch, listWatchedRepos, listWatchers, unwatchRepository, watchRepository } from '../../../db/models/repos/watches.js';
import { loadUser } from '../../context/user.js';
import { renderRepos } from '../../context/repo.js';
import { noContent, ok, route } from '../../http/route.js';
import { renderUser } from '../../render/user.js';
import { renderWatchInfo } from '../../render/watch.js';

export const watchRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/subscribers', operationId: 'repoListSubscribers', summary: "List a repo's watchers", tag: 'repository',
    scope: 'read:repository', repo: {}, paginated: true, responses: { 200: 'UserList' },
    handle: async ({ deps, repo, doer, page, list }) => {
      const { users, total } = await listWatchers(deps.db, repo.repo.id, page);
      return list(users.map((u) => renderUser(u, doer, deps.config)), total);
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/subscription', operationId: 'userCurrentCheckSubscription', summary: 'Check if the current user is watching a repo', tag: 'repository',
    scope: 'read:repository', signedIn: true, repo: {}, responses: { 200: 'WatchInfo' },
    handle: async ({ deps, repo, doer }) => {
      const watch = await findWatch(deps.db, doer.id, repo.repo.id);
      if (!watch) throw notFound('User is not watching this repo');
      return ok(renderWatchInfo(watch, { owner_name: repo.owner.name, name: repo.repo.name }, deps.config));
    },
  }),
  route({
    method: 'put', path: '/repos/{owner}/{repo}/subscription', operationId: 'userCurrentPutSubscription', summary: 'Watch a repo', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: {}, responses: { 200: 'WatchInfo', 403: 'forbidden' },
    handle: async ({ deps, repo, doer }) => {
      const watch = await inTx(deps, async (tx) => {
        await watchRepository(tx, doer, repo.repo);
        return findWatch(tx, doer.id, repo.repo.id);
      });
      return ok(renderWatchInfo(watch!, { owner_name: repo.owner.name, name: repo.repo.name }, deps.config));
    },
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/subscription', operationId: 'userCurrentDeleteSubscription', summary: 'Unwatch a repo', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: {}, responses: { 204: 'empty' },
    handle: async ({ deps, repo, doer }) => {
      await inTx(deps, (tx) => unwatchRepository(tx, doer.id, repo.repo.id));
      return noContent();
    },
  }),
  route({
    method: 'get', path: '/user/subscriptions', operationId: 'userCurrentListSubscriptions', summary: 'List repositories watched by the authenticated user', tag: 'user',
    scope: 'read:user', signedIn: true, paginated: true, responses: { 200: 'RepositoryList' },
    handle: async ({ deps, doer, page, list }) => {
      const { repos, total } = await listWatchedRepos(deps.db, doer.id, doer, page);
      return list(await renderRepos(deps, repos, doer), total);
    },
  }),
  route({
    method: 'get', path: '/users/{username}/subscriptions', operationId: 'userListSubscriptions', summary: 'List the repositories watched by a user', tag: 'user',
    scope: 'read:user', signedIn: true, paginated: true, responses: { 200: 'RepositoryList', 404: 'notFound' },
    handle: async ({ deps, caller, doer, params, page, list }) => {
      const user = await loadUser(deps, caller, params.username);
      const { repos, total } = await listWatchedRepos(deps.db, user.id, doer, page);
      return list(await renderRepos(deps, repos, doer), total);
    },
  }),
];
