import type { Queryable, Tx } from '../../data-source.js';
import type { PageWindow } from '../../sql.js';
import type { Workflow } from './workflows.js';

/** The states of runs, jobs, tasks and steps (Gitea's actions_model.Status, less unknown and blocked). */
export const runStates = ['waiting', 'running', 'success', 'failure', 'cancelled', 'skipped'] as const;
export type RunState = (typeof runStates)[number];
export const doneStates: readonly RunState[] = ['success', 'failure', 'cancelled', 'skipped'];
export const isDone = (state: string): boolean => (doneStates as readonly string[]).includes(state);

export interface RunRow {
  id: number;
  repo_id: number;
  index: number;
  workflow_path: string;
  title: string;
  trigger_user_id: number | null;
  event: string;
  event_payload: Record<string, unknown>;
  ref: string;
  commit_sha: string;
  trigger_event_id: number | null;
  schedule_id: number | null;
  schedule_slot: Date | null;
  is_scheduled: boolean;
  /** A run of a fork's pull request: its task token only reads, and it sees no secrets. */
  is_fork_pull_request: boolean;
  status: RunState;
  parse_error: string | null;
  started: Date | null;
  stopped: Date | null;
  created: Date;
  updated: Date;
}

export interface RunJobRow {
  id: number;
  run_id: number;
  repo_id: number;
  job_key: string;
  name: string;
  needs: string[];
  runs_on: string[];
  payload: string;
  status: RunState;
  attempt: number;
  task_id: number | null;
  started: Date | null;
  stopped: Date | null;
  created: Date;
  updated: Date;
}

const toRun = (raw: Record<string, unknown>): RunRow => ({
  ...(raw as unknown as RunRow),
  id: Number(raw.id), repo_id: Number(raw.repo_id), index: Number(raw.index),
  trigger_user_id: raw.trigger_user_id === null ? null : Number(raw.trigger_user_id),
  trigger_event_id: raw.trigger_event_id === null ? null : Number(raw.trigger_event_id),
  schedule_id: raw.schedule_id === null ? null : Number(raw.schedule_id),
});

export const toRunJob = (raw: Record<string, unknown>): RunJobRow => ({
  ...(raw as unknown as RunJobRow),
  id: Number(raw.id), run_id: Number(raw.run_id), repo_id: Number(raw.repo_id), task_id: raw.task_id === null ? null : Number(raw.task_id),
});

/** What started a run. A run is made at most once per event and workflow file, and once per plan and time slot. */
export interface RunTrigger {
  event: string;
  ref: string;
  commitSha: string;
  userId: number | null;
  title: string;
  payload?: Record<string, unknown>;
  eventId?: number;
  schedule?: { id: number; slot: Date };
  isForkPullRequest?: boolean;
}

/** Run indexes count per repository; concurrent creations in one repository take turns on this lock. */
const runIndexLock = 7_302_140;

/**
 * A run of one workflow with a job per workflow job, all waiting (a job whose needs are not done yet waits until
 * they are). A workflow that failed to parse becomes a failed run without jobs, its error on the run. Null when
 * the same trigger already made this run.
 */
export async function createRun(tx: Tx, repoId: number, workflow: Workflow, trigger: RunTrigger): Promise<RunRow | null> {
  await tx.query('SELECT pg_advisory_xact_lock($1, $2::int)', [runIndexLock, repoId % 2_147_483_647]);
  const failed = workflow.error !== null;
  const [raw] = await tx.query<Record<string, unknown>>(
    `INSERT INTO action_run (repo_id, index, workflow_path, title, trigger_user_id, event, event_payload, ref, commit_sha, trigger_event_id,
       schedule_id, schedule_slot, is_scheduled, status, parse_error, is_fork_pull_request, stopped)
     VALUES ($1, (SELECT COALESCE(max(index), 0) + 1 FROM action_run WHERE repo_id = $1), $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14,
       $15, CASE WHEN $13 = 'failure' THEN now() END)
     ON CONFLICT DO NOTHING RETURNING *`,
    [
      repoId, workflow.path, trigger.title, trigger.userId, trigger.event, JSON.stringify(trigger.payload ?? {}), trigger.ref, trigger.commitSha,
      trigger.eventId ?? null, trigger.schedule?.id ?? null, trigger.schedule?.slot ?? null, trigger.schedule !== undefined,
      failed ? 'failure' : 'waiting', workflow.error, trigger.isForkPullRequest ?? false,
    ],
  );
  if (!raw) return null;
  const run = toRun(raw);
  if (!failed && workflow.jobs.length > 0) {
    await tx.query(
      `INSERT INTO action_run_job (run_id, repo_id, job_key, name, needs, runs_on, payload, status)
       SELECT $1, $2, j.key, j.name, ARRAY(SELECT jsonb_array_elements_text(j.needs)), ARRAY(SELECT jsonb_array_elements_text(j.runs_on)), j.payload, 'waiting'
       FROM jsonb_to_recordset($3::jsonb) AS j(key text, name text, needs jsonb, runs_on jsonb, payload text)`,
      [run.id, repoId, JSON.stringify(workflow.jobs.map((j) => ({ key: j.key, name: j.name, needs: j.needs, runs_on: j.runsOn, payload: j.payload })))],
    );
  }
  return run;
}

/** The state of a run from its jobs (Gitea's aggregateJobStatus). */
export function aggregateState(states: RunState[]): RunState {
  if (states.length === 0) return 'success';
  if (states.every((s) => s === 'skipped')) return 'skipped';
  if (states.every((s) => s === 'success' || s === 'skipped')) return 'success';
  if (states.some((s) => s === 'running')) return 'running';
  if (states.some((s) => s === 'waiting')) return states.some((s) => isDone(s)) ? 'running' : 'waiting';
  if (states.some((s) => s === 'failure')) return 'failure';
  return 'cancelled';
}

