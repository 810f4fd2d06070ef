import { userHeatmap } from '../../../db/models/activity/heatmap.js';
import { loadUser } from '../../context/user.js';
import { ok, route } from '../../http/route.js';

export const heatmapRoutes = [
  route({
    method: 'get', path: '/users/{username}/heatmap', operationId: 'userGetHeatmapData', summary: "Get a user's heatmap", tag: 'user',
    scope: 'read:user', responses: { 200: 'UserHeatmapData', 404: 'notFound' },
    handle: async ({ deps, caller, doer, params }) => ok(await userHeatmap(deps.db, await loadUser(deps, caller, params.username), doer)),
  }),
];
