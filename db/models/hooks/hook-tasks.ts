import { randomUUID } from 'node:crypto';
import { completeJobsSql, insertJobsSql } from '../../../jobs/queue.js';
import type { JobName } from '../../../jobs/catalogue.js';
import type { Queryable, Tx } from '../../data-source.js';
import { batched, batchedPerDb } from '../../batch.js';
import { notFound } from '../../errors.js';
import { selectPage, type PageWindow } from '../../sql.js';
import type { HookEventType } from './hook-events.js';
import type { DeliveryAttempt, HookTaskRow } from './hook-task-row.js';
export { sentRequest, type DeliveryAttempt, type HookTaskRow } from './hook-task-row.js';
import { hookColumns, type WebhookRow } from './webhooks.js';

const columns = `id::int, hook_id::int, event_id::int, repo_id::int, uuid::text, event_type, payload, is_delivered, is_succeed, refused,
  attempts, created, delivered`;

export interface NewHookTask {
  hookId: number;
  eventId: number | null;
  repoId: number | null;
  eventType: HookEventType;
  payload: string;
  /** Its delivery job is inserted active and `claimingWorker`'s, to run at once in that process (see ClaimedDelivery). */
  claimed?: boolean;
}

/** Jobs of one queue that a statement completes (with the output `done`) as its last write: the job that made it. */
export interface JobsCompleted {
  queue: JobName;
  jobIds: string[];
}

/** A delivery job inserted already claimed by this worker, with what its delivery needs. */
export interface ClaimedDelivery extends Delivery {
  jobId: string;
  expireInSeconds: number;
}

/**
 * Inserts the tasks and one `webhook-delivery` job per new task, in one statement (atomic without a transaction of
 * its own). A task that already exists for its event, hook and event type (a repeated fan-out) is kept as it is and
 * gets no second job. Hooks of one format share their payload: each distinct payload is sent once. The jobs of
 * tasks marked `claimed` are inserted active and `claimingWorker`'s; they are answered with their tasks and hooks.
 */
export async function insertHookTasks(
  db: Queryable, deliverTimeoutSeconds: number, tasks: NewHookTask[],
  { claimingWorker = null, completes = null }: { claimingWorker?: number | null; completes?: JobsCompleted | null } = {},
): Promise<ClaimedDelivery[]> {
  if (tasks.length === 0) return [];
  const payloads = new Map<string, number>();
  for (const task of tasks) if (!payloads.has(task.payload)) payloads.set(task.payload, payloads.size + 1);
  const rows = await db.query<DeliveryRow & { job_id: string; expire_in_seconds: string }>(
    `WITH input AS (
       SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::uuid[], $5::text[], $6::int[], $10::boolean[])
         AS t(hook_id, event_id, repo_id, uuid, event_type, payload_no, claimed)),
     task AS (
       INSERT INTO hook_task (hook_id, event_id, repo_id, uuid, event_type, payload)
       SELECT t.hook_id, t.event_id, t.repo_id, t.uuid, t.event_type, p.payload
         FROM input t JOIN unnest($7::text[]) WITH ORDINALITY AS p(payload, no) ON p.no = t.payload_no
       ON CONFLICT (event_id, hook_id, event_type) WHERE event_id IS NOT NULL DO NOTHING
       RETURNING ${columns}),
     job AS (${deliveryJobsSql('$8', 'task JOIN input ON input.uuid::text = task.uuid', { claim: { when: 'input.claimed', workerId: '$9' }, returning: 'id, data, expire_in, state' })})
     ${completes ? `, done AS (${completeJobsSql(completes.queue, { id: 'ANY($11::uuid[])', output: `'{"value":"done"}'::jsonb` })})` : ''}
     SELECT task.*, ${hookJson('task')}, job.id AS job_id, EXTRACT(epoch FROM job.expire_in) AS expire_in_seconds
       FROM task JOIN job ON (job.data->>'taskId')::bigint = task.id
      WHERE job.state = 'active'`,
    [
      tasks.map((t) => t.hookId), tasks.map((t) => t.eventId), tasks.map((t) => t.repoId), tasks.map(() => randomUUID()),
      tasks.map((t) => t.eventType), tasks.map((t) => payloads.get(t.payload)), [...payloads.keys()], deliveryExpirySeconds(deliverTimeoutSeconds),
      claimingWorker, tasks.map((t) => claimingWorker !== null && t.claimed === true), ...(completes ? [completes.jobIds] : []),
    ],
    { planOnce: true },
  );
  return rows.flatMap(({ job_id, expire_in_seconds, ...row }) => {
    const delivery = deliveryFromRow(row);
    return delivery ? [{ ...delivery, jobId: job_id, expireInSeconds: Number(expire_in_seconds) }] : [];
  });
}

