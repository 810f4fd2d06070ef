import { jobNames, type JobName } from '../../../jobs/catalogue.js';
import { workerRowAlive } from '../../../jobs/lost-jobs.js';
import type { Queryable } from '../../data-source.js';
import { conflict, notFound } from '../../errors.js';

// The queue monitor reads pg-boss's job table directly; its indexes hearth_job_state and hearth_job_ended
// (jobs/queue.ts) keep each figure to the live jobs and those that ended in the last hour.

export const jobStates = ['created', 'retry', 'active', 'completed', 'cancelled', 'failed'] as const;
export type JobState = (typeof jobStates)[number];

export interface QueueFigures {
  name: string;
  created: number;
  retry: number;
  active: number;
  /** Ended in the last hour, by how. */
  completedLastHour: number;
  failedLastHour: number;
  cancelledLastHour: number;
  /** Since when the oldest job that may start now has waited; null when none waits. */
  oldestWaitingSince: Date | null;
  /** Run time in seconds of the jobs completed in the last hour; null without any. */
  meanRunSeconds: number | null;
  p99RunSeconds: number | null;
  /** The live worker processes subscribed to the queue now. */
  workers: QueueWorker[];
}

export interface QueueWorker {
  id: number;
  host: string;
  pid: number;
  actors: string[];
  /** How many of this queue's jobs the worker runs at once. */
  concurrency: number;
  started: string;
  heartbeat: string;
}

/**
 * Every catalogued queue's figures, in one statement. The workers come from `worker_process` (a row per live worker
 * process, jobs/lost-jobs.ts), never from the jobs, so the cost stays that of the live jobs and the last hour's.
 */
export async function queueFigures(db: Queryable): Promise<QueueFigures[]> {
  return db.query<QueueFigures>(
    `WITH live_worker AS MATERIALIZED (SELECT * FROM worker_process w WHERE ${workerRowAlive('w')})
     SELECT q.name, live.created, live.retry, live.active, live."oldestWaitingSince",
       ended."completedLastHour", ended."failedLastHour", ended."cancelledLastHour", ended."meanRunSeconds", ended."p99RunSeconds",
       coalesce(subscribed.workers, '[]') AS workers
     FROM unnest($1::text[]) WITH ORDINALITY AS q(name, position)
     CROSS JOIN LATERAL (
       SELECT count(*) FILTER (WHERE j.state = 'created')::int AS created,
         count(*) FILTER (WHERE j.state = 'retry')::int AS retry,
         count(*) FILTER (WHERE j.state = 'active')::int AS active,
         min(j.start_after) FILTER (WHERE j.state < 'active' AND j.start_after <= now()) AS "oldestWaitingSince"
       FROM pgboss.job j WHERE j.name = q.name AND j.state <= 'active') live
     CROSS JOIN LATERAL (
       SELECT count(*) FILTER (WHERE j.state = 'completed')::int AS "completedLastHour",
         count(*) FILTER (WHERE j.state = 'failed')::int AS "failedLastHour",
         count(*) FILTER (WHERE j.state = 'cancelled')::int AS "cancelledLastHour",
         avg(extract(epoch FROM j.completed_on - j.started_on)) FILTER (WHERE j.state = 'completed')::float8 AS "meanRunSeconds",
         percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM j.completed_on - j.started_on)::float8)
           FILTER (WHERE j.state = 'completed') AS "p99RunSeconds"
       FROM pgboss.job j WHERE j.name = q.name AND j.state > 'active' AND j.completed_on > now() - interval '1 hour') ended
     LEFT JOIN LATERAL (
       SELECT json_agg(json_build_object('id', w.id, 'host', w.host, 'pid', w.pid, 'actors', w.actors,
           'concurrency', (w.queues->>q.name)::int, 'started', w.started, 'heartbeat', w.heartbeat) ORDER BY w.host, w.pid) AS workers
       FROM live_worker w WHERE w.queues ? q.name) subscribed ON true
     ORDER BY q.position`,
    [jobNames],
    { planOnce: true },
  );
}

export interface QueueJob {
  id: string;
  state: JobState;
  data: unknown;
  retryCount: number;
  retryLimit: number;
  createdOn: Date;
  startedOn: Date | null;
  completedOn: Date | null;
  /** pg-boss's output: a failed job's error, a completed one's result. */
  output: unknown;
}

const jobColumns = (t: string): string => `${t}.id, ${t}.state::text AS state, ${t}.data, ${t}.retry_count AS "retryCount",
  ${t}.retry_limit AS "retryLimit", ${t}.created_on AS "createdOn", ${t}.started_on AS "startedOn", ${t}.completed_on AS "completedOn", ${t}.output`;

/** A catalogued queue's name, else 404. */
export function queueNamed(name: string): JobName {
  if (!(jobNames as string[]).includes(name)) throw notFound(`queue ${name}`);
  return name as JobName;
}

