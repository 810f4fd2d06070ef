import { spawn } from 'node:child_process';
import net from 'node:net';
import test from 'ava';
import { inTx } from '../../db/data-source.js';
import { enqueueDueMirrors, syncPullMirror } from '../../db/models/mirrors/pull-mirrors.js';
import { leaseFree } from '../../db/models/mirrors/sync-lease.js';
import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import { startHearth } from '../helpers/hearth.js';
import { root } from '../helpers/processes.js';
import { refOnServer, remote } from '../git/git-client.js';


/**
 * A loopback proxy to Hearth whose first connection hangs (a source that stalls mid-fetch); later ones pass.
 * `stalled` resolves when that first connection arrives.
 */
async function stallingProxy(t: Parameters<typeof startHearth>[0], targetPort: number) {
  let first = true;
  let hung: net.Socket | null = null;
  let onStall!: () => void;
  const stalled = new Promise<void>((resolve) => (onStall = resolve));
  const server = net.createServer((socket) => {
    if (first) {
      first = false;
      hung = socket;
      socket.on('error', () => undefined);
      onStall();
      return;
    }
    const upstream = net.connect(targetPort, '127.0.0.1');
    socket.pipe(upstream).pipe(socket);
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    hung?.destroy();
    server.close();
  });
  return { port: (server.address() as net.AddressInfo).port, stalled, release: () => hung?.destroy() };
}