/**
 * insertHookTasks outside a transaction, for fan-outs made together (a worker's notify jobs under load): one
 * statement. Each call is answered with the claimed deliveries of its own tasks.
 */
export const insertHookTasksTogether = batchedPerDb((db: Queryable) => batched(async (
  calls: Array<{ deliverTimeoutSeconds: number; tasks: NewHookTask[]; claimingWorker: number | null; completes: JobsCompleted | null }>,
): Promise<ClaimedDelivery[][]> => {
  const claimingWorker = calls.find((call) => call.claimingWorker !== null)?.claimingWorker ?? null;
  const completed = calls.flatMap((call) => (call.completes ? [call.completes] : []));
  if (completed.some((c) => c.queue !== completed[0].queue)) throw new Error('fan-outs made together complete jobs of one queue');
  const claimed = await insertHookTasks(db, Math.max(...calls.map((call) => call.deliverTimeoutSeconds)), calls.flatMap((call) => call.tasks), {
    claimingWorker,
    completes: completed.length ? { queue: completed[0].queue, jobIds: completed.flatMap((c) => c.jobIds) } : null,
  });
  const taskKey = (eventId: number | null, hookId: number, eventType: string): string => `${eventId}:${hookId}:${eventType}`;
  const callOf = new Map<string, number>();
  calls.forEach((call, i) => call.tasks.forEach((t) => callOf.set(taskKey(t.eventId, t.hookId, t.eventType), i)));
  const answers = calls.map((): ClaimedDelivery[] => []);
  for (const delivery of claimed) answers[callOf.get(taskKey(delivery.task.event_id, delivery.task.hook_id, delivery.task.event_type))!].push(delivery);
  return answers;
}));

/** A task with the hook it goes to: what its delivery needs. */
export interface Delivery {
  task: HookTaskRow;
  hook: WebhookRow;
}

type DeliveryRow = HookTaskRow & { hook: (Omit<WebhookRow, 'created' | 'updated'> & { created: string; updated: string }) | null };

/** The hook of task `alias` as JSON beside the task's columns. */
const hookJson = (alias: string): string =>
  `(SELECT row_to_json(w) FROM (SELECT ${hookColumns} FROM webhook WHERE webhook.id = ${alias}.hook_id) w) AS hook`;

function deliveryFromRow({ hook, ...task }: DeliveryRow): Delivery | null {
  return hook ? { task, hook: { ...hook, created: new Date(hook.created), updated: new Date(hook.updated) } } : null;
}

/**
 * A task and its hook, for its delivery; null when either is gone. The deliveries a worker starts together (a
 * fan-out's batch) load theirs in one query, the hook travelling as JSON beside its task.
 */
export const findDelivery: (db: Queryable, taskId: number) => Promise<Delivery | null> = batchedPerDb((db: Queryable) => batched(async (taskIds: number[]) => {
  const rows = await db.query<DeliveryRow>(`SELECT ${columns}, ${hookJson('hook_task')} FROM hook_task WHERE id = ANY($1::bigint[])`, [taskIds]);
  const found = new Map<number, Delivery>();
  for (const row of rows) {
    const delivery = deliveryFromRow(row);
    if (delivery) found.set(delivery.task.id, delivery);
  }
  return taskIds.map((id) => found.get(id) ?? null);
}));

/** A hook's deliveries, newest first. */
export async function listHookTasks(db: Queryable, hookId: number, page: PageWindow): Promise<{ rows: HookTaskRow[]; total: number }> {
  return selectPage<HookTaskRow>(db, { select: columns, from: 'hook_task WHERE hook_id = $1', params: [hookId], orderBy: 'id DESC', page });
}

export async function getHookTask(db: Queryable, hookId: number, id: number): Promise<HookTaskRow> {
  const [row] = await db.query<HookTaskRow>(`SELECT ${columns} FROM hook_task WHERE hook_id = $1 AND id = $2`, [hookId, id]);
  if (!row) throw notFound('hook task');
  return row;
}

export interface AttemptRecord {
  taskId: number;
  attempt: DeliveryAttempt;
  final: boolean;
  refused: string | null;
  /** The delivery job this record completes, with the outcome its output shows. */
  completes: { jobId: string; outcome: string } | null;
}

/**
 * Records one attempt; a final one (a success, an answer no retry changes, a refused address) marks the task delivered,
 * and completes its delivery job when `completes` names it.
 * Attempts that end while the previous record is written go in one statement; the hook's last status is that of its
 * latest attempt, written only when it changes, so deliveries to one hook do not queue on its row.
 */
