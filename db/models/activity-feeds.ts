import type { Queryable } from '../data-source.js';
import { readableReposCondition } from './access.js';
import { toUserRow, type UserRow } from './user-row.js';

/**
 * How a stored domain event reads as a Gitea activity (op_type, content, ref_name). Only the kinds listed
 * here appear in feeds; an area that emits events Gitea shows in feeds adds its kinds here.
 */
export const feedKinds: Record<string, { opType: string; content(payload: Record<string, unknown>): string; refName?(payload: Record<string, unknown>): string }> = {
  'repository.created': { opType: 'create_repo', content: () => '' },
  'repository.renamed': { opType: 'rename_repo', content: (payload) => String(payload.from ?? '') },
};

export interface FeedEntry {
  id: number;
  kind: string;
  repo_id: number;
  payload: Record<string, unknown>;
  created: Date;
  doer: UserRow;
}

/** A repository's activities, newest first; `day` (YYYY-MM-DD, UTC) keeps those of one day. */
export async function listRepoFeed(
  db: Queryable,
  repoId: number,
  day: string | undefined,
  page: { limit: number; offset: number },
): Promise<{ entries: FeedEntry[]; total: number }> {
  const where = [`e.repo_id = $1`, `e.kind = ANY($2::text[])`];
  const params: unknown[] = [repoId, Object.keys(feedKinds)];
  if (day) {
    params.push(day);
    const start = `$${params.length}::date::timestamp AT TIME ZONE 'UTC'`;
    where.push(`e.created >= ${start} AND e.created < ${start} + interval '1 day'`);
  }
  const clause = where.join(' AND ');
  const [{ count }] = await db.query<{ count: number }>(
    `SELECT count(*) AS count FROM domain_event e JOIN "user" u ON u.id = e.doer_id WHERE ${clause}`,
    params,
  );
  const rows = await db.query<Record<string, unknown>>(
    `SELECT e.id AS event_id, e.kind, e.repo_id, e.payload, e.created AS event_created, u.*
     FROM domain_event e JOIN "user" u ON u.id = e.doer_id WHERE ${clause}
     ORDER BY e.id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, page.limit, page.offset],
  );
  const entries = rows.map((row) => ({
    id: Number(row.event_id),
    kind: String(row.kind),
    repo_id: Number(row.repo_id),
    payload: row.payload as Record<string, unknown>,
    created: row.event_created as Date,
    doer: toUserRow(row),
  }));
  return { entries, total: count };
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
export async function listUserFeed(db: Queryable, filter: UserFeedFilter, page: { limit: number; offset: number }): Promise<{ entries: FeedEntry[]; total: number }> {
  const where = ['e.kind = ANY($2::text[])', readableReposCondition('r', '$3')];
  const params: unknown[] = [filter.userId, Object.keys(feedKinds), filter.viewerId];
  where.push(filter.onlyPerformedBy
    ? 'e.doer_id = $1'
    : '(e.doer_id = $1 OR r.owner_id = $1 OR EXISTS (SELECT 1 FROM watch w WHERE w.user_id = $1 AND w.repo_id = r.id AND w.mode IN (1, 3)))');
  if (!filter.includePrivate) where.push('NOT r.is_private');
  if (filter.day) {
    params.push(filter.day);
    const start = `$${params.length}::date::timestamp AT TIME ZONE 'UTC'`;
    where.push(`e.created >= ${start} AND e.created < ${start} + interval '1 day'`);
  }
  const from = `domain_event e JOIN repository r ON r.id = e.repo_id JOIN "user" u ON u.id = e.doer_id WHERE ${where.join(' AND ')}`;
  const [{ count }] = await db.query<{ count: number }>(`SELECT count(*)::int AS count FROM ${from}`, params);
  const rows = await db.query<Record<string, unknown>>(
    `SELECT e.id AS event_id, e.kind, e.repo_id, e.payload, e.created AS event_created, u.* FROM ${from}
     ORDER BY e.id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, page.limit, page.offset],
  );
  const entries = rows.map((row) => ({
    id: Number(row.event_id),
    kind: String(row.kind),
    repo_id: Number(row.repo_id),
    payload: row.payload as Record<string, unknown>,
    created: row.event_created as Date,
    doer: toUserRow(row),
  }));
  return { entries, total: count };
}
