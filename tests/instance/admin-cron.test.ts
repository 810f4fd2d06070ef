import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import test from 'ava';
import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';
import { pino } from 'pino';
import { enqueue } from '../../jobs/queue.js';
import { inTx } from '../../db/data-source.js';
import { startCronClock } from '../../workers/cron-clock.js';

const never = '0001-01-01T00:00:00Z';

async function hasBlob(hearth: TestHearth, key: string): Promise<boolean> {
  try {
    (await hearth.deps.blobs.get(key)).destroy();
    return true;
  } catch {
    return false;
  }
}

async function putBlob(hearth: TestHearth, key: string): Promise<void> {
  await hearth.deps.blobs.put(key, Readable.from([Buffer.from(key)]));
}

test('admin cron lists every periodic task with Gitea shape; a run moves prev, next and exec_times; unknown tasks 404; plain users refused', async (t) => {
  const hearth = await startHearth(t, { 'HEARTH__cron.update_mirrors__SCHEDULE': '@every 10m', 'HEARTH__cron.cleanup_packages__ENABLED': 'false' });
  const root = await hearth.createUser('root', { admin: true });
  const alice = await hearth.createUser('alice');

  const listed = await hearth.call('GET', '/admin/cron', { auth: root.bearer });
  t.is(listed.status, 200);
  t.is(listed.headers.get('x-total-count'), '7');
  t.deepEqual(listed.body.map((task: { name: string }) => task.name), [
    'cleanup_hook_task_table', 'cleanup_packages', 'delete_old_notifications', 'delete_unlinked_attachments', 'queue_maintenance',
    'start_schedule_tasks', 'update_mirrors',
  ]);
  const byName = (body: Array<{ name: string }>, name: string) => body.find((task) => task.name === name) as Record<string, unknown>;
  const mirrors = byName(listed.body, 'update_mirrors');
  t.like(mirrors, { schedule: '*/10 * * * *', prev: never, exec_times: 0 });
  const next = Date.parse(mirrors.next as string);
  t.true(next > Date.now() && next <= Date.now() + 10 * 60_000);
  t.is(new Date(next).getUTCMinutes() % 10, 0);
  t.like(byName(listed.body, 'cleanup_packages'), { schedule: '-', next: never }, 'not enabled: no schedule, no next run');
  t.like(byName(listed.body, 'cleanup_hook_task_table'), { schedule: '0 0 * * *' });
  t.is((await hearth.call('GET', '/admin/cron?limit=2&page=2', { auth: root.bearer })).body.length, 2);

  // the clock (node-cron in each worker) sends enabled tasks only
  const clock = startCronClock(hearth.store, hearth.config, pino({ level: 'silent' }));
  t.teardown(() => clock.stop());
  t.deepEqual(clock.scheduled.map((s) => [s.job, s.cron]).sort(), [
    ['cleanup-attachments', '0 0 * * *'], ['cleanup-hook-tasks', '0 0 * * *'], ['queue-maintenance', '7 * * * *'],
    ['start-schedule-tasks', '* * * * *'], ['update-mirrors', '*/10 * * * *'],
  ]);
  // two workers' clocks queue the same slot: it runs once; the next slot runs again
  const slot = '2026-01-01T00:00:00.000Z';
  await inTx(hearth.store, (tx) => enqueue(tx, 'update-mirrors', { slot }));
  t.deepEqual((await drain(hearth)).map((job) => job.outcome), ['skipped'], 'nothing due, but the slot is taken');
  await inTx(hearth.store, (tx) => enqueue(tx, 'update-mirrors', { slot }));
  await drain(hearth);
  t.like(byName((await hearth.call('GET', '/admin/cron', { auth: root.bearer })).body, 'update_mirrors'), { exec_times: 1 }, 'the same slot again did not run');
  await inTx(hearth.store, (tx) => enqueue(tx, 'update-mirrors', { slot: '2026-01-01T00:10:00.000Z' }));
  await drain(hearth);
  t.like(byName((await hearth.call('GET', '/admin/cron', { auth: root.bearer })).body, 'update_mirrors'), { exec_times: 2 });

  const before = Date.now();
  t.is((await hearth.call('POST', '/admin/cron/queue_maintenance', { auth: alice.bearer })).status, 403);
  t.deepEqual(await drain(hearth), [], 'a refused run queues nothing');
  t.is((await hearth.call('POST', '/admin/cron/queue_maintenance', { auth: root.bearer })).status, 204);
  t.is((await hearth.call('POST', '/admin/cron/queue_maintenance', { auth: root.bearer })).status, 204);
  t.deepEqual((await drain(hearth)).map((job) => [job.name, job.outcome]), [['queue-maintenance', 'done']], 'a run asked while one waits folds into it');
  t.is((await hearth.call('POST', '/admin/cron/cleanup_packages', { auth: root.bearer })).status, 204, 'a task not enabled still runs on demand');
  t.deepEqual((await drain(hearth)).map((job) => [job.name, job.outcome]), [['cleanup-packages', 'skipped']]);
  t.is((await hearth.call('POST', '/admin/cron/queue_maintenance', { auth: root.bearer })).status, 204);
  await drain(hearth);

  const after = await hearth.call('GET', '/admin/cron', { auth: root.bearer });
  const ran = byName(after.body, 'queue_maintenance');
  t.is(ran.exec_times, 2);
  t.true(Date.parse(ran.prev as string) >= before - 1000 && Date.parse(ran.prev as string) <= Date.now() + 1000);
  t.true(Date.parse(ran.next as string) > Date.now());
  t.like(byName(after.body, 'cleanup_packages'), { exec_times: 1 });
  t.like(byName(after.body, 'update_mirrors'), { exec_times: 2 });

  const unknown = await hearth.call('POST', '/admin/cron/repo_health_check', { auth: root.bearer });
  t.is(unknown.status, 404);
  t.like(unknown.body, { message: 'The target couldn\'t be found.' });
  t.truthy(unknown.body.url);
  t.deepEqual(await drain(hearth), []);
  t.is((await hearth.call('GET', '/admin/cron', { auth: alice.bearer })).status, 403);
  t.is((await hearth.call('GET', '/admin/cron')).status, 401);
  const reader = await hearth.createUser('reader', { admin: true, scopes: ['read:admin'] });
  t.is((await hearth.call('GET', '/admin/cron', { auth: reader.bearer })).status, 200);
  t.is((await hearth.call('POST', '/admin/cron/queue_maintenance', { auth: reader.bearer })).status, 403, 'an admin token without write:admin');
  const other = await hearth.createUser('other', { admin: true, scopes: ['read:user'] });
  t.is((await hearth.call('GET', '/admin/cron', { auth: other.bearer })).status, 403, 'an admin token without an admin scope');
  t.deepEqual(await drain(hearth), []);
  t.like(byName((await hearth.call('GET', '/admin/cron', { auth: root.bearer })).body, 'queue_maintenance'), { exec_times: 2 });
});

