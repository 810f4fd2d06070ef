import test, { type ExecutionContext } from 'ava';
import type PgBoss from 'pg-boss';
import { pino } from 'pino';
import { fetchClaimed } from '../../jobs/lost-jobs.js';
import { vacuumEveryJobs, vacuumQueue } from '../../jobs/queue-vacuum.js';
import { startJobRunner, type JobRunner } from '../../workers/job-runner.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';

const queue = 'runner-test';
const log = pino({ level: 'silent' });

/** A promise a test resolves when it wants: what a held job waits for. */
function hold(): { done: Promise<void>; release(): void } {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  return { done, release };
}

async function states(hearth: TestHearth): Promise<Map<string, { state: string; output: unknown }>> {
  const rows = await hearth.store.db.query<{ key: string; state: string; output: unknown }>(
    `SELECT data->>'key' AS key, state::text, output FROM pgboss.job WHERE name = $1`, [queue],
  );
  return new Map(rows.map((row) => [row.key, { state: row.state, output: row.output }]));
}

async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, what: string): Promise<T> {
  for (const deadline = Date.now() + 15_000; ;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value, (_, v) => (v instanceof Map ? [...v] : v))}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The worker's fetch with the sizes of the batches it brought counted. */
function countingFetches(boss: PgBoss, workerId: number): { fetch: (batchSize: number) => Promise<Array<PgBoss.Job<unknown>>>; batches: number[] } {
  const batches: number[] = [];
  const fetch = async (batchSize: number): Promise<Array<PgBoss.Job<unknown>>> => {
    const jobs = await fetchClaimed(boss, queue, batchSize, workerId);
    if (jobs.length > 0) batches.push(jobs.length);
    return jobs;
  };
  return { fetch, batches };
}

async function setUp(t: ExecutionContext, queueOptions: Omit<PgBoss.Queue, 'name'> = { retryLimit: 0 }): Promise<TestHearth> {
  const hearth = await startHearth(t);
  await hearth.store.boss.createQueue(queue, { name: queue, ...queueOptions });
  return hearth;
}

test('jobs are fetched as many at once as there are free slots, each settles alone: a slow one holds only its slot, a failing one fails alone', async (t) => {
  const hearth = await setUp(t);
  const slow = hold();
  let started!: () => void;
  const slowStarted = new Promise<void>((resolve) => (started = resolve));
  let running = 0;
  let most = 0;
  await hearth.store.boss.insert([
    { name: queue, data: { key: 'slow' } },
    ...Array.from({ length: 8 }, (_, i) => ({ name: queue, data: { key: `quick-${i}` } })),
    { name: queue, data: { key: 'broken' } },
  ]);
  const { fetch, batches } = countingFetches(hearth.store.boss, 4242);
  const runner: JobRunner = startJobRunner({
    boss: hearth.store.boss, queue, concurrency: 4, pollingMs: 60_000, log, fetch,
    async handle(job) {
      running++;
      most = Math.max(most, running);
      try {
        const { key } = job.data as { key: string };
        if (key === 'slow') {
          started();
          await slow.done;
        }
        if (key === 'broken') throw new Error('this job cannot be done');
        await new Promise((resolve) => setTimeout(resolve, 20));
        return key === 'slow' ? 'late' : 'done';
      } finally {
        running--;
      }
    },
  });
  t.teardown(() => runner.stop(0));
  runner.wake();
  await slowStarted;

  const settled = await until(() => states(hearth), (s) => [...s].filter(([key, row]) => key !== 'slow' && row.state !== 'active' && row.state !== 'created').length === 9, 'nine settled jobs');
  t.is(settled.get('slow')!.state, 'active', 'the slow job still runs while the nine others settled');
  t.deepEqual(settled.get('slow')!.output, { hearthWorker: 4242 }, 'a fetched job is claimed by its worker');
  t.is(settled.get('broken')!.state, 'failed');
  for (let i = 0; i < 8; i++) t.deepEqual(settled.get(`quick-${i}`), { state: 'completed', output: { value: 'done' } });
  t.true(most <= 4, `at most four at once (saw ${most})`);
  t.is(batches[0], 4, 'the first fetch brought a job for every slot');
  t.true(batches.length < 10, `fewer fetches than jobs (${batches.join(', ')})`);

  slow.release();
  const done = await until(() => states(hearth), (s) => s.get('slow')!.state === 'completed', 'the slow job');
  t.deepEqual(done.get('slow')!.output, { value: 'late' });
});

test('stop waits for the running job and its completion, then fetches nothing more', async (t) => {
  const hearth = await setUp(t);
  const held = hold();
  let started!: () => void;
  const heldStarted = new Promise<void>((resolve) => (started = resolve));
  const runner = startJobRunner({
    boss: hearth.store.boss, queue, concurrency: 2, pollingMs: 100, log,
    fetch: (batchSize) => fetchClaimed(hearth.store.boss, queue, batchSize, 4242),
    async handle(job) {
      if ((job.data as { key: string }).key === 'held') {
        started();
        await held.done;
      }
      return 'done';
    },
  });
  await hearth.store.boss.send(queue, { key: 'held' });
  runner.wake();
  await heldStarted;
  let stopped = false;
  const stopping = runner.stop(15_000).then(() => (stopped = true));
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.false(stopped, 'stop waits while a job runs');
  held.release();
  await stopping;
  t.is((await states(hearth)).get('held')!.state, 'completed', 'the completion is written before stop answers');

  await hearth.store.boss.send(queue, { key: 'after' });
  runner.wake();
  await new Promise((resolve) => setTimeout(resolve, 400));
  t.is((await states(hearth)).get('after')!.state, 'created', 'a stopped runner fetches nothing, neither woken nor polling');
});

