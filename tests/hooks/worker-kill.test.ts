import { spawn, type ChildProcess } from 'node:child_process';
import test, { type ExecutionContext } from 'ava';
import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';
import { root } from '../helpers/processes.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

/** The real worker process (workers/worker.ts) on the test's database, running `actors` (only webhook deliveries by default). */
function startWorker(hearth: TestHearth, actors = 'webhook-delivery'): { child: ChildProcess; output: string[] } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'workers/worker.ts'], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: hearth.databaseUrl,
      HEARTH_DATA_DIR: hearth.config.dataDir,
      HEARTH_ROOT_URL: hearth.rootUrl,
      HEARTH_ACTORS: actors,
      HEARTH__security__SECRET_KEY: hearth.config.security.secretKey,
      HEARTH__webhook__ALLOWED_HOST_LIST: 'loopback',
      HEARTH__webhook__DELIVER_TIMEOUT: '2',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  return { child, output };
}

/** A repository with a hook whose receiver leaves requests hanging, and a push to it, synced: its notify job waits. */
async function pushWithHangingReceiver(t: ExecutionContext): Promise<{ hearth: TestHearth; receiver: Receiver }> {
  const hearth = await startHearth(t, { HEARTH__webhook__ALLOWED_HOST_LIST: 'loopback', HEARTH__webhook__DELIVER_TIMEOUT: '2' });
  const receiver = await startReceiver(t);
  const alice = await hearth.createUser('alice');
  const repo = await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  await build.hook(hearth, { repoId: repo.id }, { url: receiver.url });
  await drain(hearth);
  receiver.answer = () => null; // the first worker's request hangs until the worker dies
  await build.commit(hearth, repo, { files: { 'a.txt': 'a' } });
  await drain(hearth, 'branch-sync');
  return { hearth, receiver };
}

test('a worker killed with SIGKILL in the middle of a delivery loses nothing: the next worker delivers the same X-Gitea-Delivery', async (t) => {
  t.timeout(120_000);
  const { hearth, receiver } = await pushWithHangingReceiver(t);
  await drain(hearth, 'notify');

  const workers: ChildProcess[] = [];
  t.teardown(() => workers.forEach((w) => w.exitCode === null && w.kill('SIGKILL')));
  const first = startWorker(hearth);
  workers.push(first.child);
  const [hung] = await receiver.waitFor(1, 60_000).catch((error: Error) => {
    throw new Error(`${error.message}\n${first.output.join('')}`);
  });
  first.child.kill('SIGKILL');
  await new Promise((resolve) => first.child.once('exit', resolve));
  const [task] = await hearth.store.db.query<{ is_delivered: boolean; attempts: unknown[] }>('SELECT is_delivered, attempts FROM hook_task');
  t.false(task.is_delivered, 'the killed worker recorded nothing');

  receiver.answer = () => ({ status: 200, body: 'ok' });
  const second = startWorker(hearth);
  workers.push(second.child);
  // the job expires a little after its delivery timeout; maintenance hands it back to the queue
  for (const deadline = Date.now() + 60_000; receiver.requests.length < 2 && Date.now() < deadline; ) {
    await hearth.store.boss.maintain().catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  const [, redelivered] = await receiver.waitFor(2, 1_000).catch((error: Error) => {
    throw new Error(`${error.message}\n${second.output.join('')}`);
  });
  t.is(redelivered.headers['x-gitea-delivery'], hung.headers['x-gitea-delivery']);
  t.is(redelivered.body, hung.body);
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
    const [row] = await hearth.store.db.query<{ is_succeed: boolean }>('SELECT is_succeed FROM hook_task');
    if (row.is_succeed) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const [done] = await hearth.store.db.query<{ is_delivered: boolean; is_succeed: boolean }>('SELECT is_delivered, is_succeed FROM hook_task');
  t.deepEqual(done, { is_delivered: true, is_succeed: true });
  second.child.kill('SIGTERM');
});

test('a worker that fans an event out starts its deliveries as it inserts them, killed mid-delivery the next worker delivers the same X-Gitea-Delivery', async (t) => {
  t.timeout(120_000);
  const { hearth, receiver } = await pushWithHangingReceiver(t);

  const workers: ChildProcess[] = [];
  t.teardown(() => workers.forEach((w) => w.exitCode === null && w.kill('SIGKILL')));
  const first = startWorker(hearth, 'notifier,webhook-delivery');
  workers.push(first.child);
  const [hung] = await receiver.waitFor(1, 60_000).catch((error: Error) => {
    throw new Error(`${error.message}\n${first.output.join('')}`);
  });
  type JobRow = { state: string; output: unknown; at_insert: boolean; retry_count: number };
  const jobOf = async (name: string): Promise<JobRow> => (await hearth.store.db.query<JobRow>(
    // the newest: the jobs of the set-up's events were drained before
    'SELECT state, output, started_on = created_on AS at_insert, retry_count FROM pgboss.job WHERE name = $1 ORDER BY created_on DESC, id LIMIT 1', [name],
  ))[0];
  t.like(await jobOf('notify'), { state: 'completed', output: { value: 'done' } }, 'the fan-out completed its notify job');
  const claimed = await jobOf('webhook-delivery');
  t.like(claimed, { state: 'active', at_insert: true, retry_count: 0 }, 'the delivery job was inserted running, not fetched');
  t.truthy((claimed.output as { hearthWorker?: number }).hearthWorker, 'it names the worker running it');

  first.child.kill('SIGKILL');
  await new Promise((resolve) => first.child.once('exit', resolve));
  receiver.answer = () => ({ status: 200, body: 'ok' });
  // the new worker's lost-job sweep puts the dead worker's job back at once, without waiting for its expiry
  const second = startWorker(hearth, 'notifier,webhook-delivery');
  workers.push(second.child);
  const [, redelivered] = await receiver.waitFor(2, 60_000).catch((error: Error) => {
    throw new Error(`${error.message}\n${second.output.join('')}`);
  });
  t.is(redelivered.headers['x-gitea-delivery'], hung.headers['x-gitea-delivery']);
  t.is(redelivered.body, hung.body);
  for (const deadline = Date.now() + 10_000; (await jobOf('webhook-delivery')).state !== 'completed' && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  t.like(await jobOf('webhook-delivery'), { state: 'completed', output: { value: 'done' }, retry_count: 1 }, 'the record of the attempt completed the job');
  const [task] = await hearth.store.db.query('SELECT is_delivered, is_succeed, jsonb_array_length(attempts)::int AS attempts FROM hook_task');
  t.deepEqual(task, { is_delivered: true, is_succeed: true, attempts: 1 });
  t.is(receiver.requests.length, 2);
  second.child.kill('SIGTERM');
});
