import type { Queryable } from '../../data-source.js';
import { readableReposCondition } from '../access.js';
import { userTypes, type UserRow } from '../users/user-row.js';

/** Gitea's UserHeatmapData: contributions counted per quarter hour, the bucket named by its start (Unix seconds). */
export interface HeatmapPoint {
  timestamp: number;
  contributions: number;
}

/** Whether `viewer` may see `user`'s activity: hidden activity shows only to the user and to administrators. */
export function isActivityVisible(user: UserRow, viewer: UserRow | null): boolean {
  return !user.hide_activity || (viewer !== null && (viewer.is_admin || viewer.id === user.id));
}

/**
 * What the user did over the last 373 days (a year and the week the heatmap starts in), in repositories the viewer
 * may read: the domain events they caused, in quarter-hour buckets so a client can shift them into its time zone.
 * An organization's heatmap counts what anyone did in the repositories it owns, as Gitea's does.
 */
export async function userHeatmap(db: Queryable, user: UserRow, viewer: UserRow | null): Promise<HeatmapPoint[]> {
  if (!isActivityVisible(user, viewer)) return [];
  return db.query<HeatmapPoint>(
    `SELECT (floor(extract(epoch FROM e.created) / 900) * 900)::bigint AS timestamp, count(*)::int AS contributions
     FROM domain_event e JOIN repository repo ON repo.id = e.repo_id
     WHERE ${user.type === userTypes.organization ? 'repo.owner_id' : 'e.doer_id'} = $1 AND e.created > now() - interval '373 days' AND ${readableReposCondition('repo', '$2')}
     GROUP BY 1 ORDER BY 1`,
    [user.id, viewer?.id ?? null],
  );
}
