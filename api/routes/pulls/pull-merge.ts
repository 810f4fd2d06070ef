import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { notFound } from '../../../db/errors.js';
import { mergeStyles } from '../../../db/models/pulls/merge-checks.js';
import { mergePull } from '../../../db/models/pulls/merge.js';
import { scheduleMergeUnlessReady } from '../../../db/models/automerge/scheduled-merges.js';
import { updatePullBranch } from '../../../db/models/pulls/pull-update.js';
import { loadPull } from '../../context/pull.js';
import { noContent, route } from '../../http/route.js';

/** MergePullRequestOption (Gitea's form names). `merge_when_checks_succeed` belongs to scheduled auto-merge. */
export const mergePullBody = z.object({
  Do: z.enum(mergeStyles),
  MergeTitleField: z.string().optional(),
  MergeMessageField: z.string().optional(),
  MergeCommitID: z.string().optional(),
  head_commit_id: z.string().optional(),
  delete_branch_after_merge: z.boolean().optional(),
  force_merge: z.boolean().optional(),
  merge_when_checks_succeed: z.boolean().optional(),
});

export const pullMergeRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/pulls/{index}/merge', operationId: 'repoPullRequestIsMerged', summary: 'Check if a pull request has been merged',
    tag: 'repository', scope: 'read:repository', repo: { unit: 'repo.pulls' }, ids: ['index'], responses: { 204: 'empty', 404: 'notFound' },
    handle: async ({ deps, repo, ids }) => {
      const { pull } = await loadPull(deps, repo, ids.index);
      if (!pull.has_merged) throw notFound('pull request has not been merged');
      return noContent();
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/pulls/{index}/merge', operationId: 'repoMergePullRequest', summary: 'Merge a pull request',
    tag: 'repository', scope: 'write:repository', signedIn: true, repo: { unit: 'repo.pulls', notArchived: true }, ids: ['index'], body: mergePullBody,
    responses: { 200: 'empty', 201: 'empty', 404: 'notFound', 405: 'empty', 409: 'error', 422: 'validationError', 423: 'error' },
    handle: async ({ deps, repo, doer, ids, body }) => {
      const { pull } = await loadPull(deps, repo, ids.index);
      if (body.merge_when_checks_succeed && body.Do !== 'manually-merged') {
        const scheduled = await inTx(deps, (tx) => scheduleMergeUnlessReady(tx, deps, repo.repo, pull, doer, {
          style: body.Do, message: [body.MergeTitleField?.trim(), body.MergeMessageField?.trim()].filter(Boolean).join('\n\n'),
          deleteBranchAfterMerge: body.delete_branch_after_merge ?? repo.repo.default_delete_branch_after_merge,
        }));
        if (scheduled) return { status: 201 };
      }
      await inTx(deps, (tx) => mergePull(tx, deps, repo.repo, pull, doer, {
        style: body.Do, title: body.MergeTitleField, message: body.MergeMessageField, headCommitId: body.head_commit_id || undefined,
        mergeCommitId: body.MergeCommitID, deleteBranchAfterMerge: body.delete_branch_after_merge, force: body.force_merge,
      }));
      return { status: 200 };
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/pulls/{index}/update', operationId: 'repoUpdatePullRequest',
    summary: "Merge PR's baseBranch into headBranch", tag: 'repository', scope: 'write:repository', signedIn: true, repo: { unit: 'repo.pulls' },
    ids: ['index'], query: z.object({ style: z.enum(['merge', 'rebase']).optional() }),
    responses: { 200: 'empty', 403: 'forbidden', 404: 'notFound', 409: 'error', 422: 'validationError' },
    handle: async ({ deps, repo, doer, ids, query }) => {
      const { pull } = await loadPull(deps, repo, ids.index);
      await inTx(deps, (tx) => updatePullBranch(tx, deps, repo.repo, pull, doer, query.style ?? 'merge'));
      return { status: 200 };
    },
  }),
];

