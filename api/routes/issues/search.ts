import { z } from 'zod';
import { badRequest } from '../../../db/errors.js';
import { searchIssues } from '../../../db/models/issues/issue-search.js';
import { findTeamByName } from '../../../db/models/orgs/teams.js';
import { findUserByName } from '../../../db/models/users/users.js';
import { userTypes } from '../../../db/models/users/user-row.js';
import { reposOfIssues } from '../../../db/views/issues.js';
import { route } from '../../http/route.js';
import { boolOf } from '../code/git-data.js';
import { renderIssues } from './render.js';
import { dateTimeQuery } from './schemas.js';

const names = (text: string | undefined): string[] | undefined => {
  const list = (text ?? '').split(',').map((part) => part.trim()).filter(Boolean);
  return list.length ? list : undefined;
};

const searchQuery = z.object({
  state: z.enum(['open', 'closed', 'all']).optional(),
  labels: z.string().optional(),
  milestones: z.string().optional(),
  q: z.string().optional(),
  priority_repo_id: z.coerce.number().int().nonnegative().optional(),
  type: z.enum(['issues', 'pulls']).optional(),
  since: dateTimeQuery,
  before: dateTimeQuery,
  assigned: z.string().optional(),
  created: z.string().optional(),
  mentioned: z.string().optional(),
  review_requested: z.string().optional(),
  reviewed: z.string().optional(),
  owner: z.string().optional(),
  team: z.string().optional(),
});

export const issueSearchRoutes = [
  route({
    method: 'get', path: '/repos/issues/search', operationId: 'issueSearchIssues', summary: 'Search for issues across the repositories that the user has access to',
    tag: 'issue', scope: 'read:issue', query: searchQuery, paginated: true, responses: { 200: 'IssueList', 400: 'error' },
    handle: async ({ deps, doer, query, page, list }) => {
      if (!deps.config.service.allowCrossRepositoryDependencies) throw badRequest('cross-repository issue search is disabled ([service] ALLOW_CROSS_REPOSITORY_DEPENDENCIES)');
      const owner = query.owner ? await findUserByName(deps.db, query.owner) : null;
      if (query.owner && !owner) throw badRequest(`Owner not found: ${query.owner}`);
      let teamId: number | undefined;
      if (query.team) {
        if (!owner || owner.type !== userTypes.organization) throw badRequest('Owner organisation is required for filtering on team');
        const team = await findTeamByName(deps.db, owner.id, query.team);
        if (!team) throw badRequest(`Team not found: ${query.team}`);
        teamId = team.id;
      }
      const mine = (flag: string | undefined): number | undefined => (doer && boolOf(flag) ? doer.id : undefined);
      const { rows, total } = await searchIssues(deps.db, {
        viewerId: doer?.id ?? null, state: query.state ?? 'open', isPull: query.type === undefined ? undefined : query.type === 'pulls',
        keyword: query.q?.trim() || undefined, since: query.since, before: query.before, labelNames: names(query.labels),
        milestoneNames: names(query.milestones), priorityRepoId: query.priority_repo_id || undefined, ownerId: owner?.id, teamId,
        posterId: mine(query.created), assigneeId: mine(query.assigned), mentionedId: mine(query.mentioned),
        reviewRequestedId: mine(query.review_requested), reviewedId: mine(query.reviewed),
      }, page);
      return list(await renderIssues(deps, rows, await reposOfIssues(deps.db, rows)), total);
    },
  }),
];
