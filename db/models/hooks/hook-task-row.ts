import type { HookEventType } from './hook-events.js';

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

/** An attempt's request as it was sent: its body, when not stored, is the task's payload. */
export function sentRequest(task: Pick<HookTaskRow, 'payload'>, attempt: DeliveryAttempt): Required<DeliveryAttempt['request']> {
  return { ...attempt.request, body: attempt.request.body ?? task.payload };
}
