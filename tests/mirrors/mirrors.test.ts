import { existsSync } from 'node:fs';
import { Writable } from 'node:stream';
import test from 'ava';
import { pino } from 'pino';
import type { RepoRow } from '../../db/models/repos/repo-row.js';
import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';
import { refOnServer, remote } from '../git/git-client.js';

const openNetwork = { HEARTH__migrations__ALLOW_LOCALNETWORKS: 'true' };

/** Every log line the actors and routes write, from now on. */
function captureLogs(hearth: TestHearth): string[] {
  const lines: string[] = [];
  const sink = new Writable({ write(chunk, _encoding, done) { lines.push(String(chunk)); done(); } });
  hearth.deps.log = pino({ level: 'debug' }, sink);
  return lines;
}

/** The payloads of every job pg-boss holds or has archived. */
async function jobRows(hearth: TestHearth): Promise<string> {
  const rows = await hearth.store.db.query<{ data: string }>(
    `SELECT data::text AS data FROM pgboss.job UNION ALL SELECT data::text FROM pgboss.archive`,
  );
  return rows.map((r) => r.data).join('\n');
}

async function setUp(t: Parameters<typeof startHearth>[0], settings: Record<string, string> = openNetwork) {
  const hearth = await startHearth(t, settings);
  const alice = await hearth.createUser('alice');
  const source = await build.repo(hearth, alice, { name: 'source', autoInit: true, private: true });
  await drain(hearth);
  return { hearth, alice, source };
}

test('a pull mirror of a private loopback repository: migrating until the worker clones it, then synced on request, credentials nowhere', async (t) => {
  const { hearth, alice, source } = await setUp(t);
  const logs = captureLogs(hearth);
  const answers: unknown[] = [];
  const migrated = await hearth.call('POST', '/repos/migrate', {
    auth: alice.bearer,
    body: {
      clone_addr: remote(hearth, 'alice', 'source'), repo_name: 'copy', mirror: true, mirror_interval: '10m',
      auth_username: 'alice', auth_password: alice.token, service: 'git',
    },
  });
  answers.push(migrated.body);
  t.is(migrated.status, 201, JSON.stringify(migrated.body));
  t.like(migrated.body, { name: 'copy', mirror: true, empty: true, mirror_interval: '10m0s', original_url: remote(hearth, 'alice', 'source') });
  const [row] = await hearth.store.db.query<{ status: number; credentials: string }>(
    'SELECT r.status, m.credentials FROM repository r JOIN mirror m ON m.repo_id = r.id WHERE r.name = $1', ['copy'],
  );
  t.is(row.status, 1);
  t.true(row.credentials.startsWith('v1:'));
  t.false(row.credentials.includes(alice.token));

  await drain(hearth);
  const head = await refOnServer(hearth, 'alice', 'source', 'refs/heads/main');
  t.is(await refOnServer(hearth, 'alice', 'copy', 'refs/heads/main'), head);
  const ready = await hearth.call('GET', '/repos/alice/copy', { auth: alice.bearer });
  answers.push(ready.body);
  t.like(ready.body, { empty: false, default_branch: 'main', mirror: true });
  t.not(ready.body.mirror_updated, '1970-01-01T00:00:00Z');
  t.is(ready.body.mirror_last_error, '');
  const due = Date.parse(ready.body.mirror_next_update) - Date.parse(ready.body.mirror_updated);
  t.true(due >= 599_000 && due <= 601_000, `next update ${ready.body.mirror_next_update} is 10m after ${ready.body.mirror_updated}`);
  const plain = await hearth.call('GET', '/repos/alice/source', { auth: alice.bearer });
  t.false('mirror_next_update' in plain.body || 'mirror_last_error' in plain.body, 'only mirrors carry the mirror fields');
  const [status] = await hearth.store.db.query<{ status: number }>('SELECT status FROM repository WHERE name = $1', ['copy']);
  t.is(status.status, 0);

  // A commit on the source appears after POST /mirror-sync, with its branch row and push event.
  const next = await build.commit(hearth, source, { files: { 'b.txt': 'b' } });
  const sync = await hearth.call('POST', '/repos/alice/copy/mirror-sync', { auth: alice.bearer });
  t.is(sync.status, 200);
  await drain(hearth);
  t.is(await refOnServer(hearth, 'alice', 'copy', 'refs/heads/main'), next.commitId);
  const [branch] = await hearth.store.db.query<{ commit_id: string }>(
    `SELECT b.commit_id FROM branch b JOIN repository r ON r.id = b.repo_id WHERE r.name = 'copy' AND b.name = 'main'`,
  );
  t.is(branch.commit_id, next.commitId);
  const events = await hearth.store.db.query<{ payload: { after: string } }>(
    `SELECT e.payload FROM domain_event e JOIN repository r ON r.id = e.repo_id WHERE r.name = 'copy' AND e.kind = 'push'`,
  );
  t.deepEqual(events.map((e) => e.payload.after), [next.commitId]);

  // A second run changes nothing: no new event.
  await hearth.call('POST', '/repos/alice/copy/mirror-sync', { auth: alice.bearer });
  await drain(hearth);
  const again = await hearth.store.db.query(`SELECT 1 FROM domain_event e JOIN repository r ON r.id = e.repo_id WHERE r.name = 'copy' AND e.kind = 'push'`);
  t.is(again.length, 1);

  // A pull mirror refuses writes to its git data.
  const write = await hearth.call('POST', '/repos/alice/copy/contents/c.txt', { auth: alice.bearer, body: { content: Buffer.from('c').toString('base64') } });
  t.is(write.status, 403);
  answers.push(write.body);

  const haystack = [JSON.stringify(answers), await jobRows(hearth), logs.join('\n')].join('\n');
  t.false(haystack.includes(alice.token));
  const repoDir = hearth.deps.git.pathOf('alice', 'copy');
  t.true(existsSync(repoDir));
});