test('the cleanups delete what is past its retention and keep everything else', async (t) => {
  const hearth = await startHearth(t, {
    'HEARTH__cron.delete_old_notifications__OLDER_THAN': '720h',
  });
  const root = await hearth.createUser('root', { admin: true });
  const alice = await hearth.createUser('alice');
  const repo = await build.repo(hearth, alice, { name: 'app' });
  const issue = await build.issue(hearth, repo);
  const db = hearth.store.db;
  const run = async (task: string): Promise<void> => {
    t.is((await hearth.call('POST', `/admin/cron/${task}`, { auth: root.bearer })).status, 204);
    await drain(hearth);
  };

  // hook tasks: delivered and older than 168h go; recent, or never delivered however old, stay
  const hook = await build.hook(hearth, { repoId: repo.id }, { url: 'http://example.invalid/hook' });
  const task = async (label: string, delivered: string | null, created: string): Promise<void> => {
    await db.query(
      `INSERT INTO hook_task (hook_id, repo_id, uuid, event_type, payload, is_delivered, is_succeed, created, delivered)
       VALUES ($1, $2, $3, 'push', $4, $5, $5, now() - $6::interval, now() - $7::interval)`,
      [hook.id, repo.id, randomUUID(), label, delivered !== null, created, delivered ?? '0'],
    );
  };
  await task('old-delivered', '200 hours', '200 hours');
  await task('recent-delivered', '1 hour', '300 hours');
  await task('old-waiting', null, '400 hours');
  await run('cleanup_hook_task_table');
  const hookPayloads = async (): Promise<string[]> =>
    (await db.query<{ payload: string }>('SELECT payload FROM hook_task ORDER BY payload')).map((row) => row.payload);
  t.deepEqual(await hookPayloads(), ['old-waiting', 'recent-delivered']);

  // notifications: read and untouched for 720h go; unread and pinned ones of that age, and recently read ones, stay
  const bob = await hearth.createUser('bob');
  const carol = await hearth.createUser('carol');
  const dave = await hearth.createUser('dave');
  const note = async (user: number, status: number, age: string): Promise<void> => {
    await db.query(`INSERT INTO notification (user_id, repo_id, status, source, issue_id, updated) VALUES ($1, $2, $3, 1, $4, now() - $5::interval)`,
      [user, repo.id, status, issue.id, age]);
  };
  await note(alice.user.id, 2, '800 hours');
  await note(bob.user.id, 2, '10 hours');
  await note(carol.user.id, 1, '800 hours');
  await note(dave.user.id, 3, '800 hours');
  await run('delete_old_notifications');
  t.deepEqual((await db.query<{ user_id: number }>('SELECT user_id::int FROM notification ORDER BY user_id')).map((row) => row.user_id),
    [bob.user.id, carol.user.id, dave.user.id]);

  // attachments: unlinked for over 24h go with their files; linked ones and fresh uploads stay
  const attachment = async (age: string, issueId: number | null): Promise<string> => {
    const uuid = randomUUID();
    await putBlob(hearth, uuid);
    await db.query(`INSERT INTO attachment (uuid, repo_id, issue_id, uploader_id, name, size, created) VALUES ($1, $2, $3, $4, 'a.txt', 36, now() - $5::interval)`,
      [uuid, repo.id, issueId, alice.user.id, age]);
    return uuid;
  };
  const stale = await attachment('30 hours', null);
  const fresh = await attachment('1 hour', null);
  const linked = await attachment('300 hours', issue.id);
  await run('delete_unlinked_attachments');
  t.deepEqual((await db.query<{ uuid: string }>('SELECT uuid::text FROM attachment')).map((row) => row.uuid).sort(), [fresh, linked].sort());
  t.false(await hasBlob(hearth, stale));
  t.true(await hasBlob(hearth, fresh));
  t.true(await hasBlob(hearth, linked));

  // package blobs: unreferenced for over 24h go with their bytes; a blob a file names, or a fresh one, stays
  const blob = async (hash: string, age: string): Promise<{ id: number; key: string }> => {
    const key = `${hash}.blob`;
    await putBlob(hearth, key);
    const [row] = await db.query<{ id: number }>(
      `INSERT INTO package_blob (blob_key, size, hash_md5, hash_sha1, hash_sha256, hash_sha512, created) VALUES ($1, 1, '', '', $2, '', now() - $3::interval) RETURNING id::int`,
      [key, hash, age]);
    return { id: row.id, key };
  };
  const orphan = await blob('a'.repeat(64), '48 hours');
  const young = await blob('b'.repeat(64), '1 hour');
  const used = await blob('c'.repeat(64), '48 hours');
  const [pkg] = await db.query<{ id: number }>(`INSERT INTO package (owner_id, type, name, lower_name) VALUES ($1, 'generic', 'tool', 'tool') RETURNING id::int`, [alice.user.id]);
  const [version] = await db.query<{ id: number }>(`INSERT INTO package_version (package_id, version, lower_version) VALUES ($1, '1.0', '1.0') RETURNING id::int`, [pkg.id]);
  await db.query(`INSERT INTO package_file (version_id, blob_id, name, lower_name) VALUES ($1, $2, 'tool.tgz', 'tool.tgz')`, [version.id, used.id]);
  await run('cleanup_packages');
  t.deepEqual((await db.query<{ id: number }>('SELECT id::int FROM package_blob ORDER BY id')).map((row) => row.id), [young.id, used.id]);
  t.false(await hasBlob(hearth, orphan.key));
  t.true(await hasBlob(hearth, young.key));
  t.true(await hasBlob(hearth, used.key));
});

