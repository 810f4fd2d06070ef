import test from 'ava';
import { inTx } from '../../db/data-source.js';
import { createQueue, enqueue, insertJobsSql } from '../../jobs/queue.js';
import { jobNames } from '../../jobs/catalogue.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';

const payload = { to: ['someone@example.com'], subject: 'hello', text: 'body' };

async function mailJobs(hearth: TestHearth): Promise<Array<{ data: unknown; state: string }>> {
  return hearth.store.db.query(`SELECT data, state FROM pgboss.job WHERE name = 'mail'`);
}

test('a job enqueued in a transaction that rolls back does not exist', async (t) => {
  const hearth = await startHearth(t);
  const failure = new Error('roll back');
  await t.throwsAsync(
    inTx(hearth.store, async (tx) => {
      const id = await enqueue(tx, 'mail', payload);
      t.truthy(id);
      const inside = await tx.query(`SELECT 1 FROM pgboss.job WHERE id = $1`, [id]);
      t.is(inside.length, 1);
      throw failure;
    }),
    { is: failure },
  );
  t.deepEqual(await mailJobs(hearth), []);
});

test('a job enqueued in a committed transaction exists exactly once', async (t) => {
  const hearth = await startHearth(t);
  const id = await inTx(hearth.store, async (tx) => {
    await tx.query(`UPDATE "user" SET full_name = 'x' WHERE false`);
    return enqueue(tx, 'mail', payload);
  });
  t.truthy(id);
  const jobs = await mailJobs(hearth);
  t.is(jobs.length, 1);
  t.deepEqual(jobs[0], { data: payload, state: 'created' });
  const [byId] = await hearth.store.db.query<{ name: string }>(`SELECT name FROM pgboss.job WHERE id = $1`, [id]);
  t.is(byId.name, 'mail');
});

test('a payload that does not match the catalogue is refused before anything is written', async (t) => {
  const hearth = await startHearth(t);
  await t.throwsAsync(inTx(hearth.store, (tx) => enqueue(tx, 'mail', { to: [], subject: 's', text: 't' })));
  t.deepEqual(await mailJobs(hearth), []);
});

/** A job's row once no worker holds or awaits it any more (or as it is after 15 s). */
async function settledJob(hearth: TestHearth, id: string): Promise<{ state: string; retry_count: number } | undefined> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const [job] = await hearth.store.db.query<{ state: string; retry_count: number }>('SELECT state, retry_count FROM pgboss.job WHERE id = $1', [id]);
    if ((job && !['created', 'active'].includes(job.state)) || Date.now() > deadline) return job;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('a job whose payload fails its check fails once, without retries', async (t) => {
  const hearth = await startHearth(t);
  // sent past enqueue, which would refuse it
  const id = await hearth.store.boss.send('mail', { to: 'someone@example.com', subject: 42 });
  t.truthy(id);
  await hearth.startWorker('mailer');
  const job = await settledJob(hearth, id!);
  t.is(job?.state, 'failed');
  t.is(job?.retry_count, 0);
});

test("a worker's own queue bookkeeping commits without waiting for the disk; the web's queue and transactions do wait", async (t) => {
  const hearth = await startHearth(t);
  const worker = createQueue({ connectionString: hearth.databaseUrl, role: 'worker' });
  await worker.start();
  t.teardown(() => worker.stop({ graceful: false, wait: true }));
  const setting = async (db: { executeSql(sql: string, values: unknown[]): Promise<unknown> }): Promise<unknown> =>
    ((await db.executeSql('SHOW synchronous_commit', [])) as { rows: Array<{ synchronous_commit: string }> }).rows[0].synchronous_commit;
  t.is(await setting(worker.getDb()), 'off');
  t.is(await setting(hearth.store.boss.getDb()), 'on', 'the web process');
  const [inTransaction] = await inTx(hearth.store, (tx) => tx.query<{ synchronous_commit: string }>('SHOW synchronous_commit'));
  t.is(inTransaction.synchronous_commit, 'on', 'a transaction that enqueues');
});

test('a job written by the statement of its change has the settings pg-boss gives a job it sends to that queue', async (t) => {
  const hearth = await startHearth(t);
  const settings = `SELECT name, policy, retry_limit, retry_delay, retry_backoff, dead_letter, priority, state::text,
      EXTRACT(epoch FROM expire_in) AS expire_in, round(EXTRACT(epoch FROM keep_until - created_on)) AS kept_for,
      start_after <= now() AS due
    FROM pgboss.job WHERE data->>'written' = $1 ORDER BY name`;
  await inTx(hearth.store, async (tx) => {
    for (const name of jobNames) await tx.query(`WITH source AS (SELECT 1) ${insertJobsSql(name, `'{"written":"in the statement"}'::jsonb`, 'source')}`);
  });
  const written = await hearth.store.db.query(settings, ['in the statement']);
  // a queue with the short policy keeps one waiting job
  await hearth.store.db.query('DELETE FROM pgboss.job WHERE name = ANY($1)', [jobNames]);
  await inTx(hearth.store, async (tx) => {
    for (const name of jobNames) await tx.boss.send(name, { written: 'by pg-boss' }, { db: tx.jobDb });
  });
  const sent = await hearth.store.db.query(settings, ['by pg-boss']);
  t.is(sent.length, jobNames.length);
  t.deepEqual(written, sent);
});