test('refused sources answer 422 and create nothing; a clone that fails removes the repository and records why', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  await build.repo(hearth, alice, { name: 'source', autoInit: true });
  const loopback = await hearth.call('POST', '/repos/migrate', { auth: alice.bearer, body: { clone_addr: remote(hearth, 'alice', 'source'), repo_name: 'copy' } });
  t.is(loopback.status, 422);
  t.is(loopback.body.message, 'You can not import from disallowed hosts.');
  const local = await hearth.call('POST', '/repos/migrate', { auth: alice.bearer, body: { clone_addr: '/etc', repo_name: 'copy' } });
  t.is(local.status, 422);
  t.is(local.body.message, 'You are not allowed to import local repositories.');
  const bad = await hearth.call('POST', '/repos/migrate', { auth: alice.bearer, body: { clone_addr: 'ftp://example.com/x.git', repo_name: 'copy' } });
  t.is(bad.status, 422);
  t.is((await hearth.call('GET', '/repos/alice/copy', { auth: alice.bearer })).status, 404);
  // A push-mirror target is checked as a source is, and refused alike; a malformed one is Gitea's 400.
  const target = await hearth.call('POST', '/repos/alice/source/push_mirrors', { auth: alice.bearer, body: { remote_address: remote(hearth, 'alice', 'x'), interval: '8h' } });
  t.is(target.status, 422);
  t.is(target.body.message, 'You can not import from disallowed hosts.');
  t.is((await hearth.call('POST', '/repos/alice/source/push_mirrors', { auth: alice.bearer, body: { remote_address: 'ftp://example.com/x.git' } })).status, 400);
  t.is((await hearth.call('GET', '/repos/alice/source/push_mirrors', { auth: alice.bearer })).body.length, 0);

  const blocked = await startHearth(t, { ...openNetwork, HEARTH__migrations__BLOCKED_DOMAINS: '127.0.0.*' });
  const bob = await blocked.createUser('bob');
  const refused = await blocked.call('POST', '/repos/migrate', { auth: bob.bearer, body: { clone_addr: remote(blocked, 'bob', 'x'), repo_name: 'copy' } });
  t.is(refused.status, 422);

  const open = await startHearth(t, openNetwork);
  const carol = await open.createUser('carol');
  const missing = await open.call('POST', '/repos/migrate', {
    auth: carol.bearer, body: { clone_addr: remote(open, 'carol', 'nothing'), repo_name: 'copy', auth_username: 'carol', auth_password: carol.token },
  });
  t.is(missing.status, 201);
  await drain(open);
  t.is((await open.call('GET', '/repos/carol/copy', { auth: carol.bearer })).status, 404);
  t.false(existsSync(open.deps.git.pathOf('carol', 'copy')));
  const [task] = await open.store.db.query<{ status: string; message: string; credentials: string | null }>('SELECT status, message, credentials FROM migration_task');
  t.is(task.status, 'failed');
  t.regex(task.message, /git .* failed/);
  t.is(task.credentials, null);
  t.false(task.message.includes(carol.token));
});

