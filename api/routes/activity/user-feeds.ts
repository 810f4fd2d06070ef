import { z } from 'zod';
import { listUserFeed } from '../../../db/models/activity/activity-feeds.js';
import { isActivityVisible } from '../../../db/models/activity/heatmap.js';
import { loadUser } from '../../context/user.js';
import { route } from '../../http/route.js';
import { renderFeed } from './activity-feeds.js';

const feedQuery = z.object({
  'only-performed-by': z.enum(['true', 'false', '1', '0']).optional(),
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'date must be written YYYY-MM-DD').refine((d) => !Number.isNaN(Date.parse(d)), 'not a date').optional(),
});

export const userFeedRoutes = [
  route({
    method: 'get', path: '/users/{username}/activities/feeds', operationId: 'userListActivityFeeds', summary: "List a user's activity feeds", tag: 'user',
    scope: 'read:user', paginated: true, query: feedQuery, responses: { 200: 'ActivityFeedsList', 404: 'notFound' },
    handle: async ({ deps, caller, doer, params, query, page, list }) => {
      const user = await loadUser(deps, caller, params.username);
      if (!isActivityVisible(user, doer)) return list([], 0);
      const { entries, total } = await listUserFeed(deps.db, {
        userId: user.id,
        viewerId: doer?.id ?? null,
        includePrivate: doer !== null && (doer.is_admin || doer.id === user.id),
        onlyPerformedBy: query['only-performed-by'] === 'true' || query['only-performed-by'] === '1',
        day: query.date,
      }, page);
      return list(await renderFeed(deps, entries, doer), total);
    },
  }),
];
