import type { Queryable } from '../../data-source.js';
import { overdueAfterSeconds } from './mirror-monitor.js';

/**
 * Gitea's object counts (models/activities/statistic.go GetStatistic) under its names, for its gauges `gitea_<name>`.
 * Gitea's `oauths` and `updatetasks` are always 0 in Gitea itself; `accesses` counts Gitea's access table, which
 * Hearth does not keep (it decides access from collaborations and teams at each request), and `projects` and
 * `projects_boards` count projects Hearth does not have: these are 0, as an empty Gitea answers.
 */
export const giteaCounts = {
  accesses: '0',
  actions: `(SELECT greatest(reltuples, 0)::bigint FROM pg_class WHERE oid = 'domain_event'::regclass)`,
  attachments: 'SELECT count(*) FROM attachment',
  comments: 'SELECT count(*) FROM comment',
  follows: 'SELECT count(*) FROM follow',
  hooktasks: 'SELECT count(*) FROM hook_task',
  issues: 'SELECT count(*) FROM issue',
  issues_open: 'SELECT count(*) FROM issue WHERE NOT is_closed',
  issues_closed: 'SELECT count(*) FROM issue WHERE is_closed',
  labels: 'SELECT count(*) FROM label',
  loginsources: 'SELECT count(*) FROM login_source',
  milestones: 'SELECT count(*) FROM milestone',
  mirrors: 'SELECT count(*) FROM mirror',
  oauths: '0',
  organizations: 'SELECT count(*) FROM "user" WHERE type = 1',
  projects: '0',
  projects_boards: '0',
  publickeys: 'SELECT count(*) FROM public_key',
  releases: 'SELECT count(*) FROM release',
  repositories: 'SELECT count(*) FROM repository',
  stars: 'SELECT count(*) FROM star',
  teams: 'SELECT count(*) FROM team',
  updatetasks: '0',
  users: 'SELECT count(*) FROM "user" WHERE type = 0',
  watches: 'SELECT count(*) FROM watch',
  webhooks: 'SELECT count(*) FROM webhook',
} as const;

export type GiteaCount = keyof typeof giteaCounts;

export interface HookFigures {
  /** Hook tasks settled in the last hour, by how. */
  succeeded: number;
  failed: number;
  refused: number;
  /** Tasks not yet settled, and since when the oldest waits. */
  waiting: number;
  oldestWaitingSince: Date | null;
  /** From the task's creation to its settling, over the last hour's settled tasks. */
  meanDelaySeconds: number | null;
  p99DelaySeconds: number | null;
}

export interface MirrorFigures {
  kind: 'pull' | 'push';
  mirrors: number;
  failing: number;
  overdue: number;
  /** Every failed sync of the mirrors there are now. */
  failedSyncs: number;
  /** When the least recent last sync ended (mirrors never synced left out); null without any. */
  oldestSyncAt: Date | null;
  /** The slowest last sync. */
  slowestSyncSeconds: number | null;
}

export interface InstanceFigures {
  gitea: Record<GiteaCount, number>;
  issuesByLabel: { label: string; count: number }[] | null;
  issuesByRepository: { repository: string; count: number }[] | null;
  hooks: HookFigures;
  mirrors: MirrorFigures[];
}

/**
 * Everything /metrics reads from the database apart from the queues, in one statement of scalar subqueries: Gitea's
 * counts, the last hour of webhook deliveries (hook_task_delivered) and the waiting ones (hook_task_waiting), and the
 * mirrors by kind.
 */
export async function loadInstanceFigures(
  db: Queryable, options: { issuesByLabel: boolean; issuesByRepository: boolean },
): Promise<InstanceFigures> {
  const counts = Object.entries(giteaCounts).map(([name, sql]) => `(${sql})::float8 AS "${name}"`).join(',\n       ');
  const byLabel = options.issuesByLabel
    ? `(SELECT coalesce(json_agg(json_build_object('label', label, 'count', n)), '[]') FROM (
         SELECT coalesce(l.name, '') AS label, count(*) AS n FROM issue_label il LEFT JOIN label l ON l.id = il.label_id GROUP BY l.name) s)`
    : 'NULL::json';
  const byRepository = options.issuesByRepository
    ? `(SELECT coalesce(json_agg(json_build_object('repository', repository, 'count', n)), '[]') FROM (
         SELECT u.name || '/' || r.name AS repository, count(*) AS n FROM issue i JOIN repository r ON r.id = i.repo_id
         JOIN "user" u ON u.id = r.owner_id GROUP BY u.name, r.name) s)`
    : 'NULL::json';
  const [row] = await db.query<Record<GiteaCount, number> & {
    issuesByLabel: InstanceFigures['issuesByLabel']; issuesByRepository: InstanceFigures['issuesByRepository'];
    hooks: HookFigures & { oldestWaitingSince: string | null }; mirrors: (MirrorFigures & { oldestSyncAt: string | null })[];
  }>(
    `SELECT ${counts},
       ${byLabel} AS "issuesByLabel",
       ${byRepository} AS "issuesByRepository",
       (SELECT json_build_object(
          'succeeded', count(*) FILTER (WHERE is_succeed), 'failed', count(*) FILTER (WHERE NOT is_succeed AND refused IS NULL),
          'refused', count(*) FILTER (WHERE refused IS NOT NULL),
          'waiting', (SELECT count(*) FROM hook_task WHERE NOT is_delivered),
          'oldestWaitingSince', (SELECT min(created) FROM hook_task WHERE NOT is_delivered),
          'meanDelaySeconds', avg(extract(epoch FROM delivered - created)),
          'p99DelaySeconds', percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM delivered - created)))
        FROM hook_task WHERE delivered > now() - interval '1 hour') AS hooks,
       (SELECT json_agg(figures ORDER BY kind) FROM (
          SELECT kind, json_build_object('kind', kind, 'mirrors', count(*), 'failing', count(*) FILTER (WHERE last_error <> ''),
            'overdue', count(*) FILTER (WHERE next_update < now() - make_interval(secs => $1) AND coalesce(lease_until <= now(), true)),
            'failedSyncs', sum(failed_syncs), 'oldestSyncAt', min(last_sync_at), 'slowestSyncSeconds', max(last_sync_seconds)) AS figures
          FROM (SELECT 'pull' AS kind, last_error, next_update, lease_until, failed_syncs, last_sync_at, last_sync_seconds FROM mirror
                UNION ALL
                SELECT 'push', last_error, next_update, lease_until, failed_syncs, last_sync_at, last_sync_seconds FROM push_mirror) m
          GROUP BY kind) g) AS mirrors`,
    [overdueAfterSeconds],
  );
  const gitea = Object.fromEntries(Object.keys(giteaCounts).map((name) => [name, Number(row[name as GiteaCount])])) as Record<GiteaCount, number>;
  const present = new Map((row.mirrors ?? []).map((m) => [m.kind, m]));
  return {
    gitea,
    issuesByLabel: row.issuesByLabel,
    issuesByRepository: row.issuesByRepository,
    hooks: { ...row.hooks, oldestWaitingSince: row.hooks.oldestWaitingSince ? new Date(row.hooks.oldestWaitingSince) : null },
    mirrors: (['pull', 'push'] as const).map((kind) => {
      const found = present.get(kind);
      return found
        ? { ...found, failedSyncs: Number(found.failedSyncs), oldestSyncAt: found.oldestSyncAt ? new Date(found.oldestSyncAt) : null }
        : { kind, mirrors: 0, failing: 0, overdue: 0, failedSyncs: 0, oldestSyncAt: null, slowestSyncSeconds: null };
    }),
  };
}
