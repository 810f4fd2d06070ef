import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { notFound } from '../../../db/errors.js';
import { accessModes } from '../../../db/models/repos/repo-row.js';
import { acceptTransfer, rejectTransfer, startTransfer } from '../../../db/models/repos/transfers.js';
import { findUserByName } from '../../../db/models/users/users.js';
import { route } from '../../http/route.js';
import { doerOf } from '../../context/user.js';
import { loadRepo, requireMode } from '../../context/repo.js';
import { loadRepoView } from '../../../db/views/repo.js';
import { renderRepository } from '../../render/repository.js';

const transferBody = z.object({
  new_owner: z.string().min(1),
  team_ids: z.array(z.number().int()).optional(),
});

const repoResponses = { 403: 'forbidden', 404: 'notFound' } as const;

export const transferRoutes = [
  route({
    method: 'post', path: '/repos/{owner}/{repo}/transfer', operationId: 'repoTransfer', summary: 'Transfer a repo ownership', tag: 'repository',
    scope: 'write:repository', signedIn: true, body: transferBody,
    responses: { 201: 'Repository', 202: 'Repository', ...repoResponses, 409: 'error', 422: 'validationError' },
    handle: async ({ deps, caller, params, body }) => {
      const doer = doerOf(caller);
      const loaded = await loadRepo(deps, caller, params.owner, params.repo);
      requireMode(loaded, accessModes.owner);
      const recipient = await findUserByName(deps.db, body.new_owner);
      if (!recipient) throw notFound('The new owner does not exist or cannot be found');
      const { repo, pending } = await inTx(deps, (tx) => startTransfer(tx, deps, loaded.repo, doer, recipient, body.team_ids));
      // Gitea answers 201 for a transfer that waits for its recipient and 202 for one that is done.
      return { status: pending ? 201 : 202, body: renderRepository(await loadRepoView(deps.db, repo, doer), doer, deps.config) };
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/transfer/accept', operationId: 'acceptRepoTransfer', summary: 'Accept a repo transfer', tag: 'repository',
    scope: 'write:repository', signedIn: true, responses: { 202: 'Repository', ...repoResponses },
    handle: async ({ deps, caller, params }) => {
      const doer = doerOf(caller);
      const loaded = await loadRepo(deps, caller, params.owner, params.repo);
      const repo = await inTx(deps, (tx) => acceptTransfer(tx, deps, loaded.repo, doer));
      return { status: 202, body: renderRepository(await loadRepoView(deps.db, repo, doer), doer, deps.config) };
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/transfer/reject', operationId: 'rejectRepoTransfer', summary: 'Reject a repo transfer', tag: 'repository',
    scope: 'write:repository', signedIn: true, responses: { 200: 'Repository', ...repoResponses },
    handle: async ({ deps, caller, params }) => {
      const doer = doerOf(caller);
      const loaded = await loadRepo(deps, caller, params.owner, params.repo);
      const repo = await inTx(deps, (tx) => rejectTransfer(tx, loaded.repo, doer));
      return { status: 200, body: renderRepository(await loadRepoView(deps.db, repo, doer), doer, deps.config) };
    },
  }),
];
