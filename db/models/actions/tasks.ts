import { randomBytes } from 'node:crypto';
import { parse } from 'yaml';
import type { Queryable, Tx } from '../../data-source.js';
import type { RepoRow } from '../repos/repo-row.js';
import type { RunnerRow } from './runners.js';
import { labelName, tokenHash } from './runners.js';
import { findRunById, isDone, settleRun, toRunJob, type RunJobRow, type RunRow, type RunState } from './runs.js';
import { ensureActionsBot } from './bot.js';
import { secretsForRepo, variablesForRepo } from './scope.js';

export interface TaskRow {
  id: number;
  job_id: number;
  runner_id: number | null;
  repo_id: number;
  attempt: number;
  token_hash: string;
  status: RunState;
  log_length: number;
  logs_done: boolean;
  started: Date | null;
  stopped: Date | null;
}

const toTask = (raw: Record<string, unknown>): TaskRow => ({
  ...(raw as unknown as TaskRow),
  id: Number(raw.id), job_id: Number(raw.job_id), repo_id: Number(raw.repo_id), log_length: Number(raw.log_length),
  runner_id: raw.runner_id === null ? null : Number(raw.runner_id),
});

/** Gitea's proto Result names and the states they stand for. */
export const resultStates: Record<string, RunState | null> = {
  RESULT_UNSPECIFIED: null, RESULT_SUCCESS: 'success', RESULT_FAILURE: 'failure', RESULT_CANCELLED: 'cancelled', RESULT_SKIPPED: 'skipped',
};

export function resultOf(state: RunState): string {
  return ({ success: 'RESULT_SUCCESS', failure: 'RESULT_FAILURE', cancelled: 'RESULT_CANCELLED', skipped: 'RESULT_SKIPPED' } as Record<string, string>)[state]
    ?? 'RESULT_UNSPECIFIED';
}

/** The names of a job's steps, as the runner numbers them. */
function stepNames(job: RunJobRow): string[] {
  try {
    const doc = parse(job.payload) as { jobs?: Record<string, { steps?: unknown[] }> };
    const steps = doc.jobs?.[job.job_key]?.steps ?? [];
    return steps.map((step, i) => {
      const s = (step ?? {}) as Record<string, unknown>;
      if (typeof s.name === 'string' && s.name) return s.name;
      if (typeof s.run === 'string') return `Run ${s.run.split('\n')[0]}`.slice(0, 255);
      if (typeof s.uses === 'string') return `Run ${s.uses}`;
      return `Step ${i + 1}`;
    });
  } catch {
    return [];
  }
}

export interface FetchedTask {
  task: TaskRow;
  token: string;
  job: RunJobRow;
  run: RunRow;
  repo: RepoRow;
}

/**
 * Hands the oldest waiting job this runner may take to it, as a new task with a fresh token: the job's `runs-on`
 * labels are all among the runner's, its needs succeeded, it is in the runner's scope (instance, owner or
 * repository) and its repository's actions unit is on. The job row is locked with SKIP LOCKED, so concurrent
 * fetches never hand one job to two runners. Null when nothing is waiting for this runner.
 */
