import { randomInt } from 'node:crypto';
import type PgBoss from 'pg-boss';
import pg from 'pg';

/**
 * Jobs left `active` by a worker process that died (kill -9, out of memory) run again within seconds instead of
 * after their expiry. Each worker process holds a session advisory lock (LOCK_SPACE, its id) on a connection of
 * its own for as long as it lives: PostgreSQL releases it the moment that connection closes, so "the lock is
 * held" is "the worker is alive", on any host. A worker records its id in the job's `output` column as it fetches the job
 * (pg-boss does not read it while the job is active and overwrites it on completion or failure). A sweep,
 * at every worker's start and every few seconds after, puts the active jobs whose worker holds no lock back in
 * their queue at once; a lost run counts as an attempt, so a job that kills its worker every time ends failed
 * at its retry limit instead of looping.
 */
const lockSpace = 7_302_003;
export const sweepIntervalMs = 5_000;

export interface WorkerRegistration {
  id: number;
  release(): Promise<void>;
}

/** What a worker process shows the queue monitor about itself. */
export interface WorkerDescription {
  host: string;
  pid: number;
  actors: string[];
  /** Each subscribed queue with how many of its jobs the worker runs at once. */
  queues: Record<string, number>;
}

export const heartbeatIntervalMs = 5_000;
/** A worker row whose heartbeat is older than this, or whose lock is free, is not shown and is removed. */
export const heartbeatStaleSeconds = 30;

/** SQL that is true while the worker row `alias` belongs to a live worker process. */
export const workerRowAlive = (alias: string): string =>
  `${alias}.heartbeat > now() - make_interval(secs => ${heartbeatStaleSeconds}) AND ${workerAlive(`${alias}.id`)}`;

/**
 * Takes a worker id (its lock) and, with a description, records the worker in `worker_process` and beats its heartbeat
 * every few seconds on the connection that holds the lock; each beat also removes the rows of workers that are gone.
 */
export async function registerWorker(connectionString: string, description?: WorkerDescription): Promise<WorkerRegistration> {
  const client = new pg.Client({ connectionString, application_name: 'hearth-worker-alive' });
  client.on('error', () => undefined);
  await client.connect();
  for (;;) {
    const id = randomInt(1, 2 ** 31 - 1);
    const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS locked', [lockSpace, id]);
    if (!rows[0].locked) continue;
    if (!description) return { id, release: () => client.end().catch(() => undefined) };
    const beat = (): Promise<unknown> => client.query(
      `WITH gone AS (DELETE FROM worker_process w WHERE w.id <> $1 AND NOT (${workerRowAlive('w')}))
       INSERT INTO worker_process (id, host, pid, actors, queues) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (id) DO UPDATE SET heartbeat = now()`,
      [id, description.host, description.pid, description.actors, JSON.stringify(description.queues)],
    );
    await beat();
    const heartbeat = setInterval(() => void beat().catch(() => undefined), heartbeatIntervalMs);
    heartbeat.unref();
    return {
      id,
      async release() {
        clearInterval(heartbeat);
        await client.query('DELETE FROM worker_process WHERE id = $1', [id]).catch(() => undefined);
        await client.end().catch(() => undefined);
      },
    };
  }
}

/**
 * SQL that is true while the worker process with the id `workerId` (an SQL expression) lives: its lock is held.
 * Leases name their holder's worker id, so a lease of a dead worker is free at once (db/models/mirrors/sync-lease.ts).
 */
export function workerAlive(workerId: string): string {
  return `EXISTS (
    SELECT 1 FROM pg_locks l
     WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
       AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
       AND l.classid = ${lockSpace}::oid AND l.objid = (${workerId})::bigint::oid)`;
}

/**
 * pg-boss's fetch that also marks the jobs as this worker's in the same statement (one row version per job, not two):
 * up to `batchSize` jobs of the queue whose start time has come, by priority then age, made active. Every catalogued
 * queue has the standard or short policy (jobs/catalogue.ts), which pg-boss fetches this way; it gates singleton and
 * stately queues by key, which this does not. The chosen ids are an array, not a join: a generic plan of the join
 * could hash every job the queue keeps, completed ones included, on each fetch (see withIdLookups).
 */
export const fetchClaimedSql = `
  UPDATE pgboss.job j SET state = 'active', started_on = now(),
    retry_count = CASE WHEN j.started_on IS NOT NULL THEN j.retry_count + 1 ELSE j.retry_count END,
    output = jsonb_build_object('hearthWorker', $3::int)
   WHERE j.name = $1 AND j.id = ANY(ARRAY(
     SELECT id FROM pgboss.job
      WHERE name = $1 AND state < 'active' AND start_after < now()
      ORDER BY priority DESC, created_on, id
      LIMIT $2
      FOR UPDATE SKIP LOCKED))
  RETURNING j.id, j.name, j.data, EXTRACT(epoch FROM j.expire_in) AS "expireInSeconds"`;

export async function fetchClaimed(boss: PgBoss, name: string, batchSize: number, workerId: number): Promise<Array<PgBoss.Job<unknown>>> {
  const { rows } = await boss.getDb().executeSql(fetchClaimedSql, [name, batchSize, workerId]);
  return rows as Array<PgBoss.Job<unknown>>;
}

/**
 * Puts the active jobs of workers that are gone back in their queue, to run at once (the lost run counts as an
 * attempt: pg-boss counts a retry when it fetches a job that was started before); a job with no attempt left
 * is failed. Returns the queues that have jobs to run again.
 */
export async function recoverLostJobs(boss: PgBoss): Promise<string[]> {
  const db = boss.getDb();
  const { rows } = (await db.executeSql(
    `SELECT j.name, j.id, j.retry_count < j.retry_limit AS retryable, j.output->>'hearthWorker' AS worker
       FROM pgboss.job j
      WHERE j.state = 'active' AND j.output ? 'hearthWorker' AND NOT ${workerAlive(`j.output->>'hearthWorker'`)}`,
    [],
  )) as { rows: { name: string; id: string; retryable: boolean; worker: string }[] };
  const queues = new Set<string>();
  for (const row of rows) {
    const reason = { message: `the worker process running it stopped (worker ${row.worker})` };
    if (!row.retryable) {
      await boss.fail(row.name, row.id, reason);
      continue;
    }
    await db.executeSql(
      `UPDATE pgboss.job SET state = 'retry', start_after = now(), output = $3::jsonb WHERE name = $1 AND id = $2 AND state = 'active'`,
      [row.name, row.id, JSON.stringify(reason)],
    );
    queues.add(row.name);
  }
  return [...queues];
}
