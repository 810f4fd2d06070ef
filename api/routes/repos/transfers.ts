import { z } from 'zod';
import { int64 } from '../../http/fields.js';
import { inTx } from '../../../db/data-source.js';
import { notFound } from '../../../db/errors.js';
import { acceptTransfer, rejectTransfer, startTransfer } from '../../../db/models/repos/transfers.js';
import { findUserByName } from '../../../db/models/users/users.js';
import { route } from '../../http/route.js';
import { loadRepoView } from '../../../db/views/repo.js';
import { renderRepository } from '../../render/repository.js';

const transferBody = z.object({
  new_owner: z.string().min(1),
  team_ids: z.array(int64()).optional(),
});

export const transferRoutes = [
  route({
    method: 'post', path: '/repos/{owner}/{repo}/transfer', operationId: 'repoTransfer', summary: 'Transfer a repo ownership', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: { mode: 'owner' }, body: transferBody,
    responses: { 201: 'Repository', 202: 'Repository', 409: 'error', 422: 'validationError' },
    handle: async ({ deps, repo, doer, body }) => {
      const recipient = await findUserByName(deps.db, body.new_owner);
      if (!recipient) throw notFound('The new owner does not exist or cannot be found');
      const { repo: moved, pending } = await inTx(deps, (tx) => startTransfer(tx, deps, repo.repo, doer, recipient, body.team_ids));
      // Gitea answers 201 for a transfer that waits for its recipient and 202 for one that is done.
      return { status: pending ? 201 : 202, body: renderRepository(await loadRepoView(deps.db, moved, doer), doer, deps.config) };
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/transfer/accept', operationId: 'acceptRepoTransfer', summary: 'Accept a repo transfer', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: {}, responses: { 202: 'Repository', 403: 'forbidden' },
    handle: async ({ deps, repo, doer }) => {
      const accepted = await inTx(deps, (tx) => acceptTransfer(tx, deps, repo.repo, doer));
      return { status: 202, body: renderRepository(await loadRepoView(deps.db, accepted, doer), doer, deps.config) };
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/transfer/reject', operationId: 'rejectRepoTransfer', summary: 'Reject a repo transfer', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: {}, responses: { 200: 'Repository', 403: 'forbidden' },
    handle: async ({ deps, repo, doer }) => {
      const rejected = await inTx(deps, (tx) => rejectTransfer(tx, repo.repo, doer));
      return { status: 200, body: renderRepository(await loadRepoView(deps.db, rejected, doer), doer, deps.config) };
    },
  }),
];
