import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { resolveForkOwner, forkRepository, listForks } from '../../../db/models/repos/forks.js';
import { loadRepoView } from '../../../db/views/repo.js';
import { route } from '../../http/route.js';
import { renderRepos } from '../../context/repo.js';
import { renderRepository } from '../../render/repository.js';

const forkBody = z.object({
  organization: z.string().min(1).optional(),
  name: z.string().min(1).max(100).optional(),
});

export const forkRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/forks', operationId: 'listForks', summary: "List a repository's forks", tag: 'repository',
    scope: 'read:repository', repo: {}, paginated: true, responses: { 200: 'RepositoryList' },
    handle: async ({ deps, repo, doer, page, list }) => {
      const { repos, total } = await listForks(deps.db, repo.repo, doer, page);
      return list(await renderRepos(deps, repos, doer), total);
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/forks', operationId: 'createFork', summary: 'Fork a repository', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: {}, body: forkBody,
    responses: { 202: 'Repository', 403: 'forbidden', 409: 'error', 422: 'validationError' },
    handle: async ({ deps, repo, doer, body }) => {
      const owner = body.organization === undefined ? doer : await resolveForkOwner(deps.db, doer, body.organization);
      const fork = await inTx(deps, (tx) => forkRepository(tx, deps, repo.repo, owner, doer, body.name ?? repo.repo.name));
      return { status: 202, body: renderRepository(await loadRepoView(deps.db, fork, doer), doer, deps.config) };
    },
  }),
];
