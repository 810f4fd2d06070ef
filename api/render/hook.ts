import { eventHeader, eventsOf } from '../../db/models/hooks/hook-events.js';
import { sentRequest, type HookTaskRow } from '../../db/models/hooks/hook-task-row.js';
import type { WebhookRow } from '../../db/models/hooks/webhooks.js';
import { iso } from './time.js';

/** Hook (Gitea's ToHook); the secret and the authorization header are never shown. */
export interface ApiHook {
  id: number;
  type: string;
  branch_filter: string;
  config: Record<string, string>;
  events: string[];
  authorization_header: string;
  active: boolean;
  updated_at: string;
  created_at: string;
}

export function renderHook(hook: WebhookRow): ApiHook {
  const config: Record<string, string> = { url: hook.url, content_type: hook.content_type };
  if (hook.type === 'slack') Object.assign(config, hook.meta);
  return {
    id: hook.id,
    type: hook.type,
    branch_filter: hook.branch_filter,
    config,
    events: eventsOf(hook),
    authorization_header: '',
    active: hook.is_active,
    updated_at: iso(hook.updated),
    created_at: iso(hook.created),
  };
}

/** One delivery of a hook (Hearth's own shape): the task and its latest attempt. */
export interface ApiHookDelivery {
  id: number;
  uuid: string;
  event: string;
  event_type: string;
  delivered: boolean;
  succeeded: boolean;
  refused: string | null;
  attempts: number;
  created_at: string;
  delivered_at: string | null;
  duration_ms: number | null;
  request: { url: string; method: string; headers: Record<string, string>; body: string } | null;
  response: { status: number; headers: Record<string, string>; body: string } | null;
  error: string | null;
}

export function renderHookDelivery(task: HookTaskRow): ApiHookDelivery {
  const last = task.attempts.at(-1);
  return {
    id: task.id,
    uuid: task.uuid,
    event: eventHeader(task.event_type),
    event_type: task.event_type,
    delivered: task.is_delivered,
    succeeded: task.is_succeed,
    refused: task.refused,
    attempts: task.attempts.length,
    created_at: iso(task.created),
    delivered_at: task.delivered ? iso(task.delivered) : null,
    duration_ms: last?.duration_ms ?? null,
    request: last ? sentRequest(task, last) : null,
    response: last?.response ?? null,
    error: last?.error ?? null,
  };
}
