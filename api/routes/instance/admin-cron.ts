import { inTx } from '../../../db/data-source.js';
import { listCronTasks, runCronTask } from '../../../db/models/instance/cron-tasks.js';
import { noContent, route } from '../../http/route.js';
import { renderCron } from '../../render/cron.js';

export const adminCronRoutes = [
  route({
    method: 'get', path: '/admin/cron', operationId: 'adminCronList', summary: 'List cron tasks', tag: 'admin',
    scope: 'read:admin', admin: true, paginated: true, responses: { 200: 'CronList', 403: 'forbidden' },
    handle: async ({ deps, page, list }) => {
      const tasks = await listCronTasks(deps.db, deps.config);
      return list(tasks.slice(page.offset, page.offset + page.limit).map(renderCron), tasks.length);
    },
  }),
  route({
    method: 'post', path: '/admin/cron/{task}', operationId: 'adminCronRun', summary: 'Run cron task', tag: 'admin',
    scope: 'write:admin', admin: true, responses: { 204: 'empty', 403: 'forbidden', 404: 'notFound' },
    handle: async ({ deps, params }) => {
      await inTx(deps, (tx) => runCronTask(tx, params.task));
      return noContent();
    },
  }),
];