test('a handler that outlives its job expiry fails the job and frees its slot for the next one', async (t) => {
  const hearth = await setUp(t, { retryLimit: 0, expireInSeconds: 1 });
  const never = hold();
  t.teardown(() => never.release());
  const runner = startJobRunner({
    boss: hearth.store.boss, queue, concurrency: 1, pollingMs: 60_000, log,
    fetch: (batchSize) => fetchClaimed(hearth.store.boss, queue, batchSize, 4242),
    async handle(job) {
      if ((job.data as { key: string }).key === 'stuck') await never.done;
      return 'done';
    },
  });
  t.teardown(() => runner.stop(0));
  await hearth.store.boss.send(queue, { key: 'stuck' });
  await hearth.store.boss.send(queue, { key: 'next' }, { startAfter: 0 });
  runner.wake();
  const settled = await until(() => states(hearth), (s) => s.get('next')?.state === 'completed', 'the next job');
  t.is(settled.get('stuck')!.state, 'failed');
  t.regex(JSON.stringify(settled.get('stuck')!.output), /handler execution exceeded 1000ms/);
});

test('after every thousand settled jobs the runner vacuums the queue\'s partition, in the background', async (t) => {
  const hearth = await setUp(t);
  const vacuumCount = async (): Promise<number> => {
    const [row] = await hearth.store.db.query<{ n: number }>(
      `SELECT s.vacuum_count::int AS n FROM pg_stat_user_tables s JOIN pgboss.queue q ON s.schemaname = 'pgboss' AND s.relname = q.partition_name WHERE q.name = $1`,
      [queue],
    );
    return row.n;
  };
  const before = await vacuumCount();
  let vacuums = 0;
  await hearth.store.boss.insert(Array.from({ length: vacuumEveryJobs + 10 }, (_, i) => ({ name: queue, data: { key: `job-${i}` } })));
  const runner = startJobRunner({
    boss: hearth.store.boss, queue, concurrency: 16, pollingMs: 60_000, log,
    fetch: (batchSize) => fetchClaimed(hearth.store.boss, queue, batchSize, 4242),
    vacuum: async () => {
      vacuums++;
      await vacuumQueue(hearth.store.boss, queue);
    },
    handle: async () => 'done',
  });
  t.teardown(() => runner.stop(0));
  runner.wake();
  await until(() => states(hearth), (s) => [...s.values()].every((row) => row.state === 'completed'), 'every job completed');
  await until(vacuumCount, (n) => n > before, 'the partition vacuumed');
  t.is(vacuums, 1, 'one vacuum for a thousand and ten jobs');
});

test('slots reserved for jobs claimed at insert count against the concurrency; unused ones are freed; a job its work completed is left to it', async (t) => {
  const hearth = await setUp(t);
  const { fetch, batches } = countingFetches(hearth.store.boss, 4242);
  const runner = startJobRunner({ boss: hearth.store.boss, queue, concurrency: 3, pollingMs: 60_000, log, fetch, handle: async () => 'fetched' });
  t.teardown(() => runner.stop(0));
  t.is(runner.reserve(5), 3, 'no more than the free slots');
  t.is(runner.reserve(1), 0, 'none while all are reserved');

  // two jobs claimed as an insert would claim them: active, this worker's
  await hearth.store.boss.insert([{ name: queue, data: { key: 'claimed' } }, { name: queue, data: { key: 'self-completed' } }]);
  const claimed = await fetchClaimed(hearth.store.boss, queue, 2, 4242);
  const held = hold();
  runner.runReserved(claimed.map((job) => ({
    job,
    work: async () => {
      if ((job.data as { key: string }).key === 'self-completed') return null;
      await held.done;
      return 'claimed-done';
    },
  })), 3);

  // one slot was reserved and not used, one job finished: two are free, one is held
  await hearth.store.boss.insert(Array.from({ length: 3 }, (_, i) => ({ name: queue, data: { key: `queued-${i}` } })));
  runner.wake();
  await until(() => states(hearth), (s) => s.get('queued-0')!.state === 'completed' && s.get('queued-1')!.state === 'completed', 'two queued jobs');
  t.is(batches[0], 2, 'the fetch took the two slots left');
  held.release();
  const settled = await until(() => states(hearth), (s) => s.get('claimed')!.state === 'completed' && s.get('queued-2')!.state === 'completed', 'the rest');
  t.deepEqual(settled.get('claimed')!.output, { value: 'claimed-done' }, 'a claimed job is completed with what its work answered');
  t.deepEqual(settled.get('self-completed'), { state: 'active', output: { hearthWorker: 4242 } }, 'a work answering null has completed its job itself: the runner writes nothing');
  t.is(runner.reserve(9), 3, 'every slot is free again');
});
