import { countNodeUsage } from '../../../db/models/instance/node-usage.js';
import { ok, route } from '../../http/route.js';
import { renderNodeInfo } from '../../render/node-info.js';
import { apiVersion } from './misc.js';

export const nodeInfoRoutes = [
  route({
    method: 'get', path: '/nodeinfo', operationId: 'getNodeInfo', summary: 'Returns the nodeinfo of the Gitea application', tag: 'miscellaneous',
    scope: null, responses: { 200: 'NodeInfo' },
    handle: async ({ deps }) => ok(renderNodeInfo(await countNodeUsage(deps.db), apiVersion)),
  }),
];
