import { createHash, createHmac } from 'node:crypto';
import { request, type Dispatcher } from 'undici';
import { eventHeader } from '../db/models/hooks/hook-events.js';
import { findDelivery, recordAttempt, type Delivery, type DeliveryAttempt, type HookTaskRow } from '../db/models/hooks/hook-tasks.js';
import { hookAuthorization, hookSecret, type WebhookRow } from '../db/models/hooks/webhooks.js';
import type { Actor, ActorDeps, Outcome, RunningJob } from './actor.js';
import { deliveryDispatchers, RefusedAddressError, type DeliveryDispatchers } from './webhook/agent.js';

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
  if (hook.type === 'matrix') return { method: 'PUT', url: `${hook.url}/${matrixTxnId(body)}`, headers, body };
  return { method: hook.type === 'gitea' || hook.type === 'gogs' ? hook.http_method || 'POST' : 'POST', url: hook.url, headers, body };
}

/** Gitea's matrixPayloadSizeLimit. */
const matrixPayloadLimit = 64 * 1024;

/** Gitea's getMatrixTxnID: the body's SHA-1, so a repeated delivery is the same Matrix transaction. */
function matrixTxnId(body: string): string {
  const size = Buffer.byteLength(body);
  if (size >= matrixPayloadLimit) throw new UndeliverableError(`getMatrixTxnID: payload size ${size} > ${matrixPayloadLimit}`);
  return createHash('sha1').update(body).digest('hex');
}

/** A delivery that cannot succeed however often it is tried (a Matrix body too large, a redirect loop): recorded, not retried. */
class UndeliverableError extends Error {}

type DeliveryRequest = ReturnType<typeof buildDeliveryRequest>;

/** Go's http.Client: at most 10 redirects. */
const maxRedirects = 10;
const redirectStatuses = new Set([301, 302, 303, 307, 308]);
/** Headers Go's client drops when a redirect leaves the original host (and its subdomains). */
const sensitiveHeaders = ['authorization', 'www-authenticate', 'cookie', 'cookie2'];

const sameOrSubdomain = (initial: string, target: string): boolean => target === initial || target.endsWith(`.${initial}`);

/**
 * Sends the request and follows redirects as Gitea's webhook client (Go's http.Client) does: up to 10; 301, 302 and
 * 303 turn the request into a bodiless GET, 307 and 308 repeat it; the Authorization header is dropped when a
 * redirect leaves the original host. Every hop connects through the same dispatcher, so its target is checked
 * against [webhook] ALLOWED_HOST_LIST after DNS resolution like the first request.
 */
async function send(req: DeliveryRequest, dispatchers: DeliveryDispatchers, signal: AbortSignal):
Promise<{ response: Dispatcher.ResponseData; text: string; redirects: string[] }> {
  let { method, url } = req;
  let body: string | undefined = req.body;
  const headers: Record<string, string> = { ...req.headers };
  const initialHost = new URL(url).hostname;
  const redirects: string[] = [];
  for (let hop = 0; ; hop++) {
    const target = new URL(url);
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      throw new UndeliverableError(`${method} "${url}": unsupported protocol scheme "${target.protocol.slice(0, -1)}"`);
    }
    const response = await request(url, { method: method as Dispatcher.HttpMethod, headers, body, dispatcher: dispatchers.forHost(target.hostname), signal });
    const location = response.headers.location;
    if (!redirectStatuses.has(response.statusCode) || typeof location !== 'string' || location === '') {
      return { response, text: await response.body.text(), redirects };
    }
    await response.body.dump();
    if (hop >= maxRedirects) throw new UndeliverableError(`${method} "${url}": stopped after ${maxRedirects} redirects`);
    const next = new URL(location, url);
    if (response.statusCode <= 303) {
      if (method !== 'GET' && method !== 'HEAD') method = 'GET';
      body = undefined;
      delete headers['content-type'];
    }
    if (!sameOrSubdomain(initialHost, next.hostname)) for (const name of sensitiveHeaders) delete headers[name];
    redirects.push(`${response.statusCode} ${next.href}`);
    url = next.href;
  }
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
export async function deliver(
  { task, hook }: Delivery, { db, config, log }: Pick<ActorDeps, 'db' | 'config' | 'log'>, job?: RunningJob,
): Promise<Outcome | 'completed'> {
  if (task.is_delivered) return 'skipped';
  // a final attempt's record completes the job in the same statement
  const settled = async (outcome: Outcome, attempt: DeliveryAttempt, refused: string | null = null): Promise<Outcome | 'completed'> => {
    await recordAttempt(db, task, attempt, { final: true, refused, completes: job ? { jobId: job.id, outcome } : null });
    return job ? 'completed' : outcome;
  };
  const started = new Date();
  let req: DeliveryRequest;
  try {
    req = buildDeliveryRequest(hook, task, hookSecret(config.security.secretKey, hook), hookAuthorization(config.security.secretKey, hook));
  } catch (thrown) {
    if (!(thrown instanceof UndeliverableError)) throw thrown;
    const attempt: DeliveryAttempt = {
      started: started.toISOString(), duration_ms: 0, request: { url: hook.url, method: 'PUT', headers: {}, body: task.payload },
      response: null, error: `Delivery: ${thrown.message}`, success: false,
    };
    return settled('skipped', attempt);
  }
  const attempt: DeliveryAttempt = {
    started: started.toISOString(),
    duration_ms: 0,
    request: { url: req.url, method: req.method, headers: loggedHeaders(req.headers), body: req.body },
    response: null,
    error: null,
    success: false,
  };
  try {
    const { response, text, redirects } = await send(req, deliveryDispatchers(config), AbortSignal.timeout(config.webhook.deliverTimeoutSeconds * 1000));
    attempt.duration_ms = Date.now() - started.getTime();
    attempt.response = {
      status: response.statusCode,
      headers: Object.fromEntries(Object.entries(response.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : String(v ?? '')])),
      body: text.slice(0, responseExcerpt),
    };
    if (redirects.length) attempt.redirects = redirects;
    attempt.success = response.statusCode >= 200 && response.statusCode < 300;
    if (response.statusCode < 500) return await settled(attempt.success ? 'done' : 'skipped', attempt);
    await recordAttempt(db, task, attempt, { final: false });
    throw new DeliveryFailed(`receiver answered ${response.statusCode}`);
  } catch (thrown) {
    if (thrown instanceof DeliveryFailed) throw thrown;
    const error = thrown instanceof Error ? thrown : new Error(String(thrown));
    const refused = refusal(error);
    attempt.duration_ms = Date.now() - started.getTime();
    attempt.error = `Delivery: ${error.message}`;
    if (refused) log.warn({ task: task.id, hook: hook.id }, refused);
    if (refused !== null || error instanceof UndeliverableError) return await settled('skipped', attempt, refused);
    await recordAttempt(db, task, attempt, { final: false });
    throw error;
  }
}

/** The delivery of one hook task by its job (see deliver). */
export const webhookDelivery: Actor<'webhook-delivery'> = {
  name: 'webhook-delivery',
  job: 'webhook-delivery',
  async handle({ taskId }, deps, job) {
    const found = await findDelivery(deps.db, taskId);
    return found ? deliver(found, deps, job) : 'skipped';
  },
};

function refusal(error: Error): string | null {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof RefusedAddressError) return cause.message;
  }
  return null;
}
