import { z } from 'zod';
import { queryId } from '../../http/fields.js';
import { modeFilters, searchRepositories, type RepoSearch } from '../../../db/models/repos/repo-search.js';
import type { UserRow } from '../../../db/models/users/user-row.js';
import { renderRepos } from '../../context/repo.js';
import type { Page } from '../../http/pagination.js';
import { route } from '../../http/route.js';

/** Go's strconv.ParseBool spellings, which Gitea's FormBool accepts. */
const flag = z
  .enum(['1', 't', 'T', 'true', 'TRUE', 'True', '0', 'f', 'F', 'false', 'FALSE', 'False'])
  .transform((v) => ['1', 't', 'true'].includes(v.toLowerCase()))
  .optional();
const id = queryId().optional();

const searchQuery = z.object({
  q: z.string().optional(),
  topic: flag,
  includeDesc: flag,
  uid: id,
  priority_owner_id: id,
  team_id: id,
  starredBy: id,
  private: flag,
  is_private: flag,
  template: flag,
  archived: flag,
  mode: z.string().optional(),
  exclusive: flag,
  sort: z.string().optional(),
  order: z.string().optional(),
});

/** Gitea's query parameters as the search's options; private repositories only for a caller who does not opt out. */
function buildRepoSearch(query: z.output<typeof searchQuery>, viewer: UserRow | null, page: Page): RepoSearch {
  return {
    keyword: query.q?.trim() || undefined,
    topicOnly: query.topic,
    includeDescription: query.includeDesc,
    ownerId: query.uid,
    ...(query.exclusive ? { collaborate: false } : {}),
    ...modeFilters(query.mode),
    priorityOwnerId: query.priority_owner_id,
    teamId: query.team_id,
    starredBy: query.starredBy,
    includePrivate: viewer !== null && query.private !== false,
    isPrivate: query.is_private,
    template: query.template,
    archived: query.archived,
    sort: query.sort,
    order: query.order,
    limit: page.limit,
    offset: page.offset,
  };
}

export const repoSearchRoutes = [
  route({
    method: 'get', path: '/repos/search', operationId: 'repoSearch', summary: 'Search for repositories', tag: 'repository',
    scope: 'read:repository', paginated: true, query: searchQuery, responses: { 200: 'SearchResults', 422: 'validationError' },
    handle: async ({ deps, doer, query, page, list }) => {
      const { repos, total } = await searchRepositories(deps.db, doer, buildRepoSearch(query, doer, page));
      return { ...list([], total), body: { ok: true, data: await renderRepos(deps, repos, doer) } };
    },
  }),
];
