import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { resolveForkOwner, forkRepository, listForks } from '../../../db/models/repos/forks.js';
import { pageOf, paged } from '../../http/pagination.js';
import { route } from '../../http/route.js';
import { doerOf } from '../../context/user.js';
import { loadRepo, renderRepos } from '../../context/repo.js';

const forkBody = z.object({
  organization: z.string().min(1).optional(),
  name: z.string().min(1).max(100).optional(),
});

export const forkRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/forks', operationId: 'listForks', summary: "List a repository's forks", tag: 'repository',
    scope: 'read:repository', paginated: true, responses: { 200: 'RepositoryList', 404: 'notFound' },
    handle: async (ctx) => {
      const { deps, caller, params } = ctx;
      const loaded = await loadRepo(deps, caller, params.owner, params.repo);
      const page = pageOf(ctx.query);
      const { repos, total } = await listForks(deps.db, loaded.repo, caller.user, page);
      return paged(await renderRepos(deps, repos, caller.user), total, page, ctx.url);
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/forks', operationId: 'createFork', summary: 'Fork a repository', tag: 'repository',
    scope: 'write:repository', signedIn: true, body: forkBody,
    responses: { 202: 'Repository', 403: 'forbidden', 404: 'notFound', 409: 'error', 422: 'validationError' },
    handle: async ({ deps, caller, params, body }) => {
      const doer = doerOf(caller);
      const loaded = await loadRepo(deps, caller, params.owner, params.repo);
      const owner = body.organization === undefined ? doer : await resolveForkOwner(deps.db, doer, body.organization);
      const fork = await inTx(deps, (tx) => forkRepository(tx, deps, loaded.repo, owner, doer, body.name ?? loaded.repo.name));
      const [rendered] = await renderRepos(deps, [fork], doer);
      return { status: 202, body: rendered };
    },
  }),
];
