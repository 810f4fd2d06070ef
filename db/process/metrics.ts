import { timingSafeEqual } from 'node:crypto';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/**
 * The figures a process counts itself, for Prometheus (`GET /metrics` on the web process, `[metrics] WORKER_PORT` on a
 * worker): requests, git transfers, job runs and webhook deliveries this process handled, and Node's own process
 * figures. They live in this process's one registry, as Prometheus counters do; what the database knows (queues,
 * deliveries, mirrors, Gitea's object counts) is read at each scrape instead (db/views/metrics-figures.ts), so one
 * scrape of any web process tells the whole instance. This module is a leaf: the HTTP router, git over HTTP and SSH,
 * and the worker's job runner all record through the functions below.
 */
export const processRegistry = new Registry();

let defaultsStarted = false;

/** Starts Node's process figures (CPU, memory, event loop lag, handles) once, when a process serves metrics. */
export function startProcessMetrics(): void {
  if (defaultsStarted) return;
  defaultsStarted = true;
  collectDefaultMetrics({ register: processRegistry });
}

const secondsBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

const httpRequests = new Counter({
  name: 'hearth_http_requests_total',
  help: 'HTTP requests by method, route pattern (the declared path, never the requested URL) and status',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [processRegistry],
});
const httpRequestSeconds = new Histogram({
  name: 'hearth_http_request_duration_seconds',
  help: 'Duration of HTTP requests by method, route pattern and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: secondsBuckets,
  registers: [processRegistry],
});

/** One answered HTTP request; `route` is the pattern that answered it, never the URL sent. */
export function recordHttpRequest(method: string, route: string, status: number, seconds: number): void {
  const labels = { method, route, status: String(status) };
  httpRequests.inc(labels);
  httpRequestSeconds.observe(labels, seconds);
}

export type GitService = 'upload-pack' | 'receive-pack' | 'upload-archive';
export type GitProtocol = 'http' | 'ssh';

const gitTransfers = new Counter({
  name: 'hearth_git_transfers_total',
  help: 'Git exchanges by service and protocol: an SSH session, or a POST over HTTP (a protocol v2 fetch is two: ls-refs, then fetch)',
  labelNames: ['service', 'protocol'] as const,
  registers: [processRegistry],
});
const gitTransferBytes = new Counter({
  name: 'hearth_git_transfer_bytes_total',
  help: 'Bytes of git transfers, both directions, by service and protocol',
  labelNames: ['service', 'protocol'] as const,
  registers: [processRegistry],
});
const gitTransferSeconds = new Histogram({
  name: 'hearth_git_transfer_duration_seconds',
  help: 'Duration of git transfers by service and protocol',
  labelNames: ['service', 'protocol'] as const,
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
  registers: [processRegistry],
});

/** One finished git transfer, over HTTP or SSH: the one place both protocols report to. */
export function recordGitTransfer(transfer: { service: GitService; protocol: GitProtocol; bytes: number; ms: number }): void {
  const labels = { service: transfer.service, protocol: transfer.protocol };
  gitTransfers.inc(labels);
  gitTransferBytes.inc(labels, transfer.bytes);
  gitTransferSeconds.observe(labels, transfer.ms / 1000);
}

const jobRuns = new Counter({
  name: 'hearth_job_runs_total',
  help: "Jobs this worker process ran, by job name and outcome (the actor's answer, completed, or failed)",
  labelNames: ['job', 'outcome'] as const,
  registers: [processRegistry],
});
const jobRunSeconds = new Histogram({
  name: 'hearth_job_run_duration_seconds',
  help: 'Run time of the jobs this worker process ran, by job name and outcome',
  labelNames: ['job', 'outcome'] as const,
  buckets: secondsBuckets,
  registers: [processRegistry],
});

/** One job run by this worker process. */
export function recordJobRun(job: string, outcome: string, seconds: number): void {
  jobRuns.inc({ job, outcome });
  jobRunSeconds.observe({ job, outcome }, seconds);
}

/** Whether an Authorization header carries `[metrics] TOKEN` as a bearer token (always, when no token is set). */
export function metricsCallerAllowed(authorization: string | undefined, token: string | undefined): boolean {
  if (!token) return true;
  const expected = Buffer.from(`Bearer ${token}`);
  const given = Buffer.from(authorization ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