/** A queue's jobs newest first, in one state or all, with their count. */
export async function listQueueJobs(
  db: Queryable, name: JobName, state: JobState | undefined, offset: number, limit: number,
): Promise<{ jobs: QueueJob[]; total: number }> {
  const rows = await db.query<QueueJob & { total: number }>(
    `SELECT ${jobColumns('j')}, count(*) OVER ()::int AS total FROM pgboss.job j
     WHERE name = $1 AND ($2::text IS NULL OR state = $2::pgboss.job_state)
     ORDER BY created_on DESC, id OFFSET $3 LIMIT $4`,
    [name, state ?? null, offset, limit],
  );
  const total = rows[0]?.total ?? (offset > 0 ? (await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND ($2::text IS NULL OR state = $2::pgboss.job_state)`, [name, state ?? null],
  ))[0].n : 0);
  return { jobs: rows.map(({ total: _total, ...job }) => job), total };
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Changes one job from the states `from` allows, in one statement; answers the job as it now is. A job that is not
 * there is 404, one in another state 409, and nothing is changed.
 */
async function changeJob(db: Queryable, name: JobName, id: string, from: readonly JobState[], set: string, verb: string): Promise<QueueJob> {
  if (!uuid.test(id)) throw notFound(`job ${id}`);
  const [row] = await db.query<QueueJob & { before: JobState }>(
    `WITH target AS (SELECT id, state FROM pgboss.job WHERE name = $1 AND id = $2::uuid),
     changed AS (
       UPDATE pgboss.job j SET ${set} FROM target
       WHERE j.name = $1 AND j.id = target.id AND target.state::text = ANY($3::text[])
       RETURNING ${jobColumns('j')})
     SELECT target.state::text AS before, changed.* FROM target LEFT JOIN changed ON true`,
    [name, id, from],
  );
  if (!row) throw notFound(`job ${id}`);
  if (row.id === null) throw conflict(`job ${id} is ${row.before}: only ${from.join(' or ')} jobs can be ${verb}`);
  const { before: _before, ...job } = row;
  return job;
}

// A retried job goes back as 'retry' (never 'created': a short queue allows one created job per key), due now, with
// one more attempt than it has used.
const retrySet = `state = 'retry', start_after = now(), completed_on = NULL, retry_limit = greatest(j.retry_limit, j.retry_count + 1)`;

/** Runs a failed or cancelled job again: its actor runs once more (actors are idempotent). */
export function retryJob(db: Queryable, name: JobName, id: string): Promise<QueueJob> {
  return changeJob(db, name, id, ['failed', 'cancelled'], retrySet, 'retried');
}

/** Cancels a job that has not ended; a running one's outcome is then dropped (pg-boss completes active jobs only). */
export function cancelJob(db: Queryable, name: JobName, id: string): Promise<QueueJob> {
  return changeJob(db, name, id, ['created', 'retry', 'active'], `state = 'cancelled', completed_on = now()`, 'cancelled');
}

/** Every failed job of a queue run again; answers their ids. */
export async function retryFailedJobs(db: Queryable, name: JobName): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `UPDATE pgboss.job j SET ${retrySet} WHERE j.name = $1 AND j.state = 'failed' RETURNING j.id`, [name],
  );
  return rows.map((row) => row.id);
}

/** Removes a queue's failed or completed jobs; answers how many. */
export async function deleteEndedJobs(db: Queryable, name: JobName, state: 'failed' | 'completed'): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    `WITH gone AS (DELETE FROM pgboss.job WHERE name = $1 AND state = $2::pgboss.job_state RETURNING 1) SELECT count(*)::int AS n FROM gone`,
    [name, state],
  );
  return row.n;
}

/** A minute of a queue's last hour: how many jobs completed and failed in it. */
export interface QueueMinute {
  name: string;
  /** Whole minutes ago, 0 (this minute) to 59. */
  minutesAgo: number;
  completed: number;
  failed: number;
}

/**
 * Every queue's completed and failed jobs of the last hour by minute, in one statement over the index
 * hearth_job_ended (jobs/queue.ts): its cost follows the last hour's throughput, not the kept jobs. Empty minutes
 * are not answered.
 */
export async function queueMinutes(db: Queryable): Promise<QueueMinute[]> {
  return db.query<QueueMinute>(
    `SELECT j.name, least(59, floor(extract(epoch FROM now() - j.completed_on) / 60))::int AS "minutesAgo",
       count(*) FILTER (WHERE j.state = 'completed')::int AS completed, count(*) FILTER (WHERE j.state = 'failed')::int AS failed
     FROM pgboss.job j
     WHERE j.name = ANY($1::text[]) AND j.state > 'active' AND j.completed_on > now() - interval '1 hour'
     GROUP BY 1, 2`,
    [jobNames],
  );
}

/** Each queue's newest failed jobs, at most `perQueue` of each, in one statement (the index hearth_job_state). */
export async function newestFailedJobs(db: Queryable, perQueue: number): Promise<Array<QueueJob & { name: string }>> {
  return db.query<QueueJob & { name: string }>(
    `SELECT q.name, f.* FROM unnest($1::text[]) WITH ORDINALITY AS q(name, position)
     CROSS JOIN LATERAL (
       SELECT ${jobColumns('j')} FROM pgboss.job j WHERE j.name = q.name AND j.state = 'failed' ORDER BY j.created_on DESC LIMIT $2) f
     ORDER BY q.position, f."createdOn" DESC`,
    [jobNames, perQueue],
  );
}
