import { inTx } from '../../../db/data-source.js';
import { notFound } from '../../../db/errors.js';
import { isStarring, listStargazers, listStarredRepos, starRepository, unstarRepository } from '../../../db/models/repos/stars.js';
import { loadUser } from '../../context/user.js';
import { renderRepos } from '../../context/repo.js';
import { noContent, route } from '../../http/route.js';
import { renderUser } from '../../render/user.js';

export const starRoutes = [
  route({
    method: 'get', path: '/user/starred', operationId: 'userCurrentListStarred', summary: 'The repos that the authenticated user has starred', tag: 'user',
    scope: ['read:user', 'read:repository'], signedIn: true, paginated: true, responses: { 200: 'RepositoryList' },
    handle: async ({ deps, doer, page, list }) => {
      const { repos, total } = await listStarredRepos(deps.db, doer.id, doer, page);
      return list(await renderRepos(deps, repos, doer), total);
    },
  }),
  route({
    method: 'get', path: '/users/{username}/starred', operationId: 'userListStarred', summary: 'The repos that the given user has starred', tag: 'user',
    scope: 'read:user', signedIn: true, paginated: true, responses: { 200: 'RepositoryList', 404: 'notFound' },
    handle: async ({ deps, caller, doer, params, page, list }) => {
      const user = await loadUser(deps, caller, params.username);
      const { repos, total } = await listStarredRepos(deps.db, user.id, doer, page);
      return list(await renderRepos(deps, repos, doer), total);
    },
  }),
  route({
    method: 'get', path: '/user/starred/{owner}/{repo}', operationId: 'userCurrentCheckStarring', summary: 'Whether the authenticated is starring the repo', tag: 'user',
    scope: ['read:user', 'read:repository'], signedIn: true, repo: {}, responses: { 204: 'empty' },
    handle: async ({ deps, repo, doer }) => {
      if (!(await isStarring(deps.db, doer.id, repo.repo.id))) throw notFound('the repository is not starred');
      return noContent();
    },
  }),
  route({
    method: 'put', path: '/user/starred/{owner}/{repo}', operationId: 'userCurrentPutStar', summary: 'Star the given repo', tag: 'user',
    scope: ['write:user', 'write:repository'], signedIn: true, repo: {}, responses: { 204: 'empty', 403: 'forbidden' },
    handle: async ({ deps, repo, doer }) => {
      await inTx(deps, (tx) => starRepository(tx, doer, repo.repo));
      return noContent();
    },
  }),
  route({
    method: 'delete', path: '/user/starred/{owner}/{repo}', operationId: 'userCurrentDeleteStar', summary: 'Unstar the given repo', tag: 'user',
    scope: ['write:user', 'write:repository'], signedIn: true, repo: {}, responses: { 204: 'empty' },
    handle: async ({ deps, repo, doer }) => {
      await inTx(deps, (tx) => unstarRepository(tx, doer.id, repo.repo.id));
      return noContent();
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/stargazers', operationId: 'repoListStargazers', summary: "List a repo's stargazers", tag: 'repository',
    scope: 'read:repository', repo: {}, paginated: true, responses: { 200: 'UserList' },
    handle: async ({ deps, repo, doer, page, list }) => {
      const { users, total } = await listStargazers(deps.db, repo.repo.id, page);
      return list(users.map((u) => renderUser(u, doer, deps.config)), total);
    },
  }),
];
