import pg from 'pg';
import { jobNames } from '../../jobs/catalogue.js';

/**
 * Kept jobs for the queue monitor's figure (`npm run bench -- ops`), added with one `INSERT ... SELECT` spread over
 * every catalogued queue: 92% completed, 5% failed, 3% cancelled, and 20 waiting jobs each time. `recent` jobs end in
 * the last hour (the hour's work the figures report); the others end between an hour and 14 days ago (pg-boss's
 * default keep), so the larger case adds kept jobs while the live jobs and the last hour's stay the same: what the
 * figure measures is whether the cost grows with what is kept. Then the partitions are vacuumed and analysed, as autovacuum leaves a table
 * after a load.
 */
export async function addKeptJobs(databaseUrl: string, count: number, recent: boolean): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO pgboss.job (name, data, state, created_on, start_after, started_on, completed_on)
       SELECT ($1::text[])[1 + n % array_length($1::text[], 1)], jsonb_build_object('taskId', n + 1), s.state, e.ended - interval '2 seconds',
         e.ended - interval '2 seconds', CASE WHEN s.state > 'active' THEN e.ended - (random() * interval '1 second') END,
         CASE WHEN s.state > 'active' THEN e.ended END
       FROM generate_series(1, $2::int) n
       CROSS JOIN LATERAL (SELECT (CASE WHEN n <= 20 THEN 'created' WHEN n % 100 < 92 THEN 'completed' WHEN n % 100 < 97 THEN 'failed' ELSE 'cancelled' END)::pgboss.job_state AS state) s
       CROSS JOIN LATERAL (SELECT CASE WHEN s.state = 'created' THEN now() - random() * interval '1 minute' WHEN $3 THEN now() - random() * interval '1 hour'
         ELSE now() - interval '1 hour' - random() * interval '13 days 23 hours' END AS ended) e`,
      [jobNames, count, recent],
    );
    await client.query('VACUUM (ANALYZE) pgboss.job');
  } finally {
    await client.end();
  }
}

/**
 * What /metrics reads, present for the scrape figure: a hook with 1,000 settled tasks over the last hour and 10 waiting,
 * and a pull and a push mirror on the plain repository with a last sync each.
 */
export async function addMetricsFigures(databaseUrl: string, repoName: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const [{ id: repoId }] = (await client.query<{ id: string }>('SELECT id FROM repository WHERE name = $1', [repoName])).rows;
    const [{ id: hookId }] = (await client.query<{ id: string }>(
      `INSERT INTO webhook (repo_id, type, url, content_type, is_active, events) VALUES ($1, 'gitea', 'https://hooks.example.com/', 'json', true, '{push}')
       RETURNING id`,
      [repoId],
    )).rows;
    await client.query(
      `INSERT INTO hook_task (hook_id, repo_id, uuid, event_type, payload, is_delivered, is_succeed, created, delivered)
       SELECT $1, $2, gen_random_uuid(), 'push', '{}', n > 10, n % 10 <> 0, t.at - interval '1 second', CASE WHEN n > 10 THEN t.at END
       FROM generate_series(1, 1010) n CROSS JOIN LATERAL (SELECT now() - random() * interval '1 hour' AS at) t`,
      [hookId, repoId],
    );
    await client.query(
      `INSERT INTO mirror (repo_id, interval_seconds, remote_address, updated, next_update, last_sync_at, last_sync_seconds)
       VALUES ($1, 3600, 'https://example.com/up.git', now(), now() + interval '1 hour', now(), 1.5)`,
      [repoId],
    );
    await client.query(
      `INSERT INTO push_mirror (repo_id, remote_name, remote_address, interval_seconds, next_update, last_error, last_sync_at, last_sync_seconds, failed_syncs)
       VALUES ($1, 'remote_mirror_bench', 'https://example.com/down.git', 600, now() - interval '1 hour', 'authentication failed', now(), 0.5, 3)`,
      [repoId],
    );
  } finally {
    await client.end();
  }
}

/** The metric families a /metrics answer must hold for the scrape figure to count: every one Hearth serves. */
export const expectedFamilies = [
  'hearth_http_requests_total', 'hearth_http_request_duration_seconds', 'hearth_queue_jobs', 'hearth_queue_oldest_waiting_seconds',
  'hearth_queue_jobs_ended_last_hour', 'hearth_queue_run_mean_seconds', 'hearth_queue_run_p99_seconds', 'hearth_queue_workers',
  'hearth_webhook_deliveries_last_hour', 'hearth_webhook_deliveries_waiting', 'hearth_webhook_oldest_waiting_seconds',
  'hearth_webhook_delivery_delay_mean_seconds', 'hearth_webhook_delivery_delay_p99_seconds', 'hearth_mirrors', 'hearth_mirrors_failing',
  'hearth_mirrors_overdue', 'hearth_mirror_failed_syncs', 'hearth_mirror_oldest_sync_age_seconds', 'hearth_mirror_slowest_last_sync_seconds',
  'gitea_build_info', 'gitea_users', 'gitea_repositories', 'gitea_issues_open', 'gitea_hooktasks', 'gitea_mirrors', 'process_cpu_user_seconds_total',
  'nodejs_eventloop_lag_seconds',
];

/** Refuses a /metrics answer that misses a family, or a family without a sample. */
export function checkScrape(text: string): void {
  const sampled = new Set(text.split('\n').filter((line) => line && !line.startsWith('#')).map((line) => line.split(/[{ ]/)[0].replace(/_(bucket|sum|count)$/, '')));
  const missing = expectedFamilies.filter((name) => !sampled.has(name));
  if (missing.length) throw new Error(`/metrics has no sample of ${missing.join(', ')}`);
}
