import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { createMilestone, deleteMilestone, editMilestone, getMilestoneByIdOrName, listMilestones } from '../../../db/models/issues/milestones.js';
import { created, noContent, ok, route } from '../../http/route.js';
import { renderMilestone } from '../../render/issue.js';
import { dateTime } from './schemas.js';

const milestoneBody = z.object({
  title: z.string().optional(),
  description: z.string().optional(),
  due_on: dateTime.optional(),
  state: z.enum(['open', 'closed']).optional(),
});

const reader = { unit: 'repo.issues' } as const;
const writer = { unit: 'repo.issues', mode: 'write' } as const;

export const milestoneRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/milestones', operationId: 'issueGetMilestonesList', summary: "Get all of a repository's opened milestones", tag: 'issue',
    scope: 'read:issue', repo: reader, paginated: true,
    query: z.object({ state: z.enum(['open', 'closed', 'all']).optional(), name: z.string().optional() }), responses: { 200: 'MilestoneList' },
    handle: async ({ deps, repo, query, page, list }) => {
      const { rows, total } = await listMilestones(deps.db, repo.repo.id, { state: query.state ?? 'open', name: query.name }, page);
      return list(rows.map(renderMilestone), total);
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/milestones', operationId: 'issueCreateMilestone', summary: 'Create a milestone', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: writer, body: milestoneBody, responses: { 201: 'Milestone', 422: 'validationError' },
    handle: async ({ deps, repo, body }) => created(renderMilestone(await inTx(deps, (tx) => createMilestone(tx, repo.repo.id, body)))),
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/milestones/{id}', operationId: 'issueGetMilestone', summary: 'Get a milestone', tag: 'issue',
    scope: 'read:issue', repo: reader, responses: { 200: 'Milestone' },
    handle: async ({ deps, repo, params }) => ok(renderMilestone(await getMilestoneByIdOrName(deps.db, repo.repo.id, params.id))),
  }),
  route({
    method: 'patch', path: '/repos/{owner}/{repo}/milestones/{id}', operationId: 'issueEditMilestone', summary: 'Update a milestone', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: writer, body: milestoneBody, responses: { 200: 'Milestone', 422: 'validationError' },
    handle: async ({ deps, repo, params, body }) => {
      const milestone = await getMilestoneByIdOrName(deps.db, repo.repo.id, params.id);
      return ok(renderMilestone(await inTx(deps, (tx) => editMilestone(tx, milestone, body))));
    },
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/milestones/{id}', operationId: 'issueDeleteMilestone', summary: 'Delete a milestone', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: writer, responses: { 204: 'empty' },
    handle: async ({ deps, repo, params }) => {
      const milestone = await getMilestoneByIdOrName(deps.db, repo.repo.id, params.id);
      await inTx(deps, (tx) => deleteMilestone(tx, milestone));
      return noContent();
    },
  }),
];