test('a worker killed in the middle of a sync leaves the mirror syncable at once: its lease is free, a new sync is queued and runs', async (t) => {
  const hearth = await startHearth(t, { HEARTH__migrations__ALLOW_LOCALNETWORKS: 'true' });
  const alice = await hearth.createUser('alice');
  const source = await build.repo(hearth, alice, { name: 'source', autoInit: true });
  await drain(hearth);
  const made = await hearth.call('POST', '/repos/migrate', {
    auth: alice.bearer, body: { clone_addr: remote(hearth, 'alice', 'source'), repo_name: 'copy', mirror: true },
  });
  t.is(made.status, 201);
  await drain(hearth);

  const proxy = await stallingProxy(t, Number(new URL(hearth.rootUrl).port));
  await hearth.store.db.query('UPDATE mirror SET remote_address = $1', [`http://127.0.0.1:${proxy.port}/alice/source.git`]);
  const next = await build.commit(hearth, source, { files: { 'k.txt': 'k' } });
  await drain(hearth, 'branch-sync');
  t.is((await hearth.call('POST', '/repos/alice/copy/mirror-sync', { auth: alice.bearer })).status, 200);

  // A real worker process takes the job and stalls inside git fetch, holding the mirror's lease but no row lock.
  const worker = spawn(process.execPath, ['--import', 'tsx', 'workers/worker.ts'], {
    cwd: root,
    detached: true,
    stdio: 'ignore',
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: hearth.databaseUrl,
      HEARTH_DATA_DIR: hearth.config.dataDir,
      HEARTH__security__SECRET_KEY: hearth.config.security.secretKey,
      HEARTH__migrations__ALLOW_LOCALNETWORKS: 'true',
      HEARTH_ACTORS: 'mirror-sync',
      LOG_LEVEL: 'silent',
    },
  });
  t.teardown(() => {
    try {
      process.kill(-worker.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  });
  await Promise.race([proxy.stalled, new Promise((_, reject) => setTimeout(() => reject(new Error('the worker never fetched')), 60_000))]);
  t.is((await hearth.store.db.query('SELECT 1 FROM mirror FOR UPDATE SKIP LOCKED')).length, 1, 'no row lock during the fetch');
  const [leased] = await hearth.store.db.query<{ held: boolean }>(`SELECT lease_until > now() AND lease_worker IS NOT NULL AS held FROM mirror`);
  t.true(leased.held, 'the sync holds the lease');
  // A second sync meanwhile (run here, or by the worker's other loop) does not fetch: it asks the holder for one more run.
  t.is((await hearth.call('POST', '/repos/alice/copy/mirror-sync', { auth: alice.bearer })).status, 200);
  let rerun = false;
  for (let i = 0; i < 100 && !rerun; i++) {
    t.true((await drain(hearth, 'mirror-sync')).every((job) => job.outcome === 'skipped'));
    [{ rerun }] = await hearth.store.db.query<{ rerun: boolean }>('SELECT rerun FROM mirror');
    if (!rerun) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  t.true(rerun);

  // Kill the worker and everything it started (git included), as a crash or an OOM kill would.
  process.kill(-worker.pid!, 'SIGKILL');
  proxy.release();
  await new Promise((resolve) => worker.once('exit', resolve));

  // The lease is free once the dead worker's lock went with its connection, long before it expires; the job the
  // dead worker held does not block a new one.
  let free = false;
  for (let i = 0; i < 50 && !free; i++) {
    [{ free }] = await hearth.store.db.query<{ free: boolean }>(`SELECT ${leaseFree('mirror')} AS free FROM mirror`);
    if (!free) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  t.true(free);
  const [active] = await hearth.store.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'mirror-sync' AND state = 'active'`);
  // the stalled sync's job; the second one too when the worker died before writing its completion (a few ms late)
  t.true(active.n >= 1 && active.n <= 2, `the dead worker's job is still active until it expires (${active.n})`);
  t.is((await hearth.call('POST', '/repos/alice/copy/mirror-sync', { auth: alice.bearer })).status, 200);
  const ran = await drain(hearth, 'mirror-sync');
  t.deepEqual(ran.map((job) => job.outcome), ['done']);
  t.is(await refOnServer(hearth, 'alice', 'copy', 'refs/heads/main'), next.commitId);
  const [after] = await hearth.store.db.query<{ lease_token: string | null; rerun: boolean }>('SELECT lease_token, rerun FROM mirror');
  t.deepEqual(after, { lease_token: null, rerun: false });
});

test('a sync asked for while another holds the lease runs right after it, never beside it', async (t) => {
  const hearth = await startHearth(t, { HEARTH__migrations__ALLOW_LOCALNETWORKS: 'true' });
  const alice = await hearth.createUser('alice');
  const source = await build.repo(hearth, alice, { name: 'source', autoInit: true });
  await drain(hearth);
  t.is((await hearth.call('POST', '/repos/migrate', { auth: alice.bearer, body: { clone_addr: remote(hearth, 'alice', 'source'), repo_name: 'copy', mirror: true } })).status, 201);
  await drain(hearth);
  const [copy] = await hearth.store.db.query<{ id: number }>(`SELECT id FROM repository WHERE name = 'copy'`);
  const proxy = await stallingProxy(t, Number(new URL(hearth.rootUrl).port));
  await hearth.store.db.query('UPDATE mirror SET remote_address = $1', [`http://127.0.0.1:${proxy.port}/alice/source.git`]);
  const next = await build.commit(hearth, source, { files: { 'r.txt': 'r' } });
  await drain(hearth, 'branch-sync');

  // The first sync stalls in its fetch, holding the lease (and no transaction).
  const first = syncPullMirror(hearth.deps, copy.id, null);
  await proxy.stalled;
  t.is((await hearth.call('POST', '/repos/alice/copy/mirror-sync', { auth: alice.bearer })).status, 200);
  t.deepEqual((await drain(hearth, 'mirror-sync')).map((job) => job.outcome), ['skipped']);
  t.not(await refOnServer(hearth, 'alice', 'copy', 'refs/heads/main'), next.commitId);
  // The clock leaves a leased mirror to its sync, even when due.
  await hearth.store.db.query(`UPDATE mirror SET next_update = now() - interval '1 minute', interval_seconds = 600`);
  t.deepEqual(await inTx(hearth.store, (tx) => enqueueDueMirrors(tx)), { pull: 0, push: 0 });

  // The stalled fetch fails; its recording queues the sync asked for meanwhile, which then brings the commit.
  proxy.release();
  t.is(await first, 'done');
  const [failed] = await hearth.store.db.query<{ last_error: string; lease_token: string | null }>('SELECT last_error, lease_token FROM mirror');
  t.not(failed.last_error, '');
  t.is(failed.lease_token, null);
  t.deepEqual((await drain(hearth, 'mirror-sync')).map((job) => job.outcome), ['done']);
  t.is(await refOnServer(hearth, 'alice', 'copy', 'refs/heads/main'), next.commitId);
  const [after] = await hearth.store.db.query<{ last_error: string; rerun: boolean }>('SELECT last_error, rerun FROM mirror');
  t.deepEqual(after, { last_error: '', rerun: false });
});
