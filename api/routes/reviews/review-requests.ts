import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { notFound } from '../../../db/errors.js';
import { findTeamByName, type TeamView } from '../../../db/models/orgs/teams.js';
import type { ReviewRow } from '../../../db/models/reviews/review-row.js';
import { changeTeamReviewRequest, changeUserReviewRequest } from '../../../db/models/reviews/review-requests.js';
import { findUserByLogin, findUserByName } from '../../../db/models/users/users.js';
import { userTypes, type UserRow } from '../../../db/models/users/user-row.js';
import { loadPull } from '../../context/pull.js';
import type { LoadedRepo } from '../../context/repo.js';
import type { Deps } from '../../deps.js';
import { limits, text } from '../../http/fields.js';
import { created, noContent, route } from '../../http/route.js';
import { renderReviews } from './reviews.js';

const requestBody = z.object({
  reviewers: z.array(text(limits.name)).max(100).optional(),
  team_reviewers: z.array(text(limits.name)).max(100).optional(),
});
type RequestBody = z.infer<typeof requestBody>;

/** Gitea's parseReviewersByNames: users by name (or e-mail address, with an `@`), teams of the owning organization; 404 for an unknown one. */
async function resolveReviewers(deps: Deps, repo: LoadedRepo, body: RequestBody): Promise<{ users: UserRow[]; teams: TeamView[] }> {
  const users: UserRow[] = [];
  for (const name of body.reviewers ?? []) {
    const user = name.includes('@') ? await findUserByLogin(deps.db, name) : await findUserByName(deps.db, name);
    if (!user) throw notFound(`User '${name}' not exist`);
    users.push(user);
  }
  const teams: TeamView[] = [];
  if (repo.owner.type === userTypes.organization) {
    for (const name of body.team_reviewers ?? []) {
      const team = await findTeamByName(deps.db, repo.owner.id, name);
      if (!team) throw notFound(`Team '${name}' not exist`);
      teams.push(team);
    }
  }
  return { users, teams };
}

async function change(deps: Deps, repo: LoadedRepo, doer: UserRow, index: number, body: RequestBody, isAdd: boolean): Promise<ReviewRow[]> {
  const { pull, issue } = await loadPull(deps, repo, index);
  const { users, teams } = await resolveReviewers(deps, repo, body);
  return inTx(deps, async (tx) => {
    const made: ReviewRow[] = [];
    for (const user of users) {
      const review = await changeUserReviewRequest(tx, repo.repo, issue, pull, doer, user, isAdd);
      if (review) made.push(review);
    }
    for (const team of teams) {
      const review = await changeTeamReviewRequest(tx, repo.repo, issue, pull, doer, team, isAdd);
      if (review) made.push(review);
    }
    return made;
  });
}

export const reviewRequestRoutes = [
  route({
    method: 'post', path: '/repos/{owner}/{repo}/pulls/{index}/requested_reviewers', operationId: 'repoCreatePullReviewRequests',
    summary: 'create review requests for a pull request', tag: 'repository', scope: 'write:repository', signedIn: true, repo: { unit: 'repo.pulls' },
    ids: ['index'], body: requestBody, responses: { 201: 'PullReviewList', 403: 'forbidden', 422: 'validationError' },
    handle: async ({ deps, repo, doer, ids, body }) => {
      const reviews = await change(deps, repo, doer, ids.index, body, true);
      const { issue } = await loadPull(deps, repo, ids.index);
      return created(await renderReviews(deps, repo, issue, reviews, doer));
    },
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/pulls/{index}/requested_reviewers', operationId: 'repoDeletePullReviewRequests',
    summary: 'cancel review requests for a pull request', tag: 'repository', scope: 'write:repository', signedIn: true, repo: { unit: 'repo.pulls' },
    ids: ['index'], body: requestBody, responses: { 204: 'empty', 403: 'forbidden', 422: 'validationError' },
    handle: async ({ deps, repo, doer, ids, body }) => {
      await change(deps, repo, doer, ids.index, body, false);
      return noContent();
    },
  }),
];
