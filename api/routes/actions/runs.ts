import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { notFound } from '../../../db/errors.js';
import { cancelRuns, findRun, listRunJobs, listRuns, runStates, settleRun } from '../../../db/models/actions/runs.js';
import { listSchedules } from '../../../db/models/actions/schedules.js';
import { findTaskSteps } from '../../../db/models/actions/tasks.js';
import { dispatchWorkflow } from '../../../db/models/actions/triggers.js';
import { findUsersByIds } from '../../../db/models/users/users.js';
import { limits, text } from '../../http/fields.js';
import { noContent, ok, route } from '../../http/route.js';
import { renderJob, renderRun, renderSchedule } from '../../render/actions-runs.js';
import { findRunnersOfTasks } from '../../../db/models/actions/runners.js';
import { requireActions } from './levels.js';

const runsQuery = z.object({
  status: z.enum(runStates).optional(),
  event: text(limits.name).optional(),
  branch: text(limits.name).optional(),
  head_sha: z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/).optional(),
});

const dispatchBody = z.object({
  ref: text(limits.name).min(1),
  inputs: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
});

const reader = { unit: 'repo.actions' } as const;

export const actionRunRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/actions/runs', operationId: 'getWorkflowRuns', summary: "Lists a repository's workflow runs", tag: 'repository',
    scope: 'read:repository', repo: reader, query: runsQuery, paginated: true, responses: { 200: 'ActionWorkflowRunsResponse', 422: 'validationError' },
    handle: async (ctx) => {
      requireActions(ctx);
      const { deps, repo, query, page, doer } = ctx;
      const { rows, total } = await listRuns(deps.db, repo.repo.id, { status: query.status, event: query.event, branch: query.branch, headSha: query.head_sha }, page);
      const users = await findUsersByIds(deps.db, rows.map((r) => r.trigger_user_id));
      const names = { owner: repo.owner.name, name: repo.repo.name };
      return ok({ workflow_runs: rows.map((run) => renderRun(run, names, users.get(run.trigger_user_id ?? 0) ?? null, doer, deps.config)), total_count: total });
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/actions/runs/{run}', operationId: 'GetWorkflowRun', summary: 'Gets a specific workflow run', tag: 'repository',
    scope: 'read:repository', repo: reader, ids: ['run'], responses: { 200: 'ActionWorkflowRun' },
    handle: async (ctx) => {
      requireActions(ctx);
      const { deps, repo, ids, doer } = ctx;
      const run = await findRun(deps.db, repo.repo.id, ids.run);
      if (!run) throw notFound();
      const users = await findUsersByIds(deps.db, [run.trigger_user_id]);
      return ok(renderRun(run, { owner: repo.owner.name, name: repo.repo.name }, users.get(run.trigger_user_id ?? 0) ?? null, doer, deps.config));
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/actions/runs/{run}/jobs', operationId: 'listWorkflowRunJobs', summary: 'Lists all jobs for a workflow run', tag: 'repository',
    scope: 'read:repository', repo: reader, ids: ['run'], paginated: true, responses: { 200: 'ActionWorkflowJobsResponse' },
    handle: async (ctx) => {
      requireActions(ctx);
      const { deps, repo, ids, page } = ctx;
      const run = await findRun(deps.db, repo.repo.id, ids.run);
      if (!run) throw notFound();
      const { rows, total } = await listRunJobs(deps.db, run.id, page);
      const taskIds = rows.map((j) => j.task_id).filter((id): id is number => id !== null);
      const [steps, runnerOf] = await Promise.all([findTaskSteps(deps.db, taskIds), findRunnersOfTasks(deps.db, taskIds)]);
      const names = { owner: repo.owner.name, name: repo.repo.name };
      return ok({
        jobs: rows.map((job) => renderJob(job, run, names, job.task_id ? runnerOf.get(job.task_id) ?? null : null, job.task_id ? steps.get(job.task_id) ?? [] : [], deps.config)),
        total_count: total,
      });
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/actions/runs/{run}/cancel', operationId: 'repoCancelActionRun', summary: "Cancels a workflow run (Hearth's own)", tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: { unit: 'repo.actions', mode: 'write' }, ids: ['run'], responses: { 200: 'ActionWorkflowRun' },
    handle: async (ctx) => {
      requireActions(ctx);
      const { deps, repo, ids, doer } = ctx;
      const run = await inTx(deps, async (tx) => {
        const found = await findRun(tx, repo.repo.id, ids.run);
        if (!found) throw notFound();
        await cancelRuns(tx, { runIds: [found.id] });
        return (await settleRun(tx, found.id))!;
      });
      const users = await findUsersByIds(deps.db, [run.trigger_user_id]);
      return ok(renderRun(run, { owner: repo.owner.name, name: repo.repo.name }, users.get(run.trigger_user_id ?? 0) ?? null, doer, deps.config));
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', operationId: 'ActionsDispatchWorkflow',
    summary: 'Create a workflow dispatch event', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: { unit: 'repo.actions', mode: 'write' }, body: dispatchBody,
    responses: { 204: 'empty', 404: 'notFound', 422: 'validationError' },
    handle: async (ctx) => {
      requireActions(ctx);
      const { deps, repo, doer, params, body } = ctx;
      await inTx(deps, (tx) => dispatchWorkflow(tx, deps.git, true, repo.repo, doer, params.workflow_id, body.ref, body.inputs ?? {}));
      return noContent();
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/actions/schedules', operationId: 'repoListActionSchedules',
    summary: "Lists a repository's schedule plans (Hearth's own)", tag: 'repository',
    scope: 'read:repository', repo: reader, responses: { 200: 'ActionScheduleList' },
    handle: async (ctx) => {
      requireActions(ctx);
      return ok((await listSchedules(ctx.deps.db, ctx.repo.repo.id)).map(renderSchedule));
    },
  }),
];
