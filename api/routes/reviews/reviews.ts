import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { forbidden, invalid } from '../../../db/errors.js';
import type { IssueRow } from '../../../db/models/issues/issue-row.js';
import type { PullRow } from '../../../db/models/pulls/pull-row.js';
import { reviewTypes, type ReviewRow } from '../../../db/models/reviews/review-row.js';
import {
  codeCommentsOfReview, createReview, deleteReview, dismissReview, getReviewOfIssue, listReviews, reviewTypeOf, submitReview, visibleReviews,
} from '../../../db/models/reviews/reviews.js';
import { pullHeadRef } from '../../../db/models/pulls/pull-row.js';
import { accessModes } from '../../../db/models/repos/repo-row.js';
import type { UserRow } from '../../../db/models/users/user-row.js';
import { loadReviewCommentViews, loadReviewViews } from '../../../db/views/reviews.js';
import { loadPull } from '../../context/pull.js';
import type { LoadedRepo } from '../../context/repo.js';
import type { Deps } from '../../deps.js';
import { int64, limits, refName, text } from '../../http/fields.js';
import { noContent, ok, route } from '../../http/route.js';
import { renderPullReview, renderPullReviewComment, type ApiPullReview } from '../../render/review.js';

const pullsRepo = { unit: 'repo.pulls' } as const;
const reviewEvent = z.string().max(32).optional();
const createReviewBody = z.object({
  body: text(limits.text).optional(),
  commit_id: refName().optional(),
  event: reviewEvent,
  comments: z.array(z.object({
    path: text(4096).optional(),
    body: text(limits.text).optional(),
    old_position: int64().optional(),
    new_position: int64().optional(),
  })).max(1000).optional(),
});
const submitReviewBody = z.object({ body: text(limits.text).optional(), event: reviewEvent });
const dismissBody = z.object({ message: text(limits.text).optional(), priors: z.boolean().optional() });

export async function renderReviews(deps: Deps, repo: LoadedRepo, issue: IssueRow, reviews: ReviewRow[], viewer: UserRow | null): Promise<ApiPullReview[]> {
  const views = await loadReviewViews(deps.db, reviews, issue, repo.repo);
  return views.map((view) => renderPullReview(view, viewer, deps.config));
}

async function renderReview(deps: Deps, repo: LoadedRepo, issue: IssueRow, review: ReviewRow, viewer: UserRow | null): Promise<ApiPullReview> {
  return (await renderReviews(deps, repo, issue, [review], viewer))[0];
}

/** The pull request `{index}` and its review `{id}` as the caller may see it (Gitea's prepareSingleReview). */
async function loadReview(deps: Deps, repo: LoadedRepo, index: number, id: number, viewer: UserRow | null): Promise<{ pull: PullRow; issue: IssueRow; review: ReviewRow }> {
  const { pull, issue } = await loadPull(deps, repo, index);
  return { pull, issue, review: await getReviewOfIssue(deps.db, issue, id, viewer) };
}

async function dismissal(deps: Deps, repo: LoadedRepo, doer: UserRow, index: number, id: number, change: { dismiss: boolean; message: string; priors: boolean }) {
  if (repo.repoMode < accessModes.admin) throw forbidden('Must be repo admin');
  const { pull, issue, review } = await loadReview(deps, repo, index, id, doer);
  const row = await inTx(deps, (tx) => dismissReview(tx, repo.repo, issue, pull, review, doer, change));
  return ok(await renderReview(deps, repo, issue, row, doer));
}

