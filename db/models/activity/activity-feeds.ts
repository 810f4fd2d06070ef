import type { Queryable } from '../../data-source.js';
import { parseEvent, type EventKind, type EventPayload, type KindAndPayload } from '../../events/catalogue.js';
import { selectPage } from '../../sql.js';
import { readableReposCondition } from '../access.js';
import { toUserRow, type UserRow } from '../users/user-row.js';

/** How a stored domain event of kind `K` reads as a Gitea activity (op_type, content, ref_name). */
export interface FeedReading<K extends EventKind> {
  opType: string;
  content(payload: EventPayload<K>): string;
  refName?(payload: EventPayload<K>): string;
}

const readings = {
  'repository.created': { opType: 'create_repo', content: () => '' },
  'repository.renamed': { opType: 'rename_repo', content: (payload) => payload.previous.name },
  'repository.transferred': { opType: 'transfer_repo', content: (payload) => `${payload.previous.owner}/${payload.name}` },
} satisfies { [K in EventKind]?: FeedReading<K> };

export type FeedKind = keyof typeof readings;

/** Only the kinds listed here appear in feeds; an area that emits events Gitea shows in feeds adds its kinds here. */
export const feedKinds: { readonly [K in FeedKind]: FeedReading<K> } = readings;

export type FeedEntry = KindAndPayload<FeedKind> & {
  id: number;
  repo_id: number;
  created: Date;
  doer: UserRow;
};

function isFeedEvent(event: KindAndPayload): event is KindAndPayload<FeedKind> {
  return Object.hasOwn(feedKinds, event.kind);
}

/** A stored row as a feed entry; null for a payload its kind's schema refuses (a row written before the catalogue). */
function toFeedEntry(row: Record<string, unknown>): FeedEntry | null {
  const event = parseEvent(String(row.kind), row.payload);
  if (!event || !isFeedEvent(event)) return null;
  return { ...event, id: Number(row.event_id), repo_id: Number(row.repo_id), created: row.event_created as Date, doer: toUserRow(row) };
}

type Page = { limit: number; offset: number };

/**
 * The query every feed shares: events of the kinds feeds show, with their repository and doer, newest first.
 * `where` may use $1..$n of `params`; the kinds and the day are appended after them.
 */
export async function queryFeed(
  db: Queryable,
  where: string[],
  params: unknown[],
  day: string | undefined,
  page: Page,
): Promise<{ entries: FeedEntry[]; total: number }> {
  const all = [...params, Object.keys(feedKinds)];
  const conditions = [...where, `e.kind = ANY($${all.length}::text[])`];
  if (day) {
    all.push(day);
    const start = `$${all.length}::date::timestamp AT TIME ZONE 'UTC'`;
    conditions.push(`e.created >= ${start} AND e.created < ${start} + interval '1 day'`);
  }
  const from = `domain_event e JOIN repository r ON r.id = e.repo_id JOIN "user" u ON u.id = e.doer_id WHERE ${conditions.join(' AND ')}`;
  const { rows, total } = await selectPage<Record<string, unknown>>(db, {
    select: 'e.id AS event_id, e.kind, e.repo_id, e.payload, e.created AS event_created, u.*', from, params: all, orderBy: 'e.id DESC', page,
  });
  const entries = rows.map(toFeedEntry).filter((entry) => entry !== null);
  return { entries, total };
}

/** A repository's activities, newest first; `day` (YYYY-MM-DD, UTC) keeps those of one day. */
export async function listRepoFeed(db: Queryable, repoId: number, day: string | undefined, page: Page): Promise<{ entries: FeedEntry[]; total: number }> {
  return queryFeed(db, ['e.repo_id = $1'], [repoId], day, page);
}

export interface UserFeedFilter {
  userId: number;
  viewerId: number | null;
  /** Private repositories' activities: only for the user themselves and administrators (Gitea's IncludePrivate). */
  includePrivate: boolean;
  /** Only what the user did, not what happened in their and their watched repositories. */
  onlyPerformedBy: boolean;
  /** YYYY-MM-DD: only that day (UTC). */
  day?: string;
}

/**
 * A user's feed, newest first: what they did, and what happened in repositories they own or watch, among the
 * repositories the viewer may read.
 */
export async function listUserFeed(db: Queryable, filter: UserFeedFilter, page: Page): Promise<{ entries: FeedEntry[]; total: number }> {
  const where = [
    readableReposCondition('r', '$2'),
    filter.onlyPerformedBy
      ? 'e.doer_id = $1'
      : '(e.doer_id = $1 OR r.owner_id = $1 OR EXISTS (SELECT 1 FROM watch w WHERE w.user_id = $1 AND w.repo_id = r.id AND w.mode IN (1, 3)))',
  ];
  if (!filter.includePrivate) where.push('NOT r.is_private');
  return queryFeed(db, where, [filter.userId, filter.viewerId], filter.day, page);
}
