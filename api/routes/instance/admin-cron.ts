import { listCronTasks, runCronTask } from '../../../db/models/instance/cron-tasks.js';
import { pageOf, paged } from '../../http/pagination.js';
import { noContent, route } from '../../http/route.js';
import { renderCron } from '../../render/cron.js';

export const adminCronRoutes = [
  route({
    method: 'get', path: '/admin/cron', operationId: 'adminCronList', summary: 'List cron tasks', tag: 'admin',
    scope: 'read:admin', admin: true, paginated: true, responses: { 200: 'CronList', 403: 'forbidden' },
    handle: async (ctx) => {
      const tasks = await listCronTasks(ctx.deps.boss, ctx.deps.db);
      const page = pageOf(ctx.query);
      const url = ctx.url;
      return paged(tasks.slice(page.offset, page.offset + page.limit).map(renderCron), tasks.length, page, url);
    },
  }),
  route({
    method: 'post', path: '/admin/cron/{task}', operationId: 'adminCronRun', summary: 'Run cron task', tag: 'admin',
    scope: 'write:admin', admin: true, responses: { 204: 'empty', 403: 'forbidden', 404: 'notFound' },
    handle: async ({ deps, params }) => {
      await runCronTask(deps.boss, params.task);
      return noContent();
    },
  }),
];