test('prune follows enable_prune; mirror settings are validated; a due mirror is synced by the clock', async (t) => {
  const { hearth, alice, source } = await setUp(t);
  const root = await hearth.createUser('root', { admin: true });
  await build.branch(hearth, source, { name: 'feature' });
  await drain(hearth);
  const made = await hearth.call('POST', '/repos/migrate', {
    auth: alice.bearer,
    body: { clone_addr: remote(hearth, 'alice', 'source'), repo_name: 'copy', mirror: true, auth_username: 'alice', auth_password: alice.token },
  });
  t.is(made.status, 201);
  t.is(made.body.mirror_interval, '8h0m0s');
  await drain(hearth);
  t.truthy(await refOnServer(hearth, 'alice', 'copy', 'refs/heads/feature'));

  t.is((await hearth.call('PATCH', '/repos/alice/copy', { auth: alice.bearer, body: { mirror_interval: '1m' } })).status, 422);
  t.is((await hearth.call('PATCH', '/repos/alice/copy', { auth: alice.bearer, body: { mirror_interval: 'soon' } })).status, 422);
  t.is((await hearth.call('PATCH', '/repos/alice/source', { auth: alice.bearer, body: { enable_prune: false } })).status, 422);
  t.is((await hearth.call('POST', '/repos/alice/source/mirror-sync', { auth: alice.bearer })).status, 400);
  const edited = await hearth.call('PATCH', '/repos/alice/copy', { auth: alice.bearer, body: { enable_prune: false } });
  t.is(edited.status, 200);

  await hearth.call('DELETE', '/repos/alice/source/branches/feature', { auth: alice.bearer });
  await drain(hearth);
  await hearth.call('POST', '/repos/alice/copy/mirror-sync', { auth: alice.bearer });
  await drain(hearth);
  t.truthy(await refOnServer(hearth, 'alice', 'copy', 'refs/heads/feature'), 'kept without prune');

  await hearth.call('PATCH', '/repos/alice/copy', { auth: alice.bearer, body: { enable_prune: true, mirror_interval: '10m' } });
  // The clock: a mirror whose next update is due is synced without any request.
  await hearth.store.db.query(`UPDATE mirror SET next_update = now() - interval '1 minute'`);
  const cron = await hearth.call('GET', '/admin/cron', { auth: root.bearer });
  t.true(cron.body.some((task: { name: string }) => task.name === 'update_mirrors'));
  t.is((await hearth.call('POST', '/admin/cron/update_mirrors', { auth: root.bearer })).status, 204);
  const ran = await drain(hearth);
  t.true(ran.some((job) => job.name === 'mirror-sync' && job.outcome === 'done'));
  t.is(await refOnServer(hearth, 'alice', 'copy', 'refs/heads/feature'), null, 'pruned');
  const branches = await hearth.call('GET', '/repos/alice/copy/branches', { auth: alice.bearer });
  t.deepEqual(branches.body.map((b: { name: string }) => b.name), ['main']);
  const [mirror] = await hearth.store.db.query<{ due: boolean }>(`SELECT next_update > now() + interval '9 minutes' AS due FROM mirror`);
  t.true(mirror.due);
});

