import { randomUUID } from 'node:crypto';
import { enqueueMany } from '../../../jobs/queue.js';
import type { Queryable, Tx } from '../../data-source.js';
import { notFound } from '../../errors.js';
import { selectPage, type PageWindow } from '../../sql.js';
import type { HookEventType } from './hook-events.js';

/** One delivery attempt as the delivery log shows it. */
export interface DeliveryAttempt {
  started: string;
  duration_ms: number;
  request: { url: string; method: string; headers: Record<string, string>; body: string };
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
 * Inserts the tasks in one statement; a task that already exists for its event, hook and event type (a repeated
 * fan-out) is kept as it is and not answered, so the caller enqueues deliveries only for new tasks.
 */
export async function insertHookTasks(tx: Tx, tasks: NewHookTask[]): Promise<number[]> {
  if (tasks.length === 0) return [];
  const rows = await tx.query<{ id: number }>(
    `INSERT INTO hook_task (hook_id, event_id, repo_id, uuid, event_type, payload)
     SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::uuid[], $5::text[], $6::text[])
     ON CONFLICT (event_id, hook_id, event_type) WHERE event_id IS NOT NULL DO NOTHING
     RETURNING id::int`,
    [
      tasks.map((t) => t.hookId), tasks.map((t) => t.eventId), tasks.map((t) => t.repoId),
      tasks.map(() => randomUUID()), tasks.map((t) => t.eventType), tasks.map((t) => t.payload),
    ],
  );
  return rows.map((r) => r.id);
}

export async function findHookTask(db: Queryable, id: number): Promise<HookTaskRow | null> {
  const [row] = await db.query<HookTaskRow>(`SELECT ${columns} FROM hook_task WHERE id = $1`, [id]);
  return row ?? null;
}

/** A hook's deliveries, newest first. */
export async function listHookTasks(db: Queryable, hookId: number, page: PageWindow): Promise<{ rows: HookTaskRow[]; total: number }> {
  return selectPage<HookTaskRow>(db, { select: columns, from: 'hook_task WHERE hook_id = $1', params: [hookId], orderBy: 'id DESC', page });
}

export async function getHookTask(db: Queryable, hookId: number, id: number): Promise<HookTaskRow> {
  const [row] = await db.query<HookTaskRow>(`SELECT ${columns} FROM hook_task WHERE hook_id = $1 AND id = $2`, [hookId, id]);
  if (!row) throw notFound('hook task');
  return row;
}

/** Records one attempt; a final one (a success, an answer no retry changes, a refused address) marks the task delivered. */
export async function recordAttempt(
  db: Queryable, taskId: number, attempt: DeliveryAttempt, { final, refused = null }: { final: boolean; refused?: string | null },
): Promise<void> {
  await db.query(
    `WITH task AS (
       UPDATE hook_task SET attempts = attempts || $2::jsonb, is_succeed = $3, refused = $4,
         is_delivered = is_delivered OR $5, delivered = CASE WHEN $5 THEN now() ELSE delivered END
       WHERE id = $1 RETURNING hook_id)
     UPDATE webhook SET last_status = $6 FROM task WHERE webhook.id = task.hook_id`,
    [taskId, JSON.stringify([attempt]), attempt.success, refused, final, attempt.success ? 1 : 2],
  );
}

/**
 * One `webhook-delivery` job per task, inserted in one statement. A job expires (and goes to another worker) a
 * little after its request would have timed out, so a worker killed mid-delivery delays the task only that long.
 */
export async function queueDeliveries(tx: Tx, deliverTimeoutSeconds: number, taskIds: number[]): Promise<void> {
  await enqueueMany(tx, 'webhook-delivery', taskIds.map((taskId) => ({ taskId })), { expireInSeconds: deliverTimeoutSeconds * 2 + 10 });
}

/** A delivery outside any event (a hook test): the task and its job. */
export async function createStandaloneTask(
  tx: Tx, deliverTimeoutSeconds: number, task: Omit<NewHookTask, 'eventId'>,
): Promise<HookTaskRow> {
  const [row] = await tx.query<HookTaskRow>(
    `INSERT INTO hook_task (hook_id, event_id, repo_id, uuid, event_type, payload) VALUES ($1, NULL, $2, $3, $4, $5) RETURNING ${columns}`,
    [task.hookId, task.repoId, randomUUID(), task.eventType, task.payload],
  );
  await queueDeliveries(tx, deliverTimeoutSeconds, [row.id]);
  return row;
}

/** Gitea's ReplayHookTask: the same payload as a new task with a new delivery UUID, queued. */
export function redeliverHookTask(tx: Tx, deliverTimeoutSeconds: number, task: HookTaskRow): Promise<HookTaskRow> {
  return createStandaloneTask(tx, deliverTimeoutSeconds, { hookId: task.hook_id, repoId: task.repo_id, eventType: task.event_type, payload: task.payload });
}
