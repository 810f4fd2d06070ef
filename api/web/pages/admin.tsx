import { notFound } from '../../../db/errors.js';
import { listMirrorStatus } from '../../../db/models/instance/mirror-monitor.js';
import {
  newestFailedJobs, queueFigures, queueMinutes, queueNamed, retryJob, type QueueMinute,
} from '../../../db/models/instance/queue-monitor.js';
import { scopeAllows } from '../../../db/scopes.js';
import { basicCaller } from '../../auth/authenticate.js';
import type { Caller } from '../../auth/caller.js';
import {
  renderMirrorStatus, renderQueue, renderQueueJob, type ApiMirrorStatus, type ApiQueue, type ApiQueueJob,
} from '../../render/queue-monitor.js';
import { page, type PageContext } from '../page.js';
import { useHref, useSite } from './site.js';

// The operator pages of docs/operations-monitor.md: what GET /api/v1/admin/queues and /admin/mirrors answer, for people.

/** How many failed jobs of each queue the page lists. */
const failedShown = 10;

/**
 * A site administrator, by the web session or by HTTP basic authentication (as the API checks it; a token standing
 * in the password must carry the admin scope); anyone else sees the 404 page.
 */
async function administrator({ deps, req, caller }: PageContext, scope: 'read:admin' | 'write:admin'): Promise<Caller> {
  const who = caller.user ? caller : await basicCaller(deps, req);
  if (!who?.user?.is_admin || !scopeAllows(who.scope, scope)) throw notFound('page');
  return who;
}

async function overview(ctx: PageContext) {
  await administrator(ctx, 'read:admin');
  return { title: 'Site administration', body: <Overview /> };
}

function Overview() {
  const href = useHref();
  return (
    <>
      <h1>Site administration</h1>
      <ul class="admin-links">
        <li><a href={href('-', 'admin', 'queues')}>Queues</a>: every job queue, its workers, its last hour of work and its failed jobs</li>
        <li><a href={href('-', 'admin', 'mirrors')}>Mirrors</a>: every pull and push mirror, with the late and failing ones marked</li>
      </ul>
    </>
  );
}

async function queues(ctx: PageContext) {
  await administrator(ctx, 'read:admin');
  const { db } = ctx.deps;
  const now = new Date();
  const [figures, minutes, failed] = await Promise.all([queueFigures(db), queueMinutes(db), newestFailedJobs(db, failedShown)]);
  const rows = figures.map((queue) => ({
    queue: renderQueue(queue, now),
    minutes: minutes.filter((minute) => minute.name === queue.name),
    failed: failed.filter((job) => job.name === queue.name).map(renderQueueJob),
  }));
  return { title: 'Queues', body: <Queues rows={rows} /> };
}

type QueueRow = { queue: ApiQueue; minutes: QueueMinute[]; failed: ApiQueueJob[] };

const seconds = (value: number | null): string =>
  value === null ? '–' : value < 1 ? `${Math.round(value * 1000)} ms` : value < 120 ? `${value.toFixed(1)} s` : `${Math.round(value / 60)} min`;

function Queues({ rows }: { rows: QueueRow[] }) {
  const href = useHref();
  return (
    <>
      <p class="breadcrumb"><a href={href('-', 'admin')}>Site administration</a></p>
      <h1>Queues</h1>
      <p class="muted">Live counts, and the jobs that ended in the last hour. The page refreshes itself every few seconds.</p>
      <div id="admin-queues" data-refresh="3">
        <table class="admin queues">
          <thead>
            <tr>
              <th>queue</th><th>waiting</th><th>retry</th><th>running</th><th>oldest waiting</th>
              <th>completed (1 h)</th><th>failed (1 h)</th><th>cancelled (1 h)</th><th>mean run</th><th>p99 run</th>
              <th>workers</th><th>last hour</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(({ queue, minutes }) => (
              <tr id={`queue-${queue.name}`} data-queue={queue.name} class={queue.last_hour.failed > 0 ? 'failing' : undefined}>
                <th scope="row"><a href={`#failed-${queue.name}`}>{queue.name}</a></th>
                <td data-figure="created">{queue.counts.created}</td>
                <td data-figure="retry">{queue.counts.retry}</td>
                <td data-figure="active">{queue.counts.active}</td>
                <td data-figure="oldest_waiting">{seconds(queue.oldest_waiting_seconds)}</td>
                <td data-figure="completed">{queue.last_hour.completed}</td>
                <td data-figure="failed">{queue.last_hour.failed}</td>
                <td data-figure="cancelled">{queue.last_hour.cancelled}</td>
                <td data-figure="mean_run">{seconds(queue.last_hour.mean_run_seconds)}</td>
                <td data-figure="p99_run">{seconds(queue.last_hour.p99_run_seconds)}</td>
                <td data-figure="workers">
                  {queue.workers.length === 0 ? '0' : queue.workers.map((worker) => (
                    <span class="worker" title={`since ${worker.started_at}, last heartbeat ${worker.last_heartbeat}`}>
                      {worker.host}:{worker.pid} ×{worker.concurrency}
                    </span>
                  ))}
                </td>
                <td><Throughput minutes={minutes} /></td>
              </tr>
            ))}
          </tbody>
        </table>
        <h2>Failed jobs</h2>
        {rows.every((row) => row.failed.length === 0) ? <p class="muted">No failed jobs.</p> : null}
        {rows.filter((row) => row.failed.length > 0).map(({ queue, failed }) => (
          <section id={`failed-${queue.name}`} class="failed-jobs">
            <h3>{queue.name}</h3>
            <table class="admin jobs">
              <thead><tr><th>job</th><th>created</th><th>ended</th><th>attempts</th><th>error</th><th>payload</th><th></th></tr></thead>
              <tbody>
                {failed.map((job) => <FailedJob queue={queue.name} job={job} />)}
              </tbody>
            </table>
          </section>
        ))}
      </div>
    </>
  );
}

