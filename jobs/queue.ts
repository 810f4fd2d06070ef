import PgBoss from 'pg-boss';
import pg from 'pg';
import { idleConnectionMs, PreparedBossDb } from './prepared-db.js';
import { jobs, jobNames, type JobName, type PayloadOf, type JobDefinition } from './catalogue.js';

/** The part of a transaction that enqueueing needs: the queue, and an executor on the transaction's connection. */
export interface JobTx {
  boss: PgBoss;
  jobDb: PgBoss.Db;
}

export const wakeChannel = 'hearth_jobs';

export interface QueueOptions {
  connectionString: string;
  /** The web process only sends; maintenance and scheduling run in workers. */
  role: 'web' | 'worker';
}

export function createQueue({ connectionString, role }: QueueOptions): PgBoss {
  return new PgBoss({
    db: new PreparedBossDb({
      connectionString,
      // a worker fetches, claims and completes the jobs of every queue through this pool
      max: role === 'web' ? 2 : 10,
      idleTimeoutMillis: idleConnectionMs,
      application_name: `hearth-${role}-boss`,
      // A worker's bookkeeping (fetch, claim, complete, fail, maintenance) commits without waiting for the WAL flush
      // (a flush costs milliseconds here, several per job). A crash of PostgreSQL itself may forget its last fraction
      // of a second, never half of it: those jobs then run again, which actors allow (idempotent; a delivery repeats
      // with the same delivery id). Jobs enqueued inside a caller's transaction keep that transaction's durability.
      // The job table is partitioned by queue: a custom plan (PostgreSQL's choice for it) is made again for every
      // execution, while the generic plan prunes the partitions when it runs.
      options: `-c plan_cache_mode=force_generic_plan${role === 'worker' ? ' -c synchronous_commit=off' : ''}`,
    }),
    supervise: role === 'worker',
    schedule: role === 'worker',
    migrate: true,
  });
}

const setupLock = 7_302_002;

/**
 * Starts pg-boss, makes sure every catalogued queue exists and that inserted jobs wake listening workers.
 * Web and worker boot together; a session advisory lock (on a connection of its own) keeps their queue and trigger
 * DDL from deadlocking each other, pg-boss's own start included (a worker's clock creates pg-boss's internal queue).
 */
export async function startQueue(boss: PgBoss, connectionString: string): Promise<void> {
  const lock = new pg.Client({ connectionString, application_name: 'hearth-queue-setup' });
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [setupLock]);
    await boss.start();
    const existing = new Set((await boss.getQueues()).map((queue) => queue.name));
    for (const name of jobNames) {
      const definition = jobs[name] as unknown as JobDefinition<unknown>;
      if (existing.has(name)) await boss.updateQueue(name, { name, ...definition.queue });
      else await boss.createQueue(name, { name, ...definition.queue });
    }
    await installWakeTrigger(boss.getDb());
    await installMonitorIndexes(boss.getDb());
  } finally {
    await lock.end().catch(() => undefined);
  }
}

/**
 * pg-boss 10 only polls; this trigger lets a LISTENing worker fetch at once.
 * pg_notify is delivered on commit and folds duplicates, so a fan-out of many rows costs one notification per queue.
 * A job inserted already active (claimed at insert by the worker that runs it) has nobody to wake.
 */
async function installWakeTrigger(db: PgBoss.Db): Promise<void> {
  await db.executeSql(
    `CREATE OR REPLACE FUNCTION pgboss.hearth_wake() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN PERFORM pg_notify('${wakeChannel}', NEW.name); RETURN NULL; END $$`,
    [],
  );
  await db.executeSql(
    `CREATE OR REPLACE TRIGGER hearth_wake AFTER INSERT ON pgboss.job FOR EACH ROW WHEN (NEW.state < 'active') EXECUTE FUNCTION pgboss.hearth_wake()`,
    [],
  );
}

/**
 * Indexes on pg-boss's job table (created on every queue partition, present and future) that let the queue monitor
 * (db/models/instance/queue-monitor.ts) read a queue's figures without walking its kept jobs: the live jobs by
 * state (and a state's jobs newest first), and the jobs that ended, by when they ended.
 */
async function installMonitorIndexes(db: PgBoss.Db): Promise<void> {
  await db.executeSql(`CREATE INDEX IF NOT EXISTS hearth_job_state ON pgboss.job (name, state, created_on DESC) INCLUDE (start_after)`, []);
  await db.executeSql(
    `CREATE INDEX IF NOT EXISTS hearth_job_ended ON pgboss.job (name, completed_on) INCLUDE (state, started_on) WHERE state > 'active'`,
    [],
  );
}

/** A job the workers' clock sends on a cron expression (UTC); null: not sent by the clock. */
export interface JobSchedule {
  job: JobName;
  cron: string | null;
}

/**
 * Removes the pg-boss schedules earlier versions installed: the clocks are node-cron in each worker now
 * (workers/cron-clock.ts), which only enqueue.
 */
export async function dropBossSchedules(boss: PgBoss): Promise<void> {
  for (const existing of (await boss.getSchedules()) as Array<{ name: string }>) await boss.unschedule(existing.name);
}

/** Inserts a job through the caller's transaction: it exists if and only if that transaction commits. */
export async function enqueue<N extends JobName>(tx: JobTx, name: N, payload: PayloadOf<N>): Promise<string | null> {
  const definition = jobs[name] as unknown as JobDefinition<PayloadOf<N>>;
  const data = definition.payload.parse(payload) as object;
  const singletonKey = definition.singletonKey?.(payload as PayloadOf<N>);
  return tx.boss.send(name, data, { db: tx.jobDb, ...(singletonKey ? { singletonKey } : {}) });
}

