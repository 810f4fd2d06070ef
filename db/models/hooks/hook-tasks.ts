import { randomUUID } from 'node:crypto';
import { insertJobsSql } from '../../../jobs/queue.js';
import type { Queryable, Tx } from '../../data-source.js';
import { batched, batchedPerDb } from '../../batch.js';
import { notFound } from '../../errors.js';
import { selectPage, type PageWindow } from '../../sql.js';
import type { HookEventType } from './hook-events.js';
import { hookColumns, type WebhookRow } from './webhooks.js';

/** One delivery attempt as the delivery log shows it. */
export interface DeliveryAttempt {
  started: string;
  duration_ms: number;
  /** `body` is left out when it is the task's payload as rendered (most hooks): the payload is not stored twice. */
  request: { url: string; method: string; headers: Record<string, string>; body?: string };
  response: { status: number; headers: Record<string, string>; body: string } | null;
  /** A network error, a timeout or a refused address. */
  error: string | null;
  success: boolean;
  /** The redirects followed before the response: status and target of each. */
  redirects?: string[];
}

/** A row of `hook_task`: the payload for one hook, rendered once, and what became of its delivery. */
export interface HookTaskRow {
  id: number;
  hook_id: number;
  event_id: number | null;
  repo_id: number | null;
  uuid: string;
  event_type: HookEventType;
  payload: string;
  is_delivered: boolean;
  is_succeed: boolean;
  refused: string | null;
  attempts: DeliveryAttempt[];
  created: Date;
  delivered: Date | null;
}

const columns = `id::int, hook_id::int, event_id::int, repo_id::int, uuid::text, event_type, payload, is_delivered, is_succeed, refused,
  attempts, created, delivered`;

export interface NewHookTask {
  hookId: number;
  eventId: number | null;
  repoId: number | null;
  eventType: HookEventType;
  payload: string;
}

/**
 * Inserts the tasks and one `webhook-delivery` job per new task, in one statement (atomic without a transaction of
 * its own). A task that already exists for its event, hook and event type (a repeated fan-out) is kept as it is and
 * gets no second job. Hooks of one format share their payload: each distinct payload is sent once.
 */
export async function insertHookTasks(db: Queryable, deliverTimeoutSeconds: number, tasks: NewHookTask[]): Promise<void> {
  if (tasks.length === 0) return;
  const payloads = new Map<string, number>();
  for (const task of tasks) if (!payloads.has(task.payload)) payloads.set(task.payload, payloads.size + 1);
  await db.query(
    `WITH task AS (
       INSERT INTO hook_task (hook_id, event_id, repo_id, uuid, event_type, payload)
       SELECT t.hook_id, t.event_id, t.repo_id, t.uuid, t.event_type, p.payload
         FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::uuid[], $5::text[], $6::int[]) AS t(hook_id, event_id, repo_id, uuid, event_type, payload_no)
         JOIN unnest($7::text[]) WITH ORDINALITY AS p(payload, no) ON p.no = t.payload_no
       ON CONFLICT (event_id, hook_id, event_type) WHERE event_id IS NOT NULL DO NOTHING
       RETURNING id)
     ${deliveryJobsSql('$8')}`,
    [
      tasks.map((t) => t.hookId), tasks.map((t) => t.eventId), tasks.map((t) => t.repoId), tasks.map(() => randomUUID()),
      tasks.map((t) => t.eventType), tasks.map((t) => payloads.get(t.payload)), [...payloads.keys()], deliveryExpirySeconds(deliverTimeoutSeconds),
    ],
  );
}

/** insertHookTasks outside a transaction, for fan-outs made together (a worker's notify jobs under load): one statement. */
export const insertHookTasksTogether = batchedPerDb((db: Queryable) => batched(async (calls: Array<{ deliverTimeoutSeconds: number; tasks: NewHookTask[] }>) => {
  await insertHookTasks(db, Math.max(...calls.map((call) => call.deliverTimeoutSeconds)), calls.flatMap((call) => call.tasks));
  return calls.map(() => undefined);
}));

/** A task with the hook it goes to: what its delivery needs. */
export interface Delivery {
  task: HookTaskRow;
  hook: WebhookRow;
}

