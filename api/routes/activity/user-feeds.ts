import { z } from 'zod';
import { listUserFeed } from '../../../db/models/activity/activity-feeds.js';
import { isActivityVisible } from '../../../db/models/activity/heatmap.js';
import { loadUser } from '../../context/user.js';
import { pageOf, paged } from '../../http/pagination.js';
import { route } from '../../http/route.js';
import { renderFeed } from '../orgs/orgs.js';

const feedQuery = z.object({
  'only-performed-by': z.enum(['true', 'false', '1', '0']).optional(),
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'date must be written YYYY-MM-DD').refine((d) => !Number.isNaN(Date.parse(d)), 'not a date').optional(),
});
type FeedQuery = z.infer<typeof feedQuery> & { page?: number; limit?: number };

export const userFeedRoutes = [
  route({
    method: 'get', path: '/users/{username}/activities/feeds', operationId: 'userListActivityFeeds', summary: "List a user's activity feeds", tag: 'user',
    scope: 'read:user', paginated: true, query: feedQuery, responses: { 200: 'ActivityFeedsList', 404: 'notFound' },
    handle: async (ctx) => {
      const { deps, caller, query } = ctx;
      const user = await loadUser(deps, caller, ctx.params.username);
      const viewer = caller.user;
      const page = pageOf(query);
      const url = ctx.url;
      if (!isActivityVisible(user, viewer)) return paged([], 0, page, url);
      const { entries, total } = await listUserFeed(deps.db, {
        userId: user.id,
        viewerId: viewer?.id ?? null,
        includePrivate: viewer !== null && (viewer.is_admin || viewer.id === user.id),
        onlyPerformedBy: query['only-performed-by'] === 'true' || query['only-performed-by'] === '1',
        day: query.date,
      }, page);
      return paged(await renderFeed(deps, entries, viewer), total, page, url);
    },
  }),
];