export async function fetchTask(tx: Tx, runner: RunnerRow): Promise<FetchedTask | null> {
  const labels = runner.labels.map(labelName);
  const [raw] = await tx.query<Record<string, unknown>>(
    `SELECT j.* FROM action_run_job j
     JOIN repository repo ON repo.id = j.repo_id
     WHERE j.status = 'waiting' AND repo.has_actions
       AND j.runs_on <@ $1::text[]
       AND ($2::bigint IS NULL OR j.repo_id = $2) AND ($3::bigint IS NULL OR repo.owner_id = $3)
       AND NOT EXISTS (SELECT 1 FROM action_run_job n WHERE n.run_id = j.run_id AND n.job_key = ANY(j.needs) AND n.status <> 'success')
     ORDER BY j.id
     FOR UPDATE OF j SKIP LOCKED
     LIMIT 1`,
    [labels, runner.repo_id, runner.owner_id],
  );
  if (!raw) return null;
  const job = toRunJob(raw);
  await ensureActionsBot(tx);
  const token = randomBytes(20).toString('hex');
  const [taskRaw] = await tx.query<Record<string, unknown>>(
    `INSERT INTO action_task (job_id, runner_id, repo_id, attempt, token_hash, status, started)
     VALUES ($1, $2, $3, $4, $5, 'running', now()) RETURNING *`,
    [job.id, runner.id, job.repo_id, job.attempt + 1, tokenHash(token)],
  );
  const task = toTask(taskRaw);
  const names = stepNames(job);
  if (names.length > 0) {
    await tx.query(
      `INSERT INTO action_task_step (task_id, index, name, status) SELECT $1, s.i - 1, s.name, 'waiting' FROM unnest($2::text[]) WITH ORDINALITY AS s(name, i)`,
      [task.id, names],
    );
  }
  const [jobRaw] = await tx.query<Record<string, unknown>>(
    `UPDATE action_run_job SET status = 'running', task_id = $2, attempt = $3, started = now(), updated = now() WHERE id = $1 RETURNING *`,
    [job.id, task.id, task.attempt],
  );
  await tx.query('UPDATE action_runner SET last_online = now(), last_active = now() WHERE id = $1', [runner.id]);
  const run = (await settleRun(tx, job.run_id))!;
  const [repo] = await tx.query<RepoRow>('SELECT * FROM repository WHERE id = $1', [job.repo_id]);
  return { task, token, job: toRunJob(jobRaw), run, repo: { ...repo, id: Number(repo.id), owner_id: Number(repo.owner_id) } };
}

/** A number that grows whenever jobs are added or change; runners send back the last one they saw. */
export async function tasksVersion(db: Queryable): Promise<number> {
  const [row] = await db.query<{ version: string | null }>(`SELECT floor(extract(epoch FROM max(updated)) * 1000)::bigint AS version FROM action_run_job`);
  return Number(row.version ?? 0);
}

export interface TaskPayloadParts {
  secrets: Record<string, string>;
  vars: Record<string, string>;
  needs: Record<string, { outputs: Record<string, string>; result: string }>;
  context: Record<string, unknown>;
}

/**
 * What a fetched task carries besides its workflow: the secrets and variables in the repository's scope (with the
 * task token as GITEA_TOKEN and GITHUB_TOKEN), the outputs and results of the jobs it needs, and the github context.
 */
