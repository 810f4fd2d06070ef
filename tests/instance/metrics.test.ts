import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import parsePrometheusTextFormat, { type PrometheusFamily } from 'parse-prometheus-text-format';
import { pino } from 'pino';
import { giteaCounts } from '../../db/models/instance/instance-figures.js';
import { freePort } from '../../db/process/startup.js';
import { serveProcessMetrics } from '../../db/process/metrics-server.js';
import { coalesced } from '../../api/metrics/scrape.js';
import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';
import { startReceiver } from '../helpers/receiver.js';

const token = 'scrape-me-please';
const enabled = {
  HEARTH__metrics__ENABLED: 'true', HEARTH__metrics__TOKEN: token, HEARTH__metrics__ENABLED_ISSUE_BY_REPOSITORY: 'true',
  HEARTH__webhook__ALLOWED_HOST_LIST: 'loopback',
};
const run = promisify(execFile);

/** One scrape, parsed by a Prometheus text parser, as a lookup of a series' value (a histogram's count). */
async function scrape(hearth: TestHearth): Promise<{ families: PrometheusFamily[]; value(name: string, labels?: Record<string, string>): number | undefined }> {
  const response = await fetch(`${hearth.rootUrl}metrics`, { headers: { Authorization: `Bearer ${token}` } });
  if (response.status !== 200) throw new Error(`scrape answered ${response.status}`);
  const families = parsePrometheusTextFormat(await response.text());
  return {
    families,
    value(name, labels = {}) {
      const series = families.find((family) => family.name === name)?.metrics
        .filter((sample) => Object.entries(labels).every(([label, wanted]) => sample.labels?.[label] === wanted));
      if (!series?.length) return undefined;
      return series.reduce((sum, sample) => sum + Number(sample.value ?? sample.count), 0);
    },
  };
}

test('/metrics is not served unless enabled', async (t) => {
  const hearth = await startHearth(t);
  t.is((await fetch(`${hearth.rootUrl}metrics`)).status, 404);
});

