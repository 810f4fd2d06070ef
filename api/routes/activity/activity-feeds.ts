import { z } from 'zod';
import { listRepoFeed, type FeedEntry } from '../../../db/models/activity/activity-feeds.js';
import type { UserRow } from '../../../db/models/users/user-row.js';
import { loadFeedViews } from '../../../db/views/feeds.js';
import type { RepoView } from '../../../db/views/repo.js';
import type { Deps } from '../../deps.js';
import { route } from '../../http/route.js';
import { renderActivity, type ApiActivity } from '../../render/activity.js';

const feedQuery = z.object({
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'date must be written YYYY-MM-DD').refine((d) => !Number.isNaN(Date.parse(d)), 'not a date').optional(),
});

/** Feed entries rendered for the viewer, each with its repository as the viewer sees it (`known`: views already loaded). */
export async function renderFeed(deps: Deps, entries: FeedEntry[], viewer: UserRow | null, known: RepoView[] = []): Promise<ApiActivity[]> {
  return (await loadFeedViews(deps.db, entries, viewer, known)).map((view) => renderActivity(view, viewer, deps.config));
}

export const activityFeedRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/activities/feeds', operationId: 'repoListActivityFeeds', summary: "List a repository's activity feeds", tag: 'repository',
    scope: 'read:repository', repo: {}, paginated: true, query: feedQuery, responses: { 200: 'ActivityFeedsList', 404: 'notFound' },
    handle: async ({ deps, repo, doer, query, page, list }) => {
      const { entries, total } = await listRepoFeed(deps.db, repo.repo.id, query.date, page);
      return list(await renderFeed(deps, entries, doer, [repo]), total);
    },
  }),
];