export function recordAttempt(
  db: Queryable, task: Pick<HookTaskRow, 'id' | 'payload'>, attempt: DeliveryAttempt,
  { final, refused = null, completes = null }: { final: boolean; refused?: string | null; completes?: AttemptRecord['completes'] },
): Promise<void> {
  const { body, ...request } = attempt.request;
  const stored = body === task.payload ? { ...attempt, request } : attempt;
  return recordAttempts(db, { taskId: task.id, attempt: stored, final, refused, completes });
}

/**
 * Records attempts in one statement (parameters: recordAttemptsParams). Tasks and jobs are also named in arrays, which
 * PostgreSQL plans as lookups by key: joined with the input alone (estimated at a hundred rows), it may scan every
 * task, or every job the delivery queue keeps.
 */
export const recordAttemptsSql = `WITH input AS (
       SELECT (r->>'taskId')::bigint AS task_id, r->'attempt' AS attempt, (r->>'final')::boolean AS final, r->>'refused' AS refused, n,
         (r#>>'{completes,jobId}')::uuid AS job_id, r#>'{completes,outcome}' AS outcome
         FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS e(r, n)),
     done AS (${completeJobsSql('webhook-delivery', {
       id: 'ANY($2::uuid[])', join: { from: 'input', on: 'j.id = input.job_id' }, output: `jsonb_build_object('value', input.outcome)`,
     })}),
     task AS (
       UPDATE hook_task t SET attempts = t.attempts || jsonb_build_array(i.attempt), is_succeed = (i.attempt->>'success')::boolean,
         refused = i.refused, is_delivered = t.is_delivered OR i.final, delivered = CASE WHEN i.final THEN now() ELSE t.delivered END
       FROM input i WHERE t.id = ANY($3::bigint[]) AND t.id = i.task_id
       RETURNING t.hook_id, i.n, (i.attempt->>'success')::boolean AS success),
     latest AS (SELECT DISTINCT ON (hook_id) hook_id, CASE WHEN success THEN 1 ELSE 2 END AS status FROM task ORDER BY hook_id, n DESC)
     UPDATE webhook SET last_status = latest.status FROM latest WHERE webhook.id = latest.hook_id AND webhook.last_status <> latest.status`;

export const recordAttemptsParams = (records: AttemptRecord[]): unknown[] => [
  JSON.stringify(records), records.flatMap((record) => (record.completes ? [record.completes.jobId] : [])), records.map((record) => record.taskId),
];

const recordAttempts = batchedPerDb((db: Queryable) => batched(async (records: AttemptRecord[]) => {
  await db.query(recordAttemptsSql, recordAttemptsParams(records));
  return records.map(() => undefined);
}, (record) => record.taskId));

/**
 * A delivery job expires (and goes to another worker) a little after its request would have timed out, so a worker
 * killed mid-delivery delays the task only that long.
 */
const deliveryExpirySeconds = (deliverTimeoutSeconds: number): number => deliverTimeoutSeconds * 2 + 10;

/**
 * SQL inserting one `webhook-delivery` job per row of `from` (the WITH item `task`, or a join with it), expiring after
 * `expirySeconds` (an SQL parameter).
 */
const deliveryJobsSql = (expirySeconds: string, from = 'task', options: Pick<Parameters<typeof insertJobsSql>[3] & object, 'claim' | 'returning'> = {}): string =>
  insertJobsSql('webhook-delivery', `jsonb_build_object('taskId', task.id)`, from, { expireIn: `${expirySeconds} * interval '1s'`, ...options });

/** A delivery outside any event (a hook test): the task and its job, in one statement. */
export async function createStandaloneTask(
  tx: Tx, deliverTimeoutSeconds: number, task: Omit<NewHookTask, 'eventId'>,
): Promise<HookTaskRow> {
  const [row] = await tx.query<HookTaskRow>(
    `WITH task AS (
       INSERT INTO hook_task (hook_id, event_id, repo_id, uuid, event_type, payload) VALUES ($1, NULL, $2, $3, $4, $5) RETURNING ${columns}),
     job AS (${deliveryJobsSql('$6')})
     SELECT * FROM task`,
    [task.hookId, task.repoId, randomUUID(), task.eventType, task.payload, deliveryExpirySeconds(deliverTimeoutSeconds)],
  );
  return row;
}

/** Gitea's ReplayHookTask: the same payload as a new task with a new delivery UUID, queued. */
export function redeliverHookTask(tx: Tx, deliverTimeoutSeconds: number, task: HookTaskRow): Promise<HookTaskRow> {
  return createStandaloneTask(tx, deliverTimeoutSeconds, { hookId: task.hook_id, repoId: task.repo_id, eventType: task.event_type, payload: task.payload });
}