test('push mirrors: CRUD in Gitea shapes, sync_on_commit reaches the target with no further call, deletion stops pushes, failures recorded', async (t) => {
  const { hearth, alice, source } = await setUp(t);
  const logs = captureLogs(hearth);
  const bob = await hearth.createUser('bob');
  await build.repo(hearth, bob, { name: 'target' });
  const answers: unknown[] = [];
  const bad = await hearth.call('POST', '/repos/alice/source/push_mirrors', { auth: alice.bearer, body: { remote_address: remote(hearth, 'bob', 'target'), interval: '1m' } });
  t.is(bad.status, 400);
  const made = await hearth.call('POST', '/repos/alice/source/push_mirrors', {
    auth: alice.bearer,
    body: { remote_address: remote(hearth, 'bob', 'target'), remote_username: 'bob', remote_password: bob.token, interval: '8h', sync_on_commit: true },
  });
  answers.push(made.body);
  t.is(made.status, 200, JSON.stringify(made.body));
  t.like(made.body, { repo_name: 'source', remote_address: remote(hearth, 'bob', 'target'), interval: '8h0m0s', sync_on_commit: true, last_error: '', last_update: null });
  t.regex(made.body.remote_name, /^remote_mirror_[A-Za-z0-9]{10}$/);
  const list = await hearth.call('GET', '/repos/alice/source/push_mirrors', { auth: alice.bearer });
  answers.push(list.body);
  t.is(list.body.length, 1);
  t.is(list.headers.get('x-total-count'), '1');
  t.is((await hearth.call('GET', `/repos/alice/source/push_mirrors/${made.body.remote_name}`, { auth: bob.bearer })).status, 404);

  const next = await build.commit(hearth, source, { files: { 'n.txt': 'n' } });
  await drain(hearth);
  t.is(await refOnServer(hearth, 'bob', 'target', 'refs/heads/main'), next.commitId);
  const one = await hearth.call('GET', `/repos/alice/source/push_mirrors/${made.body.remote_name}`, { auth: alice.bearer });
  answers.push(one.body);
  t.not(one.body.last_update, null);

  // Wrong credentials: the failure is recorded on the mirror, without the secret.
  const wrong = await hearth.call('POST', '/repos/alice/source/push_mirrors', {
    auth: alice.bearer,
    body: { remote_address: remote(hearth, 'bob', 'target'), remote_username: 'bob', remote_password: 'not-bobs-password-123', interval: '0' },
  });
  t.is(wrong.status, 200);
  t.is((await hearth.call('POST', '/repos/alice/source/push_mirrors-sync', { auth: alice.bearer })).status, 200);
  await drain(hearth);
  const failed = await hearth.call('GET', `/repos/alice/source/push_mirrors/${wrong.body.remote_name}`, { auth: alice.bearer });
  answers.push(failed.body);
  t.not(failed.body.last_error, '');

  t.is((await hearth.call('DELETE', `/repos/alice/source/push_mirrors/${made.body.remote_name}`, { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('DELETE', `/repos/alice/source/push_mirrors/${made.body.remote_name}`, { auth: alice.bearer })).status, 404);
  await hearth.call('DELETE', `/repos/alice/source/push_mirrors/${wrong.body.remote_name}`, { auth: alice.bearer });
  const later = await build.commit(hearth, source, { files: { 'm.txt': 'm' } });
  const ran = await drain(hearth);
  // A retry of the failed push may come due meanwhile: it finds no mirror and is skipped.
  t.false(ran.some((job) => job.name === 'push-mirror' && job.outcome !== 'skipped'));
  t.not(await refOnServer(hearth, 'bob', 'target', 'refs/heads/main'), later.commitId);

  const haystack = [JSON.stringify(answers), await jobRows(hearth), logs.join('\n')].join('\n');
  t.false(haystack.includes(bob.token));
  t.false(haystack.includes('not-bobs-password-123'));
});

test('a migration from a Gitea-speaking source reads its releases through its API, with the same credentials', async (t) => {
  const { hearth, alice, source } = await setUp(t);
  await build.release(hearth, source, { tag: 'v1', title: 'First', note: 'the notes', prerelease: true });
  // the source's HEAD names another branch than main: the copy's default branch and HEAD follow it
  await build.branch(hearth, source, { name: 'develop' });
  t.is((await hearth.call('PATCH', '/repos/alice/source', { auth: alice.bearer, body: { default_branch: 'develop' } })).status, 200);
  await drain(hearth);
  const made = await hearth.call('POST', '/repos/migrate', {
    auth: alice.bearer,
    body: {
      clone_addr: remote(hearth, 'alice', 'source'), repo_name: 'copy', service: 'gitea', releases: true, issues: true,
      auth_username: 'alice', auth_password: alice.token,
    },
  });
  t.is(made.status, 201);
  t.false(made.body.mirror);
  await drain(hearth);
  const releases = await hearth.call('GET', '/repos/alice/copy/releases', { auth: alice.bearer });
  t.is(releases.status, 200);
  t.is(releases.body.length, 1);
  t.like(releases.body[0], { tag_name: 'v1', name: 'First', body: 'the notes', prerelease: true, draft: false });
  const [task] = await hearth.store.db.query<{ status: string }>('SELECT status FROM migration_task');
  t.is(task.status, 'finished');
  t.is((await hearth.call('GET', '/repos/alice/copy', { auth: alice.bearer })).body.default_branch, 'develop');
  t.is(await hearth.deps.git.open((await hearth.store.db.query<RepoRow>(`SELECT * FROM repository WHERE name = 'copy'`))[0]).readHeadBranch(), 'develop');
});