export async function taskPayloadParts(db: Queryable, fetched: FetchedTask, secretKey: string, rootUrl: string): Promise<TaskPayloadParts> {
  const { run, job, repo, token } = fetched;
  // one after the other: `db` may be a transaction's single connection
  // a fork's pull request sees no secrets but its token (Gitea's getSecretsOfTask)
  const secrets = run.is_fork_pull_request ? {} : await secretsForRepo(db, repo, secretKey);
  const vars = await variablesForRepo(db, repo);
  const needRows = await db.query<{ job_key: string; status: RunState; task_id: string | null }>(
    'SELECT job_key, status, task_id FROM action_run_job WHERE run_id = $1 AND job_key = ANY($2::text[])', [run.id, job.needs],
  );
  const owner = await db.query<{ name: string }>('SELECT name FROM "user" WHERE id = $1', [repo.owner_id]);
  const actor = await db.query<{ name: string }>('SELECT name FROM "user" WHERE id = $1', [run.trigger_user_id]);
  const needs: TaskPayloadParts['needs'] = {};
  for (const need of needRows) {
    const outputs = need.task_id
      ? Object.fromEntries((await db.query<{ key: string; value: string }>('SELECT key, value FROM action_task_output WHERE task_id = $1', [need.task_id])).map((o) => [o.key, o.value]))
      : {};
    needs[need.job_key] = { outputs, result: resultOf(need.status) };
  }
  const ownerName = owner[0]?.name ?? '';
  const refName = run.ref.replace(/^refs\/(heads|tags)\//, '');
  const { base, head } = pullRefsOf(run);
  const context = {
    action: '', action_path: '', action_ref: '', action_repository: '', action_status: '',
    actor: actor[0]?.name ?? '', api_url: `${rootUrl}api/v1`, base_ref: base, event: run.event_payload, event_name: run.event,
    event_path: '', graphql_url: '', head_ref: head, job: job.job_key, ref: run.ref, ref_name: refName,
    ref_type: run.ref.startsWith('refs/tags/') ? 'tag' : 'branch', repository: `${ownerName}/${repo.name}`, repository_owner: ownerName,
    retention_days: '90', run_attempt: String(fetched.task.attempt), run_id: String(run.id), run_number: String(run.index),
    secret_source: 'Actions', server_url: rootUrl.replace(/\/$/, ''), sha: run.commit_sha, token, workflow: run.workflow_path,
    workspace: '',
  };
  return { secrets: { ...secrets, GITEA_TOKEN: token, GITHUB_TOKEN: token }, vars, needs, context };
}

/** The branches of a pull request run's event payload (Gitea's base_ref and head_ref); empty for other runs. */
function pullRefsOf(run: RunRow): { base: string; head: string } {
  const pull = run.event_payload.pull_request as { base?: { ref?: unknown }; head?: { ref?: unknown } } | undefined;
  const ref = (value: unknown): string => (typeof value === 'string' ? value : '');
  return { base: ref(pull?.base?.ref), head: ref(pull?.head?.ref) };
}

export interface StepUpdate {
  id: number;
  result: string;
  started_at: Date | null;
  stopped_at: Date | null;
  log_index: number;
  log_length: number;
}

export interface TaskUpdate {
  id: number;
  result: string;
  started_at: Date | null;
  stopped_at: Date | null;
  steps: StepUpdate[];
}

export class TaskError extends Error {
  constructor(readonly code: 'not_found' | 'permission_denied' | 'invalid_argument', message: string) {
    super(message);
  }
}

async function lockTask(tx: Tx, runner: RunnerRow, taskId: number): Promise<TaskRow> {
  const [raw] = await tx.query<Record<string, unknown>>('SELECT * FROM action_task WHERE id = $1 FOR UPDATE', [taskId]);
  if (!raw) throw new TaskError('not_found', `task ${taskId} not found`);
  const task = toTask(raw);
  if (task.runner_id !== runner.id) throw new TaskError('permission_denied', 'the task belongs to another runner');
  return task;
}

/**
 * A runner's report on its task (Gitea's UpdateTask): step states and log ranges, new outputs (a key set once
 * keeps its first value), and with a result the task, its job and the job's run end in that state. A task that
 * already ended (cancelled meanwhile) keeps its state, which the answer tells the runner.
 */
export async function updateTask(tx: Tx, runner: RunnerRow, update: TaskUpdate, outputs: Record<string, string>): Promise<{ task: TaskRow; sentOutputs: string[] }> {
  let task = await lockTask(tx, runner, update.id);
  const keys = Object.keys(outputs).filter((key) => key.length <= 255);
  if (keys.length > 0) {
    await tx.query(
      `INSERT INTO action_task_output (task_id, key, value) SELECT $1, o.key, o.value FROM unnest($2::text[], $3::text[]) AS o(key, value)
       ON CONFLICT DO NOTHING`,
      [task.id, keys, keys.map((k) => outputs[k])],
    );
  }
  if (!isDone(task.status)) {
    for (const step of update.steps) {
      const state = resultStates[step.result] ?? (step.started_at ? 'running' : 'waiting');
      await tx.query(
        `INSERT INTO action_task_step (task_id, index, name, status, log_index, log_length, started, stopped)
         VALUES ($1, $2, '', $3, $4, $5, $6, $7)
         ON CONFLICT (task_id, index) DO UPDATE SET status = EXCLUDED.status, log_index = EXCLUDED.log_index, log_length = EXCLUDED.log_length,
           started = COALESCE(EXCLUDED.started, action_task_step.started), stopped = COALESCE(EXCLUDED.stopped, action_task_step.stopped)`,
        [task.id, step.id, state, step.log_index, step.log_length, step.started_at, step.stopped_at],
      );
    }
    const finished = resultStates[update.result] ?? null;
    if (finished) {
      const [raw] = await tx.query<Record<string, unknown>>(
        `UPDATE action_task SET status = $2, stopped = COALESCE($3, now()), updated = now() WHERE id = $1 RETURNING *`,
        [task.id, finished, update.stopped_at],
      );
      task = toTask(raw);
      const [job] = await tx.query<{ run_id: string }>(
        `UPDATE action_run_job SET status = $2, stopped = now(), updated = now() WHERE id = $1 AND task_id = $3 RETURNING run_id`,
        [task.job_id, finished, task.id],
      );
      if (job) await settleRun(tx, Number(job.run_id));
    } else {
      await tx.query('UPDATE action_task SET updated = now() WHERE id = $1', [task.id]);
    }
  }
  const sent = await tx.query<{ key: string }>('SELECT key FROM action_task_output WHERE task_id = $1 ORDER BY key', [task.id]);
  return { task, sentOutputs: sent.map((s) => s.key) };
}

export interface LogRowInput {
  time: Date | null;
  content: string;
}

/**
 * Log rows of a task from `index` on (Gitea's UpdateLog): rows already stored are skipped, a gap is refused by
 * answering the length stored so far, and `noMore` closes the log. Answers the acknowledged length.
 */
export async function appendTaskLog(tx: Tx, runner: RunnerRow, taskId: number, index: number, rows: LogRowInput[], noMore: boolean): Promise<number> {
  const task = await lockTask(tx, runner, taskId);
  const ack = task.log_length;
  if (task.logs_done || rows.length === 0 || index > ack || index + rows.length <= ack) {
    if (noMore && !task.logs_done && index + rows.length <= ack) await tx.query('UPDATE action_task SET logs_done = true WHERE id = $1', [task.id]);
    return ack;
  }
  const fresh = rows.slice(ack - index);
  await tx.query(
    `INSERT INTO action_task_log (task_id, index, time, content)
     SELECT $1, $2 + r.i - 1, r.time, r.content FROM unnest($3::timestamptz[], $4::text[]) WITH ORDINALITY AS r(time, content, i)`,
    [task.id, ack, fresh.map((r) => r.time ?? new Date()), fresh.map((r) => r.content)],
  );
  const length = ack + fresh.length;
  await tx.query('UPDATE action_task SET log_length = $2, logs_done = $3, updated = now() WHERE id = $1', [task.id, length, noMore]);
  return length;
}

export async function findTaskSteps(db: Queryable, taskIds: number[]): Promise<Map<number, { index: number; name: string; status: RunState; started: Date | null; stopped: Date | null }[]>> {
  const rows = await db.query<{ task_id: string; index: number; name: string; status: RunState; started: Date | null; stopped: Date | null }>(
    'SELECT * FROM action_task_step WHERE task_id = ANY($1::bigint[]) ORDER BY task_id, index', [taskIds],
  );
  const byTask = new Map<number, { index: number; name: string; status: RunState; started: Date | null; stopped: Date | null }[]>();
  for (const row of rows) {
    const list = byTask.get(Number(row.task_id)) ?? [];
    list.push({ index: row.index, name: row.name, status: row.status, started: row.started, stopped: row.stopped });
    byTask.set(Number(row.task_id), list);
  }
  return byTask;
}

export async function findRunOfTask(db: Queryable, task: TaskRow): Promise<RunRow | null> {
  const [job] = await db.query<{ run_id: string }>('SELECT run_id FROM action_run_job WHERE id = $1', [task.job_id]);
  return job ? findRunById(db, Number(job.run_id)) : null;
}