/**
 * Inserts many jobs of one kind in one statement through the caller's transaction (pg-boss `insert`), e.g. a
 * fan-out of one delivery per hook task. Options apply to every job.
 */
export async function enqueueMany<N extends JobName>(
  tx: JobTx,
  name: N,
  payloads: PayloadOf<N>[],
  options: Pick<PgBoss.JobInsert, 'expireInSeconds' | 'startAfter'> = {},
): Promise<void> {
  if (payloads.length === 0) return;
  const definition = jobs[name] as unknown as JobDefinition<PayloadOf<N>>;
  await tx.boss.insert(
    payloads.map((payload) => ({ name, data: definition.payload.parse(payload) as object, ...options })),
    { db: tx.jobDb },
  );
}

/** Jobs inserted already running on one worker process, for the rows where `when` (an SQL condition) holds. */
export interface ClaimAtInsert {
  /** SQL: true for the rows whose job this worker runs at once. */
  when: string;
  /** SQL: the claiming worker's id (jobs/lost-jobs.ts), so its jobs run again if it dies. */
  workerId: string;
}

/**
 * SQL that inserts one job of queue `name` for each row of `from` (a FROM item of the caller's statement, such as a
 * data-modifying WITH item), with the SQL expression `data` as its data, so that a change and its job are one
 * statement. The columns are pg-boss 10's insert with the queue's own settings and no options of the job's own (no
 * singleton key or start delay) but `expireIn`, an SQL interval; the wake-up trigger fires as for any insert. Like
 * pg-boss's send, it inserts nothing for a queue that does not exist, nor a second waiting job of a queue with the
 * short policy. With `claim`, the chosen rows' jobs are inserted active and this worker's, as its fetch would leave
 * them (they wake no one), and `returning` lists the inserted jobs' columns.
 */
export function insertJobsSql(
  name: JobName, data: string, from: string, { expireIn, claim, returning }: { expireIn?: string; claim?: ClaimAtInsert; returning?: string } = {},
): string {
  const claimed = claim ? `(${claim.when})` : 'false';
  return `INSERT INTO pgboss.job (name, data, expire_in, keep_until, retry_limit, retry_delay, retry_backoff, policy, dead_letter, state, started_on, output)
    SELECT q.name, ${data}, ${expireIn ?? `COALESCE(q.expire_seconds * interval '1s', interval '15 minutes')`},
      now() + COALESCE(q.retention_minutes * interval '1 minute', interval '14 days'), COALESCE(q.retry_limit, 2),
      CASE WHEN COALESCE(q.retry_backoff, false) THEN GREATEST(COALESCE(q.retry_delay, 0), 1) ELSE COALESCE(q.retry_delay, 0) END,
      COALESCE(q.retry_backoff, false), q.policy, q.dead_letter,
      CASE WHEN ${claimed} THEN 'active' ELSE 'created' END::pgboss.job_state,
      CASE WHEN ${claimed} THEN now() END,
      CASE WHEN ${claimed} THEN jsonb_build_object('hearthWorker', ${claim?.workerId ?? 'NULL'}::int) END
    FROM ${from} JOIN pgboss.queue q ON q.name = '${name}'
    ON CONFLICT DO NOTHING${returning ? ` RETURNING ${returning}` : ''}`;
}

/**
 * SQL that completes active jobs of queue `name` as pg-boss's complete does, inside a caller's statement (a job that
 * is done when its last write is): those whose id equals `id` (an SQL expression, `ANY(array)` for a list), each with
 * the jsonb `output`; `join` adds the rows `output` reads, matched `on` each job.
 */
export function completeJobsSql(
  name: JobName, { id, output, join }: { id: string; output: string; join?: { from: string; on: string } },
): string {
  return `UPDATE pgboss.job j SET completed_on = now(), state = 'completed', output = ${output}${join ? ` FROM ${join.from}` : ''}
    WHERE j.name = '${name}' AND j.id = ${id} AND j.state = 'active'${join ? ` AND ${join.on}` : ''}`;
}

/** Completes active jobs of one queue in one statement, each with `output`. */
export async function completeJobs(boss: PgBoss, name: string, ids: string[], output: object): Promise<void> {
  // pg-boss 10 takes an id list with output data; its types declare the list only without data
  await (boss.complete as (name: string, ids: string[], data: object) => Promise<unknown>).call(boss, name, ids, output);
}

/**
 * Makes the next failure of an active job final: pg-boss retries a failed job while its retry count is below
 * its limit, so the limit becomes the count. For a job that can never succeed, such as a malformed payload.
 */
export async function forbidRetry(boss: PgBoss, name: string, id: string): Promise<void> {
  await boss.getDb().executeSql('UPDATE pgboss.job SET retry_limit = retry_count WHERE name = $1 AND id = $2', [name, id]);
}

/** A LISTEN connection that calls `onWake(queueName)` whenever a job is inserted. */
export async function listenForJobs(connectionString: string, onWake: (queue: string) => void): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString, application_name: 'hearth-worker-listen' });
  await client.connect();
  client.on('notification', (message) => {
    if (message.payload) onWake(message.payload);
  });
  client.on('error', () => undefined);
  await client.query(`LISTEN ${wakeChannel}`);
  return async () => {
    await client.end().catch(() => undefined);
  };
}
