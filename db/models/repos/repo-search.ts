import type { Queryable } from '../../data-source.js';
import { selectPage } from '../../sql.js';
import { invalid } from '../../errors.js';
import { grantedAccessCondition, readableReposCondition } from '../access.js';
import type { RepoRow } from './repo-row.js';
import type { UserRow } from '../users/user-row.js';
import { escapeLike } from '../users/users.js';

const sortColumns = {
  alpha: ['lower(r.owner_name)', 'r.lower_name'],
  created: ['r.created'],
  updated: ['r.updated'],
  size: ['r.size'],
  id: ['r.id'],
  stars: ['r.num_stars'],
  forks: ['r.num_forks'],
} as const;
type RepoSort = keyof typeof sortColumns;

/** The parameters of GET /repos/search, already parsed; absent means "no filter". */
export interface RepoSearch {
  keyword?: string;
  /** The keyword names topics exactly instead of matching names. */
  topicOnly?: boolean;
  includeDescription?: boolean;
  /** uid: repositories this user owns or (unless `collaborate` is false) has been granted. */
  ownerId?: number;
  /** undefined: owned and granted; false: owned only (exclusive); true: granted only (mode=collaborative). */
  collaborate?: boolean;
  priorityOwnerId?: number;
  /** Repositories the team was given (team_repo). */
  teamId?: number;
  starredBy?: number;
  /** Include private repositories the viewer may read (Gitea's `private`, on by default for a signed-in caller). */
  includePrivate: boolean;
  isPrivate?: boolean;
  template?: boolean;
  archived?: boolean;
  fork?: boolean;
  mirror?: boolean;
  sort?: string;
  order?: string;
  limit: number;
  offset: number;
}

/** Gitea's `mode`: source, fork, mirror or collaborative, as filters. */
export function modeFilters(mode: string | undefined): Pick<RepoSearch, 'fork' | 'mirror' | 'collaborate'> {
  switch (mode) {
    case undefined:
    case '':
      return {};
    case 'source':
      return { fork: false, mirror: false };
    case 'fork':
      return { fork: true };
    case 'mirror':
      return { mirror: true };
    case 'collaborative':
      return { mirror: false, collaborate: true };
    default:
      throw invalid(`Invalid search mode: "${mode}"`);
  }
}

/** The ORDER BY of `sort` and `order` (validated: 422 for anything else); alphabetical by default. */
function sortOrder(search: RepoSearch): string {
  if (!search.sort) return 'r.lower_name ASC';
  const direction = search.order || 'asc';
  if (direction !== 'asc' && direction !== 'desc') throw invalid(`Invalid sort order: "${direction}"`);
  const columns = Object.hasOwn(sortColumns, search.sort) ? sortColumns[search.sort as RepoSort] : undefined;
  if (!columns) throw invalid(`Invalid sort mode: "${search.sort}"`);
  return columns.map((c) => `${c} ${direction.toUpperCase()}`).join(', ');
}

/** Gitea's repository search (SearchRepositoryCondition), over what `viewer` may read. */
export async function searchRepositories(
  db: Queryable,
  viewer: UserRow | null,
  search: RepoSearch,
): Promise<{ repos: RepoRow[]; total: number }> {
  const params: unknown[] = [];
  const param = (value: unknown): string => {
    params.push(value);
    return `$${params.length}`;
  };
  const where: string[] = [];
  let order = sortOrder(search);

  if (!search.includePrivate || !viewer) {
    // public repositories of public owners: what anyone may read
    where.push('NOT r.is_private', readableReposCondition('r', 'NULL'));
  } else if (!viewer.is_admin && viewer.id !== search.ownerId) {
    where.push(readableReposCondition('r', param(viewer.id)));
  }
  if (search.isPrivate !== undefined) where.push(`r.is_private = ${param(search.isPrivate)}`);
  if (search.template !== undefined) where.push(`r.is_template = ${param(search.template)}`);
  if (search.archived !== undefined) where.push(`r.is_archived = ${param(search.archived)}`);
  if (search.fork !== undefined) where.push(`r.is_fork = ${param(search.fork)}`);
  if (search.mirror !== undefined) where.push(`r.is_mirror = ${param(search.mirror)}`);
  if (search.starredBy) where.push(`r.id IN (SELECT s.repo_id FROM star s WHERE s.uid = ${param(search.starredBy)})`);

  if (search.ownerId) {
    const owner = param(search.ownerId);
    const owned = `r.owner_id = ${owner}`;
    const granted = `(r.owner_id <> ${owner} AND ${grantedAccessCondition('r', owner)})`;
    where.push(search.collaborate === undefined ? `(${owned} OR ${granted})` : search.collaborate ? granted : owned);
  }

  if (search.teamId) where.push(`r.id IN (SELECT tr.repo_id FROM team_repo tr WHERE tr.team_id = ${param(search.teamId)})`);

  if (search.keyword) {
    const words = search.keyword.split(',').map((w) => w.toLowerCase());
    if (search.topicOnly) {
      where.push(`r.id IN (SELECT rt.repo_id FROM repo_topic rt JOIN topic t ON t.id = rt.topic_id WHERE t.name = ANY(${param(words)}::text[]))`);
    } else {
      const likes = param(words.map((w) => `%${escapeLike(w)}%`));
      const matches = [
        `r.id IN (SELECT rt.repo_id FROM repo_topic rt JOIN topic t ON t.id = rt.topic_id WHERE t.name LIKE ANY(${likes}::text[]))`,
        `r.lower_name LIKE ANY(${likes}::text[])`,
      ];
      const pieces = search.keyword.split('/');
      if (pieces.length === 2 && !search.teamId) {
        matches.push(`(lower(r.owner_name) LIKE ${param(`%${escapeLike(pieces[0].toLowerCase())}%`)}
          AND r.lower_name LIKE ${param(`%${escapeLike(pieces[1].toLowerCase())}%`)})`);
      }
      if (search.includeDescription) matches.push(`lower(r.description) LIKE ANY(${likes}::text[])`);
      where.push(`(${matches.join(' OR ')})`);
    }
  }

  const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const orderParams: unknown[] = [];
  const orderParam = (value: unknown): string => `$${params.length + orderParams.push(value)}`;
  if (search.priorityOwnerId) {
    order = `CASE WHEN r.owner_id = ${orderParam(search.priorityOwnerId)} THEN 0 ELSE 1 END, ${order}`;
  } else if (search.keyword && search.keyword.split('/').length === 2) {
    // "owner/repo": that owner's repositories come first.
    order = `CASE WHEN lower(r.owner_name) = ${orderParam(search.keyword.split('/')[0].toLowerCase())} THEN 0 ELSE 1 END, ${order}`;
  }
  const { rows, total } = await selectPage<RepoRow>(db, {
    select: 'r.*', from: `repository r ${clause}`, params, orderBy: `${order}, r.id`, orderParams, page: search,
  });
  return { repos: rows, total };
}
