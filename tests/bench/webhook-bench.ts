import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { Agent, request } from 'undici';
import { root } from '../helpers/processes.js';
import { waitForQueuesDrained } from './queue-drain.js';

/**
 * Webhook delivery figures, beside a bare undici poster to the same receiver in the same run:
 * one event fanned out to 100 hooks (deliveries/s from the API's answer to the last delivery), and 1,000 events
 * to one hook at a steady 200 events/s (delay from each API answer to its arrival at the receiver, p50 and p99), after
 * three seconds of the same edits that are not measured.
 * Hearth's web process is given; this starts one worker process (all actors) beside it.
 */

export interface WebhookFigures {
  fanOutHooks: number;
  fanOutDeliveriesPerSecond: number;
  bareDeliveriesPerSecond: number;
  fanOutRatio: number;
  steadyEvents: number;
  /** Edits sent at the same rate just before, not measured. */
  steadyWarmUpEvents: number;
  /** API calls that did not answer 200 (their events are not counted). */
  steadyFailedCalls: number;
  steadyRatePerSecond: number;
  steadyDeliveriesPerSecond: number;
  delayP50Ms: number;
  delayP99Ms: number;
  /** From sending each release edit to its answer: when the web process falls behind, answers come after deliveries. */
  answerP50Ms: number;
  answerP99Ms: number;
}

export interface WebhookBenchOptions {
  apiUrl: string;
  token: string;
  owner: string;
  env: NodeJS.ProcessEnv;
  hooks?: number;
  events?: number;
  rate?: number;
  /** Edits sent at `rate` before the measured ones (default: three seconds' worth). */
  warmUp?: number;
}

interface Arrival {
  at: number;
  name: string;
}