function FailedJob({ queue, job }: { queue: string; job: ApiQueueJob }) {
  const href = useHref();
  return (
    <tr data-job={job.id}>
      <td><code>{job.id}</code></td>
      <td><time datetime={job.created_at}>{job.created_at}</time></td>
      <td>{job.completed_at ? <time datetime={job.completed_at}>{job.completed_at}</time> : '–'}</td>
      <td>{job.attempts} of {job.retry_limit + 1}</td>
      <td class="error">{job.last_error ?? ''}</td>
      <td><code class="payload">{JSON.stringify(job.payload)}</code></td>
      <td>
        <RetryForm action={href('-', 'admin', 'queues', queue, 'jobs', job.id, 'retry')} />
      </td>
    </tr>
  );
}

function RetryForm({ action }: { action: string }) {
  return (
    <form method="post" action={action} class="retry">
      <CsrfField />
      <button type="submit">Retry</button>
    </form>
  );
}

function CsrfField() {
  return <input type="hidden" name="_csrf" value={useSite().csrf} />;
}

const chartWidth = 180;
const chartHeight = 36;
const barWidth = chartWidth / 60;

/** The last hour by minute, oldest on the left: completed jobs in one colour, failed ones stacked above in another. */
function Throughput({ minutes }: { minutes: QueueMinute[] }) {
  const peak = Math.max(1, ...minutes.map((minute) => minute.completed + minute.failed));
  const scale = (count: number): number => (count / peak) * (chartHeight - 2);
  const completed = minutes.reduce((sum, minute) => sum + minute.completed, 0);
  const failed = minutes.reduce((sum, minute) => sum + minute.failed, 0);
  return (
    <svg class="throughput" width={chartWidth} height={chartHeight} viewBox={`0 0 ${chartWidth} ${chartHeight}`} role="img"
      aria-label={`last hour: ${completed} completed, ${failed} failed; busiest minute ${peak === 1 && completed + failed === 0 ? 0 : peak}`}>
      <line class="axis" x1="0" y1={chartHeight - 0.5} x2={chartWidth} y2={chartHeight - 0.5} />
      {minutes.map((minute) => {
        const x = (59 - minute.minutesAgo) * barWidth;
        const done = scale(minute.completed);
        const bad = scale(minute.failed);
        return (
          <g>
            <title>{`${minute.minutesAgo} min ago: ${minute.completed} completed, ${minute.failed} failed`}</title>
            {minute.completed > 0 ? <rect class="completed" x={x} y={chartHeight - 1 - done} width={barWidth - 0.5} height={done} /> : null}
            {minute.failed > 0 ? <rect class="failed" x={x} y={chartHeight - 1 - done - bad} width={barWidth - 0.5} height={bad} /> : null}
          </g>
        );
      })}
    </svg>
  );
}

/** The Retry button: the operation of POST /api/v1/admin/queues/{name}/jobs/{id}/retry, then back to the page. */
async function retry(ctx: PageContext) {
  await administrator(ctx, 'write:admin');
  const name = queueNamed(ctx.params.name);
  await retryJob(ctx.deps.db, name, ctx.params.id);
  return { redirect: `${new URL(ctx.deps.config.rootUrl).pathname}-/admin/queues#queue-${encodeURIComponent(name)}` };
}

async function mirrors(ctx: PageContext) {
  await administrator(ctx, 'read:admin');
  const rows = (await listMirrorStatus(ctx.deps.db, {})).map(renderMirrorStatus);
  return { title: 'Mirrors', body: <Mirrors rows={rows} /> };
}

function Mirrors({ rows }: { rows: ApiMirrorStatus[] }) {
  const href = useHref();
  const failing = rows.filter((row) => row.failing).length;
  const overdue = rows.filter((row) => row.overdue).length;
  return (
    <>
      <p class="breadcrumb"><a href={href('-', 'admin')}>Site administration</a></p>
      <h1>Mirrors</h1>
      <p class="muted">{rows.length} mirrors, {failing} failing, {overdue} overdue.</p>
      {rows.length === 0 ? <p class="muted">No mirrors.</p> : (
        <table class="admin mirrors">
          <thead>
            <tr>
              <th>repository</th><th>kind</th><th>remote</th><th>interval</th><th>last sync</th><th>last attempt</th>
              <th>took</th><th>next due</th><th>now</th><th>failed syncs</th><th>error</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr class={[row.failing ? 'failing' : '', row.overdue ? 'overdue' : ''].filter(Boolean).join(' ') || undefined}
                data-mirror={`${row.repository}:${row.kind}${row.push_mirror_id ?? ''}`}>
                <td><a href={href(...row.repository.split('/'))}>{row.repository}</a></td>
                <td>{row.kind}</td>
                <td><code>{row.remote_address}</code></td>
                <td>{seconds(row.interval_seconds)}</td>
                <td>{row.last_sync ?? 'never'}</td>
                <td>{row.last_attempt ?? 'never'}</td>
                <td>{seconds(row.last_sync_duration_seconds)}</td>
                <td>{row.next_due ?? '–'}{row.overdue ? <strong class="flag"> overdue</strong> : null}</td>
                <td>{row.running ? 'running' : row.queued ? 'queued' : 'idle'}</td>
                <td>{row.failed_syncs}</td>
                <td class="error">{row.last_error}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

export const adminPages = [
  page({ path: '/-/admin', handle: overview }),
  page({ path: '/-/admin/queues', handle: queues }),
  page({ method: 'post', path: '/-/admin/queues/{name}/jobs/{id}/retry', handle: retry }),
  page({ path: '/-/admin/mirrors', handle: mirrors }),
];
