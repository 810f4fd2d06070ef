import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';

const mail = { to: ['ops@example.com'], subject: 'Reset your password', text: 'token=s3cret-reset-token' };

/** A mail job that ends as asked: failed (with an error), completed, or left waiting. */
async function mailJob(hearth: TestHearth, end: 'failed' | 'completed' | 'created'): Promise<string> {
  const { boss } = hearth.store;
  const id = (await boss.send('mail', mail, { retryLimit: 0 }))!;
  if (end === 'created') return id;
  const [job] = await boss.fetch('mail', { id } as never);
  if (job.id !== id) throw new Error('fetched another job');
  if (end === 'failed') await boss.fail('mail', id, { message: 'smtp: connection refused' });
  else await boss.complete('mail', id);
  return id;
}

const jobState = async (hearth: TestHearth, id: string): Promise<string | undefined> =>
  (await hearth.store.db.query<{ state: string }>(`SELECT state::text AS state FROM pgboss.job WHERE id = $1`, [id]))[0]?.state;

test('the queue monitor counts each queue, lists its jobs without credentials, retries, cancels and removes them', async (t) => {
  const hearth = await startHearth(t);
  const root = await hearth.createUser('root', { admin: true });
  const auditor = await hearth.createUser('auditor', { admin: true, scopes: ['read:admin'] });
  const alice = await hearth.createUser('alice');

  const failed = await mailJob(hearth, 'failed');
  const completed = await mailJob(hearth, 'completed');
  const waiting = await mailJob(hearth, 'created');

  const queues = await hearth.call('GET', '/admin/queues', { auth: auditor.bearer });
  t.is(queues.status, 200);
  t.true(queues.body.some((queue: { name: string }) => queue.name === 'webhook-delivery'), 'every catalogued queue is listed');
  const mailQueue = queues.body.find((queue: { name: string }) => queue.name === 'mail');
  t.like(mailQueue, { counts: { created: 1, retry: 0, active: 0 }, last_hour: { completed: 1, failed: 1, cancelled: 0 } });
  t.true(mailQueue.oldest_waiting_seconds >= 0 && mailQueue.oldest_waiting_seconds < 60);
  t.true(mailQueue.last_hour.mean_run_seconds >= 0);
  t.true(mailQueue.last_hour.p99_run_seconds >= 0);

  const listed = await hearth.call('GET', '/admin/queues/mail/jobs', { auth: auditor.bearer });
  t.is(listed.status, 200);
  t.is(listed.headers.get('x-total-count'), '3');
  t.deepEqual(listed.body.map((job: { id: string }) => job.id), [waiting, completed, failed], 'newest first');
  t.false(JSON.stringify(listed.body).includes('s3cret'), 'a mail body may carry a token: never shown');
  t.deepEqual(listed.body[0].payload, { to: ['ops@example.com'], subject: 'Reset your password' });
  const failedOnly = await hearth.call('GET', '/admin/queues/mail/jobs?state=failed', { auth: auditor.bearer });
  t.like(failedOnly.body, [{ id: failed, state: 'failed', attempts: 1, last_error: 'smtp: connection refused' }]);
  t.is(failedOnly.headers.get('x-total-count'), '1');

  // refused and bad input: nothing changes
  t.is((await hearth.call('POST', `/admin/queues/mail/jobs/${failed}/retry`, { auth: auditor.bearer })).status, 403, 'read:admin cannot retry');
  t.is((await hearth.call('GET', '/admin/queues', { auth: alice.bearer })).status, 403);
  t.is((await hearth.call('POST', `/admin/queues/mail/jobs/${failed}/retry`, { auth: alice.bearer })).status, 403);
  t.is((await hearth.call('GET', '/admin/queues/nope/jobs', { auth: root.bearer })).status, 404);
  t.is((await hearth.call('GET', '/admin/queues/mail/jobs?state=sleeping', { auth: root.bearer })).status, 422);
  t.is((await hearth.call('POST', '/admin/queues/mail/jobs/not-a-uuid/retry', { auth: root.bearer })).status, 404);
  t.is((await hearth.call('POST', `/admin/queues/notify/jobs/${failed}/retry`, { auth: root.bearer })).status, 404, 'the job of another queue');
  const notRetriable = await hearth.call('POST', `/admin/queues/mail/jobs/${completed}/retry`, { auth: root.bearer });
  t.is(notRetriable.status, 409);
  t.regex(notRetriable.body.message, /is completed/);
  t.is(await jobState(hearth, completed), 'completed');
  t.is((await hearth.call('POST', `/admin/queues/mail/jobs/${completed}/cancel`, { auth: root.bearer })).status, 409);
  t.is((await hearth.call('DELETE', '/admin/queues/mail/jobs?state=active', { auth: root.bearer })).status, 422);
  t.is((await hearth.call('DELETE', '/admin/queues/mail/jobs', { auth: root.bearer })).status, 422);
  t.is((await hearth.call('GET', '/admin/queues/mail/jobs', { auth: root.bearer })).headers.get('x-total-count'), '3');

  const retried = await hearth.call('POST', `/admin/queues/mail/jobs/${failed}/retry`, { auth: root.bearer });
  t.is(retried.status, 200);
  t.like(retried.body, { id: failed, state: 'retry', completed_at: null });
  t.is(await jobState(hearth, failed), 'retry');
  // a worker fetches it again, and it may fail once more than it had
  const [again] = await hearth.store.boss.fetch('mail', { id: failed } as never);
  t.is(again.id, failed);
  await hearth.store.boss.complete('mail', failed);
  t.is(await jobState(hearth, failed), 'completed');

  const cancelled = await hearth.call('POST', `/admin/queues/mail/jobs/${waiting}/cancel`, { auth: root.bearer });
  t.like(cancelled.body, { id: waiting, state: 'cancelled' });
  t.is(await jobState(hearth, waiting), 'cancelled');

  const failedTwo = [await mailJob(hearth, 'failed'), await mailJob(hearth, 'failed')];
  const all = await hearth.call('POST', '/admin/queues/mail/retry-failed', { auth: root.bearer });
  t.deepEqual([...all.body.retried].sort(), [...failedTwo].sort());
  for (const id of failedTwo) t.is(await jobState(hearth, id), 'retry');
  t.like((await hearth.call('POST', `/admin/queues/mail/jobs/${waiting}/retry`, { auth: root.bearer })).body, { state: 'retry' });

  const removed = await hearth.call('DELETE', '/admin/queues/mail/jobs?state=completed', { auth: root.bearer });
  t.deepEqual(removed.body, { deleted: 2 });
  t.is(await jobState(hearth, failed), undefined);
  t.is(await jobState(hearth, completed), undefined);
  t.is(await jobState(hearth, waiting), 'retry');

  const doc = (await hearth.call('GET', '/swagger.v1.json')).body;
  t.deepEqual(doc.paths['/admin/queues'].get.tags, ['hearth']);
  t.truthy(doc.definitions.HearthQueue);
  t.truthy(doc.paths['/admin/queues/{name}/jobs'].delete);
});

