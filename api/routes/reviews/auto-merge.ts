import { inTx } from '../../../db/data-source.js';
import { cancelAutoMerge } from '../../../db/models/automerge/scheduled-merges.js';
import { loadPull } from '../../context/pull.js';
import { noContent, route } from '../../http/route.js';

export const autoMergeRoutes = [
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/pulls/{index}/merge', operationId: 'repoCancelScheduledAutoMerge',
    summary: 'Cancel the scheduled auto merge for the given pull request', tag: 'repository', scope: 'write:repository', signedIn: true,
    repo: { unit: 'repo.pulls', notArchived: true }, ids: ['index'], responses: { 204: 'empty', 423: 'error' },
    handle: async ({ deps, repo, doer, ids }) => {
      const { pull, issue } = await loadPull(deps, repo, ids.index);
      await inTx(deps, (tx) => cancelAutoMerge(tx, repo.repo, issue, pull, doer, repo.repoMode));
      return noContent();
    },
  }),
];