export const reviewRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/pulls/{index}/reviews', operationId: 'repoListPullReviews', summary: 'List all reviews for a pull request',
    tag: 'repository', scope: 'read:repository', repo: pullsRepo, ids: ['index'], paginated: true, responses: { 200: 'PullReviewList' },
    handle: async ({ deps, repo, ids, page, list, doer }) => {
      const { issue } = await loadPull(deps, repo, ids.index);
      const { rows, total } = await listReviews(deps.db, issue.id, page);
      return list(await renderReviews(deps, repo, issue, visibleReviews(rows, doer), doer), total);
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/pulls/{index}/reviews', operationId: 'repoCreatePullReview', summary: 'Create a review to an pull request',
    tag: 'repository', scope: 'write:repository', signedIn: true, repo: pullsRepo, ids: ['index'], body: createReviewBody,
    responses: { 200: 'PullReview', 422: 'validationError' },
    handle: async ({ deps, repo, doer, ids, body }) => {
      const { pull, issue } = await loadPull(deps, repo, ids.index);
      const comments = (body.comments ?? []).map((c) => ({
        path: c.path ?? '', body: c.body ?? '', line: (c.old_position ?? 0) > 0 ? -(c.old_position ?? 0) : (c.new_position ?? 0),
      }));
      const type = reviewTypeOf(issue, doer, body.event ?? '', body.body ?? '', comments.length > 0);
      const review = await inTx(deps, (tx) => createReview(tx, deps, repo.repo, issue, pull, doer, {
        type, body: body.body ?? '', commitId: body.commit_id, comments,
      }));
      return ok(await renderReview(deps, repo, issue, review, doer));
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/pulls/{index}/reviews/{id}', operationId: 'repoGetPullReview', summary: 'Get a specific review for a pull request',
    tag: 'repository', scope: 'read:repository', repo: pullsRepo, ids: ['index', 'id'], responses: { 200: 'PullReview' },
    handle: async ({ deps, repo, ids, doer }) => {
      const { issue, review } = await loadReview(deps, repo, ids.index, ids.id, doer);
      return ok(await renderReview(deps, repo, issue, review, doer));
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/pulls/{index}/reviews/{id}', operationId: 'repoSubmitPullReview', summary: 'Submit a pending review to an pull request',
    tag: 'repository', scope: 'write:repository', signedIn: true, repo: pullsRepo, ids: ['index', 'id'], body: submitReviewBody,
    responses: { 200: 'PullReview', 422: 'validationError' },
    handle: async ({ deps, repo, doer, ids, body }) => {
      const { pull, issue, review } = await loadReview(deps, repo, ids.index, ids.id, doer);
      if (review.type !== reviewTypes.pending) throw invalid('only a pending review can be submitted');
      const codeComments = await codeCommentsOfReview(deps.db, review);
      const type = reviewTypeOf(issue, doer, body.event ?? '', body.body ?? '', codeComments.length > 0);
      if (type === reviewTypes.pending) throw invalid('review stay pending');
      const head = (await deps.git.open(repo.repo).resolve(pullHeadRef(pull.index))) ?? pull.head_commit_id;
      const row = await inTx(deps, (tx) => submitReview(tx, deps, repo.repo, issue, pull, doer, type, body.body ?? '', head));
      return ok(await renderReview(deps, repo, issue, row, doer));
    },
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/pulls/{index}/reviews/{id}', operationId: 'repoDeletePullReview', summary: 'Delete a specific review from a pull request',
    tag: 'repository', scope: 'write:repository', signedIn: true, repo: pullsRepo, ids: ['index', 'id'], responses: { 204: 'empty', 422: 'validationError' },
    handle: async ({ deps, repo, doer, ids }) => {
      const { issue, review } = await loadReview(deps, repo, ids.index, ids.id, doer);
      await inTx(deps, (tx) => deleteReview(tx, repo.repo, issue, review, doer));
      return noContent();
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/pulls/{index}/reviews/{id}/comments', operationId: 'repoGetPullReviewComments',
    summary: 'Get a specific review for a pull request', tag: 'repository', scope: 'read:repository', repo: pullsRepo, ids: ['index', 'id'],
    responses: { 200: 'PullReviewCommentList' },
    handle: async ({ deps, repo, ids, doer }) => {
      const { issue, review } = await loadReview(deps, repo, ids.index, ids.id, doer);
      const comments = await codeCommentsOfReview(deps.db, review);
      const views = await loadReviewCommentViews(deps.db, comments, review, issue, repo.repo);
      return ok(views.map((view) => renderPullReviewComment(view, doer, deps.config)));
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/pulls/{index}/reviews/{id}/dismissals', operationId: 'repoDismissPullReview',
    summary: 'Dismiss a review for a pull request', tag: 'repository', scope: 'write:repository', signedIn: true, repo: pullsRepo, ids: ['index', 'id'],
    body: dismissBody, responses: { 200: 'PullReview', 422: 'validationError' },
    handle: async ({ deps, repo, doer, ids, body }) =>
      dismissal(deps, repo, doer, ids.index, ids.id, { dismiss: true, message: body.message ?? '', priors: body.priors ?? false }),
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/pulls/{index}/reviews/{id}/undismissals', operationId: 'repoUnDismissPullReview',
    summary: 'Cancel to dismiss a review for a pull request', tag: 'repository', scope: 'write:repository', signedIn: true, repo: pullsRepo, ids: ['index', 'id'],
    responses: { 200: 'PullReview', 422: 'validationError' },
    handle: async ({ deps, repo, doer, ids }) => dismissal(deps, repo, doer, ids.index, ids.id, { dismiss: false, message: '', priors: false }),
  }),
];