function startReceiver(onArrival: (arrival: Arrival) => void): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    // the arrival is when the request's head is read, not when its body is done
    const at = performance.now();
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let name = '';
      try {
        name = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { release?: { name?: string } }).release?.name ?? '';
      } catch {
        name = '';
      }
      onArrival({ at, name });
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook` })));
}

function startWorker(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'workers/worker.ts'], {
    cwd: root,
    env: { ...env, HEARTH__webhook__ALLOWED_HOST_LIST: 'loopback', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('worker ready')) {
        child.stdout!.removeAllListeners('data');
        child.stdout!.resume();
        resolve(child);
      }
    });
    child.once('exit', (code) => reject(new Error(`the worker exited with ${code}`)));
  });
}

async function api(options: WebhookBenchOptions, method: string, path: string, body?: unknown): Promise<{ status: number; json: any; at: number }> {
  const answer = await request(`${options.apiUrl}/api/v1${path}`, {
    method: method as 'GET',
    headers: { authorization: `token ${options.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  // the answer is when its head arrives (undici resolves then): reading the body first dated it late, after
  // deliveries the same event loop had already seen, which made delays negative
  const at = performance.now();
  const text = await answer.body.text();
  return { status: answer.statusCode, json: text ? JSON.parse(text) : null, at };
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;

async function waitFor(check: () => boolean, timeoutMs: number, what: string | (() => string)): Promise<void> {
  if (typeof what === 'string') return waitFor(check, timeoutMs, () => what);
  for (const deadline = Date.now() + timeoutMs; !check(); ) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export async function measureWebhooks(options: WebhookBenchOptions): Promise<WebhookFigures> {
  const hooks = options.hooks ?? 100;
  const events = options.events ?? 1_000;
  const rate = options.rate ?? 200;
  const warmUp = options.warmUp ?? rate * 3;
  const arrivals: Arrival[] = [];
  const receiver = await startReceiver((arrival) => arrivals.push(arrival));
  const worker = await startWorker(options.env);
  try {
    await waitForQueuesDrained(options.env.DATABASE_URL!);
    for (const name of ['fanout', 'steady']) {
      const made = await api(options, 'POST', '/user/repos', { name, auto_init: true });
      if (made.status !== 201) throw new Error(`creating ${name}: ${made.status} ${JSON.stringify(made.json)}`);
    }
    for (let i = 0; i < hooks; i++) {
      const made = await api(options, 'POST', `/repos/${options.owner}/fanout/hooks`, { type: 'gitea', active: true, events: ['release'], config: { url: `${receiver.url}?${i}`, content_type: 'json' } });
      if (made.status !== 201) throw new Error(`creating hook ${i}: ${made.status} ${JSON.stringify(made.json)}`);
    }
    await api(options, 'POST', `/repos/${options.owner}/steady/hooks`, { type: 'gitea', active: true, events: ['release'], config: { url: receiver.url, content_type: 'json' } });

    // fan-out: one release event to every hook
    const release = await api(options, 'POST', `/repos/${options.owner}/fanout/releases`, { tag_name: 'v1', name: 'fan-out' });
    if (release.status !== 201) throw new Error(`release: ${release.status}`);
    await waitFor(() => arrivals.filter((a) => a.name === 'fan-out').length >= hooks, 120_000,
      () => `the fan-out deliveries (${arrivals.length} requests received so far)`);
    const fanOutLast = Math.max(...arrivals.filter((a) => a.name === 'fan-out').map((a) => a.at));
    const fanOutDeliveriesPerSecond = hooks / ((fanOutLast - release.at) / 1000);
    const fanOutPayload = JSON.stringify({ release: { name: 'bare' }, padding: 'x'.repeat(6_000) });

    // the bare poster: the same number of posts of a payload of the same size, 16 at a time, through one keep-alive agent
    const agent = new Agent({ keepAliveTimeout: 30_000, connections: 16 });
    const bareStart = performance.now();
    let next = 0;
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (next < hooks) {
        next++;
        const answer = await request(`${receiver.url}?bare`, { method: 'POST', body: fanOutPayload, headers: { 'content-type': 'application/json' }, dispatcher: agent });
        await answer.body.text();
      }
    }));
    const bareDeliveriesPerSecond = hooks / ((performance.now() - bareStart) / 1000);
    await agent.close();

    // steady: `events` release edits at `rate` per second, each its own event to one hook
    // edits go round-robin over several releases, so concurrent edits of one release stay rare
    const steadyReleases: number[] = [];
    for (let r = 0; r < 10; r++) {
      const made = await api(options, 'POST', `/repos/${options.owner}/steady/releases`, { tag_name: `v${r}`, name: `steady-0-${r}` });
      if (made.status !== 201) throw new Error(`steady release ${r}: ${made.status}`);
      steadyReleases.push(made.json.id);
    }
    await waitFor(() => arrivals.filter((a) => a.name.startsWith('steady-0-')).length >= steadyReleases.length, 60_000, 'the first steady deliveries');
    // `count` edits at `rate` per second named `${prefix}-${i}`, answered and delivered
    const sendEdits = async (prefix: string, count: number) => {
      let failedCalls = 0;
      const answered = new Map<string, number>();
      const answerTimes: number[] = [];
      const interval = 1000 / rate;
      const start = performance.now();
      const calls: Array<Promise<void>> = [];
      for (let i = 1; i <= count; i++) {
        const due = start + i * interval;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const name = `${prefix}-${i}`;
        const sent = performance.now();
        calls.push(api(options, 'PATCH', `/repos/${options.owner}/steady/releases/${steadyReleases[i % steadyReleases.length]}`, { name }).then((answer) => {
          answerTimes.push(answer.at - sent);
          if (answer.status === 200) answered.set(name, answer.at);
          else failedCalls++;
        }));
      }
      await Promise.all(calls);
      await waitFor(() => arrivals.filter((a) => answered.has(a.name)).length >= answered.size, 120_000, () => `the ${prefix} deliveries (${arrivals.filter((a) => answered.has(a.name)).length} of ${answered.size})`);
      return { failedCalls, answered, answerTimes, start };
    };
    // the first seconds of edits meet cold code and connections that plan their statements for the first time
    await sendEdits('warm-up', warmUp);
    const { failedCalls, answered, answerTimes, start } = await sendEdits('steady', events);
    const steady = arrivals.filter((a) => answered.has(a.name));
    const delays = steady.map((a) => a.at - answered.get(a.name)!).sort((a, b) => a - b);
    const lastArrival = Math.max(...steady.map((a) => a.at));
    answerTimes.sort((a, b) => a - b);
    return {
      fanOutHooks: hooks,
      fanOutDeliveriesPerSecond: Math.round(fanOutDeliveriesPerSecond),
      bareDeliveriesPerSecond: Math.round(bareDeliveriesPerSecond),
      fanOutRatio: Number((fanOutDeliveriesPerSecond / bareDeliveriesPerSecond).toFixed(2)),
      steadyEvents: events,
      steadyWarmUpEvents: warmUp,
      steadyFailedCalls: failedCalls,
      steadyRatePerSecond: rate,
      steadyDeliveriesPerSecond: Math.round(steady.length / ((lastArrival - start) / 1000)),
      delayP50Ms: Math.round(percentile(delays, 50)),
      delayP99Ms: Math.round(percentile(delays, 99)),
      answerP50Ms: Math.round(percentile(answerTimes, 50)),
      answerP99Ms: Math.round(percentile(answerTimes, 99)),
    };
  } finally {
    worker.kill('SIGTERM');
    receiver.server.closeAllConnections();
    receiver.server.close();
  }
}