test('cleanup_hook_task_table with CLEANUP_TYPE PerWebhook keeps each hook\'s newest delivered tasks', async (t) => {
  const hearth = await startHearth(t, {
    'HEARTH__cron.cleanup_hook_task_table__CLEANUP_TYPE': 'PerWebhook', 'HEARTH__cron.cleanup_hook_task_table__NUMBER_TO_KEEP': '2',
  });
  const root = await hearth.createUser('root', { admin: true });
  const alice = await hearth.createUser('alice');
  const repo = await build.repo(hearth, alice, { name: 'app' });
  const first = await build.hook(hearth, { repoId: repo.id }, { url: 'http://example.invalid/one' });
  const second = await build.hook(hearth, { repoId: repo.id }, { url: 'http://example.invalid/two' });
  for (const [hook, labels] of [[first, ['1a', '1b', '1c', '1d']], [second, ['2a']]] as const) {
    for (const label of labels) {
      await hearth.store.db.query(
        `INSERT INTO hook_task (hook_id, repo_id, uuid, event_type, payload, is_delivered, delivered) VALUES ($1, $2, $3, 'push', $4, $5, now())`,
        [hook.id, repo.id, randomUUID(), label, label !== '1a'],
      );
    }
  }
  t.is((await hearth.call('POST', '/admin/cron/cleanup_hook_task_table', { auth: root.bearer })).status, 204);
  await drain(hearth);
  const left = await hearth.store.db.query<{ payload: string }>('SELECT payload FROM hook_task ORDER BY payload');
  t.deepEqual(left.map((row) => row.payload), ['1a', '1c', '1d', '2a'], 'the waiting task stays; of the delivered ones, each hook keeps its two newest');
});
