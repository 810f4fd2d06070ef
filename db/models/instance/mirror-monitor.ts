import type { Queryable } from '../../data-source.js';

/** A pull or push mirror as an operator watches it. */
export interface MirrorStatus {
  kind: 'pull' | 'push';
  /** The push mirror's id; null for a pull mirror (its repository is the mirror). */
  pushMirrorId: number | null;
  repoId: number;
  owner: string;
  repo: string;
  remoteAddress: string;
  intervalSeconds: number;
  /** The last successful sync. */
  lastSync: Date | null;
  /** When the last sync ended, whether it succeeded or failed, and how long it took. */
  lastAttempt: Date | null;
  lastSyncSeconds: number | null;
  /** Syncs that failed since the mirror was made. */
  failedSyncs: number;
  lastError: string;
  nextDue: Date | null;
  /** A sync holds the mirror's lease now. */
  running: boolean;
  /** A sync job waits for a worker. */
  queued: boolean;
  overdue: boolean;
}

/** How late past its due time a mirror counts as overdue: two sweeps of update-mirrors (every minute). */
export const overdueAfterSeconds = 120;

/**
 * Every pull and push mirror, with whether a sync is queued (its short-policy job, looked up by key) or running (its
 * lease), in one statement; `failing` keeps those whose last sync failed, `overdue` those past due and idle.
 */
export async function listMirrorStatus(db: Queryable, filter: { failing?: boolean; overdue?: boolean }): Promise<MirrorStatus[]> {
  return db.query<MirrorStatus>(
    `SELECT * FROM (
       SELECT m.kind, m."pushMirrorId", m."repoId", u.name AS owner, r.name AS repo, m."remoteAddress", m."intervalSeconds",
         m."lastSync", m."lastAttempt", m."lastSyncSeconds", m."failedSyncs", m."lastError", m."nextDue", coalesce(m.lease_until > now(), false) AS running,
         EXISTS (SELECT 1 FROM pgboss.job j WHERE j.name = m.queue AND j.state = 'created' AND j.policy = 'short'
           AND coalesce(j.singleton_key, '') = m.key) AS queued
       FROM (
         SELECT 'pull' AS kind, NULL::bigint AS "pushMirrorId", repo_id AS "repoId", remote_address AS "remoteAddress",
           interval_seconds AS "intervalSeconds", updated AS "lastSync", last_sync_at AS "lastAttempt",
           last_sync_seconds AS "lastSyncSeconds", failed_syncs::int AS "failedSyncs", last_error AS "lastError", next_update AS "nextDue",
           lease_until, 'mirror-sync' AS queue, 'mirror-' || repo_id AS key
         FROM mirror
         UNION ALL
         SELECT 'push', id, repo_id, remote_address, interval_seconds, last_update, last_sync_at, last_sync_seconds, failed_syncs::int, last_error, next_update,
           lease_until, 'push-mirror', 'push-mirror-' || id
         FROM push_mirror
       ) m
       JOIN repository r ON r.id = m."repoId" JOIN "user" u ON u.id = r.owner_id
     ) s
     CROSS JOIN LATERAL (SELECT s."nextDue" < now() - make_interval(secs => $3) AND NOT s.running AND NOT s.queued AS overdue) o
     WHERE (NOT $1::bool OR s."lastError" <> '') AND (NOT $2::bool OR o.overdue)
     ORDER BY s.owner, s.repo, s.kind, s."pushMirrorId"`,
    [filter.failing ?? false, filter.overdue ?? false, overdueAfterSeconds],
  ).then((rows) => rows.map((row) => ({ ...row, pushMirrorId: row.pushMirrorId === null ? null : Number(row.pushMirrorId), repoId: Number(row.repoId), overdue: row.overdue === true })));
}
