import { z } from 'zod';
import { listRepoFeed } from '../../../db/models/activity/activity-feeds.js';
import { loadRepo } from '../../context/repo.js';
import { pageOf, paged } from '../../http/pagination.js';
import { route } from '../../http/route.js';
import { renderActivity } from '../../render/activity.js';

const feedQuery = z.object({
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'date must be written YYYY-MM-DD').refine((d) => !Number.isNaN(Date.parse(d)), 'not a date').optional(),
});

export const activityFeedRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/activities/feeds', operationId: 'repoListActivityFeeds', summary: "List a repository's activity feeds", tag: 'repository',
    scope: 'read:repository', paginated: true, query: feedQuery, responses: { 200: 'ActivityFeedsList', 404: 'notFound' },
    handle: async (ctx) => {
      const loaded = await loadRepo(ctx.deps, ctx.caller, ctx.params.owner, ctx.params.repo);
      const page = pageOf(ctx.query);
      const { entries, total } = await listRepoFeed(ctx.deps.db, loaded.repo.id, ctx.query.date, page);
      const url = ctx.url;
      return paged(entries.map((entry) => renderActivity(entry, loaded, ctx.caller.user, ctx.deps.config)), total, page, url);
    },
  }),
];
