import { createHmac } from 'node:crypto';
import { request } from 'undici';
import { eventHeader } from '../db/models/hooks/hook-events.js';
import { findHookTask, recordAttempt, type DeliveryAttempt, type HookTaskRow } from '../db/models/hooks/hook-tasks.js';
import { findHookById, hookAuthorization, hookSecret, type WebhookRow } from '../db/models/hooks/webhooks.js';
import type { Actor } from './actor.js';
import { deliveryDispatchers, RefusedAddressError } from './webhook/agent.js';

/** How much of a receiver's answer the delivery log keeps. */
const responseExcerpt = 8 * 1024;

/** The request Gitea's deliver builds for a task: body by content type, its event and delivery headers and signatures. */
export function buildDeliveryRequest(hook: WebhookRow, task: HookTaskRow, secret: string, authorization: string) {
  const form = hook.type === 'gitea' || hook.type === 'gogs' ? hook.content_type === 'form' : false;
  const body = form ? new URLSearchParams({ payload: task.payload }).toString() : task.payload;
  const sign = (algorithm: 'sha1' | 'sha256'): string => (secret ? createHmac(algorithm, secret).update(body).digest('hex') : '');
  const sha256 = sign('sha256');
  const event = eventHeader(task.event_type);
  const headers: Record<string, string> = {
    'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json',
    'user-agent': 'Hearth-Webhook',
    'x-gitea-delivery': task.uuid,
    'x-gitea-event': event,
    'x-gitea-event-type': task.event_type,
    'x-gitea-signature': sha256,
    'x-gogs-delivery': task.uuid,
    'x-gogs-event': event,
    'x-gogs-event-type': task.event_type,
    'x-gogs-signature': sha256,
    'x-hub-signature': `sha1=${sign('sha1')}`,
    'x-hub-signature-256': `sha256=${sha256}`,
    'x-github-delivery': task.uuid,
    'x-github-event': event,
    'x-github-event-type': task.event_type,
  };
  if (authorization) headers.authorization = authorization;
  return { method: hook.http_method || 'POST', url: hook.url, headers, body };
}

/** What the delivery log shows of a request: the Authorization header stays out. */
function loggedHeaders(headers: Record<string, string>): Record<string, string> {
  const { authorization, ...rest } = headers;
  return authorization ? { ...rest, authorization: '******' } : rest;
}

/** A delivery that did not reach a 2xx; 5xx and network errors are retried, other answers are final. */
class DeliveryFailed extends Error {}

/**
 * Posts one hook task through the shared keep-alive agent, records the attempt on the task, and asks for a retry
 * (by throwing) on network errors and 5xx answers. A task already delivered is not sent again; a refused
 * address is recorded with its reason and not retried.
 */
export const webhookDelivery: Actor<'webhook-delivery'> = {
  name: 'webhook-delivery',
  job: 'webhook-delivery',
  async handle({ taskId }, { db, config, log }) {
    const task = await findHookTask(db, taskId);
    if (!task || task.is_delivered) return 'skipped';
    const hook = await findHookById(db, task.hook_id);
    if (!hook) return 'skipped';
    const req = buildDeliveryRequest(hook, task, hookSecret(config.security.secretKey, hook), hookAuthorization(config.security.secretKey, hook));
    const started = new Date();
    const attempt: DeliveryAttempt = {
      started: started.toISOString(),
      duration_ms: 0,
      request: { url: req.url, method: req.method, headers: loggedHeaders(req.headers), body: req.body },
      response: null,
      error: null,
      success: false,
    };
    const dispatcher = deliveryDispatchers(config).forHost(new URL(req.url).hostname);
    try {
      const response = await request(req.url, {
        method: req.method as 'POST',
        headers: req.headers,
        body: req.body,
        dispatcher,
        signal: AbortSignal.timeout(config.webhook.deliverTimeoutSeconds * 1000),
      });
      const text = await response.body.text();
      attempt.duration_ms = Date.now() - started.getTime();
      attempt.response = {
        status: response.statusCode,
        headers: Object.fromEntries(Object.entries(response.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : String(v ?? '')])),
        body: text.slice(0, responseExcerpt),
      };
      attempt.success = response.statusCode >= 200 && response.statusCode < 300;
      await recordAttempt(db, task.id, attempt, { final: attempt.success || response.statusCode < 500 });
      if (response.statusCode >= 500) throw new DeliveryFailed(`receiver answered ${response.statusCode}`);
      return attempt.success ? 'done' : 'skipped';
    } catch (thrown) {
      if (thrown instanceof DeliveryFailed) throw thrown;
      const error = thrown instanceof Error ? thrown : new Error(String(thrown));
      const refused = refusal(error);
      attempt.duration_ms = Date.now() - started.getTime();
      attempt.error = `Delivery: ${error.message}`;
      await recordAttempt(db, task.id, attempt, { final: refused !== null, refused });
      if (refused) {
        log.warn({ task: task.id, hook: hook.id }, refused);
        return 'skipped';
      }
      throw error;
    }
  },
};

function refusal(error: Error): string | null {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof RefusedAddressError) return cause.message;
  }
  return null;
}
