import pg from 'pg';
import { jobNames } from '../../jobs/catalogue.js';

/**
 * Kept jobs for the queue monitor's figure (`npm run bench -- ops`), added with one `INSERT ... SELECT` spread over
 * every catalogued queue: 92% completed, 5% failed, 3% cancelled, their ends spread over the last 14 days (pg-boss's
 * default keep), and 20 waiting jobs each time, so the backlog stays the same while the kept jobs grow. Then the partitions are vacuumed and analysed, as autovacuum leaves a table
 * after a load.
 */
export async function addKeptJobs(databaseUrl: string, count: number): Promise<void> {
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
       CROSS JOIN LATERAL (SELECT CASE WHEN s.state = 'created' THEN now() - random() * interval '1 minute' ELSE now() - random() * interval '14 days' END AS ended) e`,
      [jobNames, count],
    );
    await client.query('VACUUM (ANALYZE) pgboss.job');
  } finally {
    await client.end();
  }
}
