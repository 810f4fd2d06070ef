import { z } from 'zod';
import { listMirrorStatus } from '../../../db/models/instance/mirror-monitor.js';
import {
  cancelJob, deleteEndedJobs, jobStates, listQueueJobs, queueFigures, queueNamed, retryFailedJobs, retryJob,
} from '../../../db/models/instance/queue-monitor.js';
import { ok, route } from '../../http/route.js';
import { renderMirrorStatus, renderQueue, renderQueueJob } from '../../render/queue-monitor.js';

// Hearth's own operator paths (no Gitea counterpart), documented under the `hearth` tag.
const tag = 'hearth';
const read = { scope: 'read:admin', admin: true, tag } as const;
const write = { scope: 'write:admin', admin: true, tag } as const;

export const adminQueueRoutes = [
  route({
    ...read, method: 'get', path: '/admin/queues', operationId: 'hearthAdminQueues',
    summary: 'Every job queue with its live counts and the last hour of work', responses: { 200: 'HearthQueueList' },
    handle: async ({ deps }) => ok((await queueFigures(deps.db)).map((figures) => renderQueue(figures, new Date()))),
  }),
  route({
    ...read, method: 'get', path: '/admin/queues/{name}/jobs', operationId: 'hearthAdminQueueJobs',
    summary: "A queue's jobs, newest first, credentials removed", paginated: true,
    query: z.object({ state: z.enum(jobStates).optional() }),
    responses: { 200: 'HearthQueueJobList', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, params, query, page, list }) => {
      const { jobs, total } = await listQueueJobs(deps.db, queueNamed(params.name), query.state, page.offset, page.limit);
      return list(jobs.map(renderQueueJob), total);
    },
  }),
  route({
    ...write, method: 'post', path: '/admin/queues/{name}/jobs/{id}/retry', operationId: 'hearthAdminRetryJob',
    summary: 'Run a failed or cancelled job again', responses: { 200: 'HearthQueueJob', 404: 'notFound', 409: 'conflict' },
    handle: async ({ deps, params }) => ok(renderQueueJob(await retryJob(deps.db, queueNamed(params.name), params.id))),
  }),
  route({
    ...write, method: 'post', path: '/admin/queues/{name}/jobs/{id}/cancel', operationId: 'hearthAdminCancelJob',
    summary: 'Cancel a job that has not ended', responses: { 200: 'HearthQueueJob', 404: 'notFound', 409: 'conflict' },
    handle: async ({ deps, params }) => ok(renderQueueJob(await cancelJob(deps.db, queueNamed(params.name), params.id))),
  }),
  route({
    ...write, method: 'post', path: '/admin/queues/{name}/retry-failed', operationId: 'hearthAdminRetryFailed',
    summary: "Run every failed job of a queue again", responses: { 200: 'HearthRetried', 404: 'notFound' },
    handle: async ({ deps, params }) => ok({ retried: await retryFailedJobs(deps.db, queueNamed(params.name)) }),
  }),
  route({
    ...write, method: 'delete', path: '/admin/queues/{name}/jobs', operationId: 'hearthAdminDeleteJobs',
    summary: "Remove a queue's failed or completed jobs", query: z.object({ state: z.enum(['failed', 'completed']) }),
    responses: { 200: 'HearthDeleted', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, params, query }) => ok({ deleted: await deleteEndedJobs(deps.db, queueNamed(params.name), query.state) }),
  }),
  route({
    ...read, method: 'get', path: '/admin/mirrors', operationId: 'hearthAdminMirrors',
    summary: 'Every pull and push mirror with its last sync and whether it is late', 
    query: z.object({ failing: z.stringbool().optional(), overdue: z.stringbool().optional() }),
    responses: { 200: 'HearthMirrorStatusList', 422: 'validationError' },
    handle: async ({ deps, query }) => ok((await listMirrorStatus(deps.db, query)).map(renderMirrorStatus)),
  }),
];