/**
 * A task and its hook, for its delivery; null when either is gone. The deliveries a worker starts together (a
 * fan-out's batch) load theirs in one query, the hook travelling as JSON beside its task.
 */
export const findDelivery: (db: Queryable, taskId: number) => Promise<Delivery | null> = batchedPerDb((db: Queryable) => batched(async (taskIds: number[]) => {
  type HookJson = Omit<WebhookRow, 'created' | 'updated'> & { created: string; updated: string };
  const rows = await db.query<HookTaskRow & { hook: HookJson | null }>(
    `SELECT ${columns}, (SELECT row_to_json(w) FROM (SELECT ${hookColumns} FROM webhook WHERE webhook.id = hook_task.hook_id) w) AS hook
       FROM hook_task WHERE id = ANY($1::bigint[])`,
    [taskIds],
  );
  const found = new Map<number, Delivery>();
  for (const { hook, ...task } of rows) {
    if (hook) found.set(task.id, { task, hook: { ...hook, created: new Date(hook.created), updated: new Date(hook.updated) } });
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

interface AttemptRecord {
  taskId: number;
  attempt: DeliveryAttempt;
  final: boolean;
  refused: string | null;
}

/**
 * Records one attempt; a final one (a success, an answer no retry changes, a refused address) marks the task delivered.
 * Attempts that end while the previous record is written go in one statement; the hook's last status is that of its
 * latest attempt, written only when it changes, so deliveries to one hook do not queue on its row.
 */
export function recordAttempt(
  db: Queryable, task: Pick<HookTaskRow, 'id' | 'payload'>, attempt: DeliveryAttempt, { final, refused = null }: { final: boolean; refused?: string | null },
): Promise<void> {
  const { body, ...request } = attempt.request;
  const stored = body === task.payload ? { ...attempt, request } : attempt;
  return recordAttempts(db, { taskId: task.id, attempt: stored, final, refused });
}

/** An attempt's request as it was sent: its body, when not stored, is the task's payload. */
export function sentRequest(task: Pick<HookTaskRow, 'payload'>, attempt: DeliveryAttempt): Required<DeliveryAttempt['request']> {
  return { ...attempt.request, body: attempt.request.body ?? task.payload };
}

const recordAttempts = batchedPerDb((db: Queryable) => batched(async (records: AttemptRecord[]) => {
  await db.query(
    `WITH input AS (
       SELECT (r->>'taskId')::bigint AS task_id, r->'attempt' AS attempt, (r->>'final')::boolean AS final, r->>'refused' AS refused, n
         FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS e(r, n)),
     task AS (
       UPDATE hook_task t SET attempts = t.attempts || jsonb_build_array(i.attempt), is_succeed = (i.attempt->>'success')::boolean,
         refused = i.refused, is_delivered = t.is_delivered OR i.final, delivered = CASE WHEN i.final THEN now() ELSE t.delivered END
       FROM input i WHERE t.id = i.task_id
       RETURNING t.hook_id, i.n, (i.attempt->>'success')::boolean AS success),
     latest AS (SELECT DISTINCT ON (hook_id) hook_id, CASE WHEN success THEN 1 ELSE 2 END AS status FROM task ORDER BY hook_id, n DESC)
     UPDATE webhook SET last_status = latest.status FROM latest WHERE webhook.id = latest.hook_id AND webhook.last_status <> latest.status`,
    [JSON.stringify(records)],
  );
  return records.map(() => undefined);
}, (record) => record.taskId));

/**
 * A delivery job expires (and goes to another worker) a little after its request would have timed out, so a worker
 * killed mid-delivery delays the task only that long.
 */
const deliveryExpirySeconds = (deliverTimeoutSeconds: number): number => deliverTimeoutSeconds * 2 + 10;

/** SQL inserting one `webhook-delivery` job per row of the WITH item `task`, expiring after `expirySeconds` (an SQL parameter). */
const deliveryJobsSql = (expirySeconds: string): string =>
  insertJobsSql('webhook-delivery', `jsonb_build_object('taskId', task.id)`, 'task', { expireIn: `${expirySeconds} * interval '1s'` });

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