test('the mirror monitor shows every mirror with its last sync, marks failing and overdue ones, and never shows credentials', async (t) => {
  const hearth = await startHearth(t);
  const root = await hearth.createUser('root', { admin: true });
  const alice = await hearth.createUser('alice');
  const pulled = await build.repo(hearth, alice, { name: 'pulled' });
  const pushed = await build.repo(hearth, alice, { name: 'pushed' });
  const { db, boss } = hearth.store;
  await db.query(`INSERT INTO mirror (repo_id, interval_seconds, remote_address, updated, next_update) VALUES ($1, 3600, 'https://example.com/up.git', now() - interval '5 minutes', now() + interval '55 minutes')`, [pulled.id]);
  const [push] = await db.query<{ id: string }>(
    `INSERT INTO push_mirror (repo_id, remote_name, remote_address, interval_seconds, next_update, last_update, last_error)
     VALUES ($1, 'remote_mirror_x', 'https://bot:hunter2@example.com/down.git', 600, now() - interval '1 hour', now() - interval '70 minutes', 'authentication failed')
     RETURNING id`,
    [pushed.id],
  );
  await boss.send('mirror-sync', { repoId: pulled.id }, { singletonKey: `mirror-${pulled.id}` });

  const all = await hearth.call('GET', '/admin/mirrors', { auth: root.bearer });
  t.is(all.status, 200);
  t.is(all.body.length, 2);
  t.like(all.body[0], {
    kind: 'pull', repository: 'alice/pulled', interval_seconds: 3600, last_error: '', queued: true, running: false, overdue: false, failing: false,
  });
  t.like(all.body[1], {
    kind: 'push', push_mirror_id: Number(push.id), repository: 'alice/pushed', remote_address: 'https://example.com/down.git',
    last_error: 'authentication failed', queued: false, running: false, overdue: true, failing: true,
  });
  t.false(JSON.stringify(all.body).includes('hunter2'));
  t.deepEqual((await hearth.call('GET', '/admin/mirrors?failing=true', { auth: root.bearer })).body.map((m: { kind: string }) => m.kind), ['push']);
  t.deepEqual((await hearth.call('GET', '/admin/mirrors?overdue=true', { auth: root.bearer })).body.map((m: { kind: string }) => m.kind), ['push']);

  await db.query(`UPDATE push_mirror SET lease_until = now() + interval '1 minute' WHERE id = $1`, [push.id]);
  t.deepEqual((await hearth.call('GET', '/admin/mirrors?overdue=true', { auth: root.bearer })).body, [], 'a running sync is not late');
  t.is((await hearth.call('GET', '/admin/mirrors?failing=maybe', { auth: root.bearer })).status, 422);
  t.is((await hearth.call('GET', '/admin/mirrors', { auth: alice.bearer })).status, 403);
});