/**
 * After a job changed: jobs that need a job that did not succeed are skipped (transitively), and the run takes
 * the state of its jobs, with its start and stop times.
 */
export async function settleRun(tx: Tx, runId: number): Promise<RunRow | null> {
  for (;;) {
    const skipped = await tx.query(
      `UPDATE action_run_job j SET status = 'skipped', stopped = now(), updated = now()
       WHERE j.run_id = $1 AND j.status = 'waiting' AND EXISTS (
         SELECT 1 FROM action_run_job n WHERE n.run_id = j.run_id AND n.job_key = ANY(j.needs) AND n.status IN ('failure', 'cancelled', 'skipped'))
       RETURNING j.id`,
      [runId],
    );
    if (skipped.length === 0) break;
  }
  const jobs = await tx.query<{ status: RunState }>('SELECT status FROM action_run_job WHERE run_id = $1', [runId]);
  const [raw] = await tx.query<Record<string, unknown>>('SELECT * FROM action_run WHERE id = $1 FOR UPDATE', [runId]);
  if (!raw) return null;
  const run = toRun(raw);
  if (run.parse_error !== null || isDone(run.status)) return run;
  const state = aggregateState(jobs.map((j) => j.status));
  const [updated] = await tx.query<Record<string, unknown>>(
    `UPDATE action_run SET status = $2, updated = now(),
       started = CASE WHEN started IS NULL AND $2 <> 'waiting' THEN now() ELSE started END,
       stopped = CASE WHEN $2 IN ('success', 'failure', 'cancelled', 'skipped') THEN now() ELSE stopped END
     WHERE id = $1 RETURNING *`,
    [runId, state],
  );
  return toRun(updated);
}

/**
 * Cancels the waiting and running runs a condition picks (scheduled runs of a repository, say): their unfinished
 * jobs and tasks end cancelled, and a runner working on one learns it at its next UpdateTask.
 */
export async function cancelRuns(tx: Tx, where: { repoId?: number; scheduledOnly?: boolean; runIds?: number[] }): Promise<number[]> {
  const runs = await tx.query<{ id: string }>(
    `UPDATE action_run SET status = 'cancelled', stopped = now(), updated = now()
     WHERE status IN ('waiting', 'running') AND ($1::bigint IS NULL OR repo_id = $1) AND (NOT $2 OR is_scheduled)
       AND ($3::bigint[] IS NULL OR id = ANY($3))
     RETURNING id`,
    [where.repoId ?? null, where.scheduledOnly ?? false, where.runIds ?? null],
  );
  const ids = runs.map((r) => Number(r.id));
  if (ids.length === 0) return ids;
  await tx.query(
    `UPDATE action_task t SET status = 'cancelled', stopped = now(), updated = now()
     FROM action_run_job j WHERE t.job_id = j.id AND j.run_id = ANY($1) AND t.status IN ('waiting', 'running')`,
    [ids],
  );
  await tx.query(
    `UPDATE action_run_job SET status = 'cancelled', stopped = now(), updated = now() WHERE run_id = ANY($1) AND status IN ('waiting', 'running')`,
    [ids],
  );
  return ids;
}

export interface RunFilter {
  status?: RunState;
  event?: string;
  branch?: string;
  headSha?: string;
}

/** A repository's runs, newest first. */
export async function listRuns(db: Queryable, repoId: number, filter: RunFilter, page: PageWindow): Promise<{ rows: RunRow[]; total: number }> {
  const where = `repo_id = $1 AND ($2::text IS NULL OR status = $2) AND ($3::text IS NULL OR event = $3)
    AND ($4::text IS NULL OR ref = 'refs/heads/' || $4) AND ($5::text IS NULL OR commit_sha = $5)`;
  const params = [repoId, filter.status ?? null, filter.event ?? null, filter.branch ?? null, filter.headSha ?? null];
  const [rows, [count]] = await Promise.all([
    db.query<Record<string, unknown>>(`SELECT * FROM action_run WHERE ${where} ORDER BY id DESC LIMIT $6 OFFSET $7`, [...params, page.limit, page.offset]),
    db.query<{ total: string }>(`SELECT count(*) AS total FROM action_run WHERE ${where}`, params),
  ]);
  return { rows: rows.map(toRun), total: Number(count.total) };
}

export async function findRun(db: Queryable, repoId: number, runId: number): Promise<RunRow | null> {
  const [raw] = await db.query<Record<string, unknown>>('SELECT * FROM action_run WHERE repo_id = $1 AND id = $2', [repoId, runId]);
  return raw ? toRun(raw) : null;
}

export async function findRunById(db: Queryable, runId: number): Promise<RunRow | null> {
  const [raw] = await db.query<Record<string, unknown>>('SELECT * FROM action_run WHERE id = $1', [runId]);
  return raw ? toRun(raw) : null;
}

export async function listRunJobs(db: Queryable, runId: number, page: PageWindow): Promise<{ rows: RunJobRow[]; total: number }> {
  const [rows, [count]] = await Promise.all([
    db.query<Record<string, unknown>>('SELECT * FROM action_run_job WHERE run_id = $1 ORDER BY id LIMIT $2 OFFSET $3', [runId, page.limit, page.offset]),
    db.query<{ total: string }>('SELECT count(*) AS total FROM action_run_job WHERE run_id = $1', [runId]),
  ]);
  return { rows: rows.map(toRunJob), total: Number(count.total) };
}