test('/metrics asks for its token, and a request, a clone, a job and a webhook delivery move its figures', async (t) => {
  const hearth = await startHearth(t, enabled);
  t.is((await fetch(`${hearth.rootUrl}metrics`)).status, 401);
  t.is((await fetch(`${hearth.rootUrl}metrics`, { headers: { Authorization: 'Bearer wrong' } })).status, 401);
  const receiver = await startReceiver(t);
  const alice = await hearth.createUser('alice');
  const repo = await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  await build.hook(hearth, { repoId: repo.id }, { url: receiver.url });
  await drain(hearth);
  const before = await scrape(hearth);
  const routeLabels = { method: 'GET', route: '/api/v1/repos/{owner}/{repo}', status: '200' };
  const hookDeliveries = { queue: 'webhook-delivery', outcome: 'completed' };
  const clones = { service: 'upload-pack', protocol: 'http' };

  t.is((await hearth.call('GET', '/repos/alice/tool', { auth: alice.bearer })).status, 200);
  const work = mkdtempSync(path.join(os.tmpdir(), 'hearth-clone-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));
  await run('git', ['clone', '--quiet', `${hearth.rootUrl}alice/tool.git`, work], { env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
  await build.commit(hearth, repo, { files: { 'a.txt': 'a' }, message: 'Add a' });
  const drained = await drain(hearth);
  t.true(drained.some((job) => job.name === 'webhook-delivery' && job.outcome === 'done'));
  await receiver.waitFor(1);

  const after = await scrape(hearth);
  t.is((after.value('hearth_http_requests_total', routeLabels) ?? 0) - (before.value('hearth_http_requests_total', routeLabels) ?? 0), 1);
  // the parser keeps a labelled histogram's buckets, not its series: its type and buckets are what it can tell
  const latency = after.families.find((family) => family.name === 'hearth_http_request_duration_seconds')!;
  t.is(latency.type, 'HISTOGRAM');
  t.truthy(latency.metrics[0].buckets?.['+Inf']);
  const http = after.families.find((family) => family.name === 'hearth_http_requests_total')!;
  t.false(http.metrics.some((sample) => sample.labels?.route.includes('alice')), 'routes are patterns, never the URL sent');
  t.true(http.metrics.some((sample) => sample.labels?.route === '/:owner/:repo/git-upload-pack'));
  // protocol v2 over HTTP: the refs (ls-refs) and the pack (fetch) are an exchange each
  t.is(after.value('hearth_git_transfers_total', clones)! - (before.value('hearth_git_transfers_total', clones) ?? 0), 2);
  t.is(after.families.find((family) => family.name === 'hearth_git_transfer_duration_seconds')?.type, 'HISTOGRAM');
  t.true(after.value('hearth_git_transfer_bytes_total', clones)! - (before.value('hearth_git_transfer_bytes_total', clones) ?? 0) > 100);
  t.true(after.value('hearth_queue_jobs_ended_last_hour', hookDeliveries)! > before.value('hearth_queue_jobs_ended_last_hour', hookDeliveries)!);
  t.is(after.value('hearth_webhook_deliveries_last_hour', { outcome: 'succeeded' }), 1);
  t.is(after.value('hearth_webhook_deliveries_waiting'), 0);
  t.true(after.value('hearth_webhook_delivery_delay_mean_seconds')! >= 0);
  t.is(after.value('hearth_queue_jobs', { queue: 'webhook-delivery', state: 'created' }), 0);
  t.is(after.value('gitea_users'), 1);
  t.is(after.value('gitea_repositories'), 1);
  t.is(after.value('gitea_hooktasks'), 1);
  t.is(after.value('gitea_webhooks'), 1);
  t.is(after.value('gitea_issues_by_repository', { repository: 'alice/tool' }), undefined, 'no issues: no series, as Gitea');
  for (const name of Object.keys(giteaCounts)) t.not(after.value(`gitea_${name}`), undefined, `gitea_${name}`);
  t.not(after.value('process_cpu_user_seconds_total'), undefined, "Node's process figures");
  t.is(after.families.find((family) => family.name === 'gitea_build_info')?.metrics[0].labels?.version, '1.22.0+hearth-0.1.0');
});

test('the queues show the live workers subscribed to them; a gone worker is neither shown nor kept', async (t) => {
  const hearth = await startHearth(t, enabled);
  const root = await hearth.createUser('root', { admin: true });
  const { db } = hearth.store;
  await db.query(`INSERT INTO worker_process (id, host, pid, actors, queues) VALUES (42, 'gone', 1, '{mailer}', '{"mail": 5}')`);
  const subscription = await hearth.startWorker('mailer');
  const queues = (await hearth.call('GET', '/admin/queues', { auth: root.bearer })).body as Array<{ name: string; workers: any[] }>;
  const mail = queues.find((queue) => queue.name === 'mail')!;
  t.is(mail.workers.length, 1, 'the row of a worker whose lock is free is not shown');
  t.like(mail.workers[0], { host: os.hostname(), pid: process.pid, worker_id: subscription.workerId, actors: ['mailer'], concurrency: mail.workers[0].concurrency });
  t.true(mail.workers[0].concurrency >= 1);
  t.true(Date.now() - Date.parse(mail.workers[0].last_heartbeat) < 30_000);
  t.deepEqual(queues.find((queue) => queue.name === 'notify')!.workers, [], 'a queue the worker does not run');
  t.deepEqual((await db.query(`SELECT id FROM worker_process WHERE id = 42`)), [], "a beat removes the rows of workers that are gone");
  t.is((await scrape(hearth)).value('hearth_queue_workers', { queue: 'mail' }), 1);

  await subscription.drain();
  t.deepEqual((await db.query(`SELECT id FROM worker_process`)), [], 'a stopping worker removes its row');
  t.is((await scrape(hearth)).value('hearth_queue_workers', { queue: 'mail' }), 0);
});

test('a mirror sync records when it ended, how long it took and its failures', async (t) => {
  const hearth = await startHearth(t, enabled);
  const root = await hearth.createUser('root', { admin: true });
  const alice = await hearth.createUser('alice');
  const repo = await build.repo(hearth, alice, { name: 'pushed', autoInit: true });
  const { db, boss } = hearth.store;
  // loopback is refused to mirrors (ALLOW_LOCALNETWORKS is false): a real failure, recorded as such
  const [push] = await db.query<{ id: string }>(
    `INSERT INTO push_mirror (repo_id, remote_name, remote_address, interval_seconds) VALUES ($1, 'remote_mirror_x', 'http://127.0.0.1:9/down.git', 600) RETURNING id`,
    [repo.id],
  );
  await boss.send('push-mirror', { pushMirrorId: Number(push.id) });
  await drain(hearth, 'push-mirror');
  const [mirror] = (await hearth.call('GET', '/admin/mirrors', { auth: root.bearer })).body;
  t.like(mirror, { kind: 'push', last_outcome: 'failed', failed_syncs: 1, failing: true, last_sync: null });
  t.true(mirror.last_sync_duration_seconds >= 0);
  t.true(Date.now() - Date.parse(mirror.last_attempt) < 60_000);
  const figures = await scrape(hearth);
  t.is(figures.value('hearth_mirror_failed_syncs', { kind: 'push' }), 1);
  t.is(figures.value('hearth_mirrors_failing', { kind: 'push' }), 1);
  t.is(figures.value('hearth_mirrors', { kind: 'pull' }), 0);
  t.true(figures.value('hearth_mirror_oldest_sync_age_seconds', { kind: 'push' })! < 60);
  t.is(figures.value('hearth_mirror_oldest_sync_age_seconds', { kind: 'pull' }), undefined, 'no pull mirror: no age');
});

test('a worker with WORKER_PORT serves the jobs it ran, behind the same token', async (t) => {
  const workerPort = await freePort();
  const hearth = await startHearth(t, { ...enabled, HEARTH__metrics__WORKER_PORT: String(workerPort) });
  const server = (await serveProcessMetrics(hearth.config.metrics.workerPort, hearth.config.metrics.token || undefined, pino({ level: 'silent' })))!;
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const url = `http://127.0.0.1:${workerPort}/metrics`;
  const ranBefore = async (): Promise<number> => {
    const text = await (await fetch(url, { headers: { Authorization: `Bearer ${token}` } })).text();
    return parsePrometheusTextFormat(text).find((family) => family.name === 'hearth_job_runs_total')?.metrics
      .filter((sample) => sample.labels?.job === 'mail').reduce((sum, sample) => sum + Number(sample.value), 0) ?? 0;
  };
  t.is((await fetch(url)).status, 401);
  const before = await ranBefore();
  await hearth.startWorker('mailer');
  const id = await hearth.store.boss.send('mail', { to: ['ops@example.com'], subject: 'Hello', text: 'hi' });
  for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
    const [job] = await hearth.store.db.query<{ state: string }>('SELECT state::text AS state FROM pgboss.job WHERE id = $1', [id]);
    if (job.state === 'completed' || job.state === 'failed') break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  t.is(await ranBefore(), before + 1);
});

test('scrapes at once share database reads, and none gets a read that started before it came', async (t) => {
  let reads = 0;
  const gates: Array<() => void> = [];
  const read = coalesced(async () => {
    const number = ++reads;
    await new Promise<void>((resolve) => gates.push(resolve));
    return number;
  });
  const first = read();
  const [second, third] = [read(), read()];
  t.is(reads, 1, 'those that came during the first read wait for the next');
  gates.shift()!();
  t.is(await first, 1);
  await new Promise((resolve) => setImmediate(resolve));
  t.is(reads, 2);
  gates.shift()!();
  t.deepEqual([await second, await third], [2, 2]);
  const fourth = read();
  gates.shift()!();
  t.is(await fourth, 3, 'idle: a scrape starts its own read');
});
