import test from 'ava';
import { inTx } from '../../db/data-source.js';
import { enqueue } from '../../jobs/queue.js';
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
