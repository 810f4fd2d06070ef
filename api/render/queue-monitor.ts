import type { MirrorStatus } from '../../db/models/instance/mirror-monitor.js';
import type { QueueFigures, QueueJob } from '../../db/models/instance/queue-monitor.js';
import { sanitizeAddress } from '../../db/net/sanitize-address.js';
import { iso } from './time.js';

/** A queue's figures as GET /admin/queues answers them (Hearth's own shape). */
export interface ApiQueue {
  name: string;
  counts: { created: number; retry: number; active: number };
  last_hour: { completed: number; failed: number; cancelled: number; mean_run_seconds: number | null; p99_run_seconds: number | null };
  oldest_waiting_seconds: number | null;
  workers: ApiQueueWorker[];
}

export interface ApiQueueWorker {
  host: string;
  pid: number;
  worker_id: number;
  actors: string[];
  concurrency: number;
  started_at: string;
  last_heartbeat: string;
}

export function renderQueue(figures: QueueFigures, now: Date): ApiQueue {
  return {
    name: figures.name,
    counts: { created: figures.created, retry: figures.retry, active: figures.active },
    last_hour: {
      completed: figures.completedLastHour, failed: figures.failedLastHour, cancelled: figures.cancelledLastHour,
      mean_run_seconds: figures.meanRunSeconds, p99_run_seconds: figures.p99RunSeconds,
    },
    oldest_waiting_seconds: figures.oldestWaitingSince ? Math.max(0, (now.getTime() - figures.oldestWaitingSince.getTime()) / 1000) : null,
    workers: figures.workers.map((worker) => ({
      host: worker.host, pid: worker.pid, worker_id: worker.id, actors: worker.actors, concurrency: worker.concurrency,
      started_at: iso(new Date(worker.started)), last_heartbeat: iso(new Date(worker.heartbeat)),
    })),
  };
}

/** Keys whose values are credentials (mirror passwords, tokens, secrets, authorization headers) or may carry them (a mail's body). */
const secretKey = /pass|token|secret|authori[sz]ation|credential|cookie|private|^key$|^(text|html)$/i;

/** A payload with every credential removed, at any depth. */
export function withoutCredentials(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutCredentials);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => !secretKey.test(key)).map(([key, item]) => [key, withoutCredentials(item)]));
}

/** A pg-boss failure's output is the error it recorded (`{ message, stack }` or the value thrown). */
function lastError(job: QueueJob): string | null {
  if (job.state !== 'failed' && job.state !== 'retry') return null;
  const output = job.output as { message?: unknown } | string | null;
  if (output === null || output === undefined) return null;
  if (typeof output === 'string') return output;
  return typeof output.message === 'string' ? output.message : JSON.stringify(output);
}

export interface ApiQueueJob {
  id: string;
  state: string;
  attempts: number;
  retry_limit: number;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  last_error: string | null;
  payload: unknown;
}

export function renderQueueJob(job: QueueJob): ApiQueueJob {
  return {
    id: job.id, state: job.state, attempts: job.retryCount + (job.startedOn ? 1 : 0), retry_limit: job.retryLimit,
    created_at: iso(job.createdOn), started_at: job.startedOn ? iso(job.startedOn) : null, completed_at: job.completedOn ? iso(job.completedOn) : null,
    last_error: lastError(job), payload: withoutCredentials(job.data),
  };
}

export interface ApiMirrorStatus {
  kind: 'pull' | 'push';
  push_mirror_id: number | null;
  repository: string;
  remote_address: string;
  interval_seconds: number;
  last_sync: string | null;
  last_attempt: string | null;
  last_sync_duration_seconds: number | null;
  last_outcome: 'succeeded' | 'failed' | null;
  failed_syncs: number;
  last_error: string;
  next_due: string | null;
  running: boolean;
  queued: boolean;
  overdue: boolean;
  failing: boolean;
}

/** The remote address is shown without any user or password in it. */
export function renderMirrorStatus(row: MirrorStatus): ApiMirrorStatus {
  return {
    kind: row.kind, push_mirror_id: row.pushMirrorId, repository: `${row.owner}/${row.repo}`, remote_address: sanitizeAddress(row.remoteAddress),
    interval_seconds: row.intervalSeconds, last_sync: row.lastSync ? iso(row.lastSync) : null,
    last_attempt: row.lastAttempt ? iso(row.lastAttempt) : null, last_sync_duration_seconds: row.lastSyncSeconds,
    last_outcome: row.lastError !== '' ? 'failed' : row.lastSync ? 'succeeded' : null,
    failed_syncs: row.failedSyncs, last_error: row.lastError,
    next_due: row.nextDue ? iso(row.nextDue) : null, running: row.running, queued: row.queued, overdue: row.overdue, failing: row.lastError !== '',
  };
}
