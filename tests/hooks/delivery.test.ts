import { createHmac } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import test from 'ava';
import { webhookDelivery } from '../../actors/webhook-delivery.js';
import { inTx } from '../../db/data-source.js';
import { emit } from '../../db/events/emit.js';
import { findDelivery, insertHookTasks } from '../../db/models/hooks/hook-tasks.js';
import { fetchClaimed } from '../../jobs/lost-jobs.js';
import { actorDeps } from '../../workers/subscribe.js';
import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';
import { startReceiver } from '../helpers/receiver.js';

const loopbackAllowed = { HEARTH__webhook__ALLOWED_HOST_LIST: 'loopback' };
const git = (dir: string, ...args: string[]): string => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8' }).trim();
const hmac = (algorithm: string, secret: string, body: string): string => createHmac(algorithm, secret).update(body).digest('hex');

async function eventually<T>(hearth: TestHearth, read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  for (const deadline = Date.now() + 15_000; ;) {
    const value = await read();
    if (ok(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function count(hearth: TestHearth, sql: string, params: unknown[] = []): Promise<number> {
  const [{ n }] = await hearth.store.db.query<{ n: number }>(`SELECT (${sql})::int AS n`, params);
  return n;
}

test('a push reaches a repository hook with Gitea 1.22 headers, signatures and payload, field by field', async (t) => {
  const hearth = await startHearth(t, loopbackAllowed);
  const receiver = await startReceiver(t);
  const alice = await hearth.createUser('alice');
  const repo = await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  const hook = await build.hook(hearth, { repoId: repo.id }, { url: receiver.url, secret: 'sssh' });
  await drain(hearth);
  const dir = hearth.deps.git.pathOf('alice', 'tool');
  const before = git(dir, 'rev-parse', 'main');

  const written = await build.commit(hearth, repo, { files: { 'a.txt': 'a', 'docs/b.md': 'b' }, message: 'Add files\n\nwith a body' });
  await drain(hearth);
  const [request] = await receiver.waitFor(1);
  t.is(receiver.requests.length, 1, 'push only: one delivery');
  const [task] = await hearth.store.db.query<{ uuid: string; is_delivered: boolean; is_succeed: boolean }>('SELECT uuid::text, is_delivered, is_succeed FROM hook_task WHERE hook_id = $1', [hook.id]);
  t.true(task.is_delivered && task.is_succeed);

  const h = request.headers;
  t.is(request.method, 'POST');
  t.is(h['content-type'], 'application/json');
  t.is(h['x-gitea-event'], 'push');
  t.is(h['x-gitea-event-type'], 'push');
  t.is(h['x-gitea-delivery'], task.uuid);
  t.is(h['x-gogs-event'], 'push');
  t.is(h['x-gogs-delivery'], task.uuid);
  t.is(h['x-github-event'], 'push');
  t.is(h['x-github-delivery'], task.uuid);
  t.is(h['x-gitea-signature'], hmac('sha256', 'sssh', request.body));
  t.is(h['x-gogs-signature'], hmac('sha256', 'sssh', request.body));
  t.is(h['x-hub-signature'], `sha1=${hmac('sha1', 'sssh', request.body)}`);
  t.is(h['x-hub-signature-256'], `sha256=${hmac('sha256', 'sssh', request.body)}`);
  t.true(request.body.startsWith('{\n  "ref": '), 'indented as Gitea marshals it');

  const p = request.json;
  t.deepEqual(Object.keys(p), ['ref', 'before', 'after', 'compare_url', 'commits', 'total_commits', 'head_commit', 'repository', 'pusher', 'sender']);
  t.is(p.ref, 'refs/heads/main');
  t.is(p.before, before);
  t.is(p.after, written.commitId);
  t.is(p.compare_url, `${hearth.rootUrl}alice/tool/compare/${before}...${written.commitId}`);
  t.is(p.total_commits, 1);
  t.is(p.commits.length, 1);
  const c = p.commits[0];
  t.deepEqual(Object.keys(c), ['id', 'message', 'url', 'author', 'committer', 'verification', 'timestamp', 'added', 'removed', 'modified']);
  t.is(c.id, written.commitId);
  t.is(c.message, 'Add files\n\nwith a body\n');
  t.is(c.url, `${hearth.rootUrl}alice/tool/commit/${written.commitId}`);
  t.deepEqual(c.author, { name: alice.user.full_name || 'alice', email: alice.user.email, username: 'alice' });
  t.deepEqual(c.committer, c.author);
  t.is(c.verification, null);
  t.regex(c.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)$/);
  t.deepEqual(c.added, ['a.txt', 'docs/b.md']);
  t.deepEqual(c.removed, []);
  t.deepEqual(c.modified, []);
  t.deepEqual(p.head_commit, c);
  t.like(p.repository, { id: repo.id, name: 'tool', full_name: 'alice/tool', permissions: { admin: true, push: true, pull: true } });
  t.like(p.pusher, { id: alice.user.id, login: 'alice', email: `alice@noreply.127.0.0.1` });
  t.deepEqual(p.sender, p.pusher);
});

test('a new branch sends create then push, a deleted branch delete; branch filters and event choices pick the hooks', async (t) => {
  const hearth = await startHearth(t, loopbackAllowed);
  const receiver = await startReceiver(t);
  const alice = await hearth.createUser('alice');
  const repo = await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  await build.hook(hearth, { repoId: repo.id }, { url: `${receiver.url}?all`, events: ['create', 'delete', 'push'] });
  await build.hook(hearth, { repoId: repo.id }, { url: `${receiver.url}?filtered`, events: ['push'], branch_filter: 'release/*' });
  await build.hook(hearth, { repoId: repo.id }, { url: `${receiver.url}?inactive`, events: ['push'], active: false });
  await drain(hearth);

  await build.branch(hearth, repo, { name: 'release/1' });
  await build.branch(hearth, repo, { name: 'feature' });
  await drain(hearth);
  const byHook = (query: string) => receiver.requests.filter((r) => r.path.endsWith(query)).map((r) => `${r.headers['x-gitea-event']}:${r.json.ref}`);
  t.deepEqual(byHook('?all').sort(), ['create:feature', 'create:release/1', 'push:refs/heads/feature', 'push:refs/heads/release/1']);
  t.deepEqual(byHook('?filtered'), ['push:refs/heads/release/1']);
  t.deepEqual(byHook('?inactive'), []);
  const create = receiver.requests.find((r) => r.headers['x-gitea-event'] === 'create' && r.json.ref === 'feature')!;
  t.deepEqual(Object.keys(create.json), ['sha', 'ref', 'ref_type', 'repository', 'sender']);
  t.is(create.json.ref_type, 'branch');
  t.is(create.json.sha, git(hearth.deps.git.pathOf('alice', 'tool'), 'rev-parse', 'feature'));
  t.like(create.json.repository.permissions, { admin: false, push: false, pull: false });
  const newBranchPush = receiver.requests.find((r) => r.headers['x-gitea-event'] === 'push' && r.json.ref === 'refs/heads/feature')!;
  t.is(newBranchPush.json.before, '0'.repeat(40));
  t.is(newBranchPush.json.total_commits, 1, 'a new branch lists its commits (the initial one here)');

  receiver.requests.length = 0;
  t.is((await hearth.call('DELETE', '/repos/alice/tool/branches/feature', { auth: alice.bearer })).status, 204);
  await drain(hearth);
  t.deepEqual(byHook('?all'), ['delete:feature']);
  t.deepEqual(Object.keys(receiver.requests[0].json), ['ref', 'ref_type', 'pusher_type', 'repository', 'sender']);
  t.like(receiver.requests[0].json, { ref_type: 'branch', pusher_type: 'user' });
});

test('a receiver that fails with 5xx is retried with the same delivery id until it succeeds; each attempt is in the delivery log', async (t) => {
  const hearth = await startHearth(t, loopbackAllowed);
  const receiver = await startReceiver(t);
  const alice = await hearth.createUser('alice');
  const repo = await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  const hook = await build.hook(hearth, { repoId: repo.id }, { url: receiver.url });
  await drain(hearth);
  let calls = 0;
  receiver.answer = () => (++calls === 1 ? { status: 503, body: 'busy' } : { status: 200, body: 'thanks' });
  await build.commit(hearth, repo, { files: { 'a.txt': 'a' } });
  await drain(hearth);
  t.is(receiver.requests.length, 1);
  const worker = await hearth.startWorker('webhook-delivery');
  const [first, second] = await receiver.waitFor(2, 40_000);
  await worker.drain();
  t.is(first.headers['x-gitea-delivery'], second.headers['x-gitea-delivery']);
  t.is(first.body, second.body);

  const log = await hearth.call('GET', `/repos/alice/tool/hooks/${hook.id}/deliveries`, { auth: alice.bearer });
  t.is(log.status, 200);
  t.is(log.body.length, 1);
  t.like(log.body[0], { uuid: first.headers['x-gitea-delivery'], event: 'push', event_type: 'push', delivered: true, succeeded: true, attempts: 2, refused: null });
  t.like(log.body[0].response, { status: 200, body: 'thanks' });
  t.is(log.body[0].request.url, receiver.url);
  t.is(log.body[0].request.body, second.body);
  t.true(log.body[0].duration_ms >= 0);
  const [task] = await hearth.store.db.query<{ attempts: Array<{ response: { status: number } }> }>('SELECT attempts FROM hook_task WHERE hook_id = $1', [hook.id]);
  t.deepEqual(task.attempts.map((a) => a.response.status), [503, 200]);

  // a delivered task is not sent again, however often its job runs
  const [{ id }] = await hearth.store.db.query<{ id: number }>('SELECT id::int FROM hook_task WHERE hook_id = $1', [hook.id]);
  t.is(await webhookDelivery.handle({ taskId: id }, actorDeps(hearth.store, hearth.config, hearth.deps.log)), 'skipped');
  t.is(receiver.requests.length, 2);

  const again = await hearth.call('POST', `/repos/alice/tool/hooks/${hook.id}/deliveries/${id}/redeliver`, { auth: alice.bearer });
  t.is(again.status, 201, JSON.stringify(again.body));
  t.not(again.body.uuid, first.headers['x-gitea-delivery']);
  await drain(hearth);
  t.is(receiver.requests.length, 3);
  t.is(receiver.requests[2].headers['x-gitea-delivery'], again.body.uuid);
  t.is(receiver.requests[2].body, first.body);
});

test('a fan-out through a running worker reaches every hook once; each task records its own attempt and each hook its own status', async (t) => {
  const hearth = await startHearth(t, loopbackAllowed);
  const receiver = await startReceiver(t);
  const alice = await hearth.createUser('alice');
  const repo = await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  const hooks = [];
  for (let i = 0; i < 24; i++) hooks.push(await build.hook(hearth, { repoId: repo.id }, { url: `${receiver.url}?${i}`, events: ['release'] }));
  await drain(hearth);
  // the last hook's receiver is down: its delivery is retried later, the others are not held by it
  receiver.answer = (req) => (req.path.endsWith('?23') ? { status: 503, body: 'down' } : { status: 200, body: 'ok' });
  await build.release(hearth, repo, { tag: 'v1', title: 'fan-out' });
  await drain(hearth, 'branch-sync');
  await drain(hearth, 'notify');
  const worker = await hearth.startWorker('webhook-delivery');
  const requests = await receiver.waitFor(24, 30_000);
  const tasks = await eventually(hearth, () => hearth.store.db.query<{ hook_id: number; is_delivered: boolean; is_succeed: boolean; statuses: number[]; uuid: string }>(
    `SELECT hook_id::int, is_delivered, is_succeed, uuid::text, ARRAY(SELECT (a->'response'->>'status')::int FROM jsonb_array_elements(attempts) a) AS statuses
       FROM hook_task ORDER BY hook_id`,
  ), (rows) => rows.length === 24 && rows.every((row) => row.statuses.length === 1));
  await worker.drain();
  t.deepEqual(requests.map((r) => Number(r.path.split('?')[1])).sort((a, b) => a - b), hooks.map((_, i) => i));
  t.deepEqual(requests.map((r) => String(r.headers['x-gitea-delivery'])).sort(), tasks.map((task) => task.uuid).sort(), 'each task went out once, with its own delivery id');
  for (const task of tasks.slice(0, 23)) t.like(task, { is_delivered: true, is_succeed: true, statuses: [200] });
  t.like(tasks[23], { is_delivered: false, is_succeed: false, statuses: [503] });
  const statuses = await hearth.store.db.query<{ last_status: number }>('SELECT last_status FROM webhook ORDER BY id');
  t.deepEqual(statuses.map((row) => row.last_status), [...Array(23).fill(1), 2]);
});

test('a loopback receiver is refused under the default allow-list: recorded with the reason, not retried', async (t) => {
  const hearth = await startHearth(t);
  const receiver = await startReceiver(t);
  const alice = await hearth.createUser('alice');
  const repo = await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  const hook = await build.hook(hearth, { repoId: repo.id }, { url: receiver.url.replace('127.0.0.1', 'localhost') });
  await build.commit(hearth, repo, { files: { 'a.txt': 'a' } });
  const drained = await drain(hearth);
  t.true(drained.some((d) => d.name === 'webhook-delivery' && d.outcome === 'skipped'));
  t.is(receiver.requests.length, 0);
  const [task] = await hearth.store.db.query<{ refused: string; is_delivered: boolean; is_succeed: boolean }>('SELECT refused, is_delivered, is_succeed FROM hook_task WHERE hook_id = $1', [hook.id]);
  t.regex(task.refused, /ALLOWED_HOST_LIST.*deny 'localhost\((127\.0\.0\.1|::1)\)'/);
  t.true(task.is_delivered);
  t.false(task.is_succeed);
  t.is(await count(hearth, `SELECT count(*) FROM pgboss.job WHERE name = 'webhook-delivery' AND state IN ('created', 'retry')`), 0);
});

test('a rolled-back change leaves no event, no notify job and no hook task', async (t) => {
  const hearth = await startHearth(t, loopbackAllowed);
  const alice = await hearth.createUser('alice');
  const repo = await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  await build.hook(hearth, { repoId: repo.id }, { url: 'http://127.0.0.1:9/hook', events: ['release'] });
  await drain(hearth);
  const events = await count(hearth, 'SELECT count(*) FROM domain_event');
  const jobs = await count(hearth, `SELECT count(*) FROM pgboss.job WHERE name = 'notify'`);
  await t.throwsAsync(inTx(hearth.store, async (tx) => {
    await emit(tx, { kind: 'release.published', repoId: repo.id, doerId: alice.user.id, payload: { release_id: 1, tag_name: 'v1' } });
    throw new Error('the change fails after its event');
  }), { message: /the change fails/ });
  t.is(await count(hearth, 'SELECT count(*) FROM domain_event'), events);
  t.is(await count(hearth, `SELECT count(*) FROM pgboss.job WHERE name = 'notify'`), jobs);
  await drain(hearth);
  t.is(await count(hearth, 'SELECT count(*) FROM hook_task'), 0);
});

test('the test endpoint delivers a push of the default branch head (or the ref given) and answers 204', async (t) => {
  const hearth = await startHearth(t, loopbackAllowed);
  const receiver = await startReceiver(t);
  const alice = await hearth.createUser('alice');
  const repo = await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  const hook = await build.hook(hearth, { repoId: repo.id }, { url: receiver.url, events: ['release'], contentType: 'form', secret: 'k' });
  await build.branch(hearth, repo, { name: 'side' });
  await drain(hearth);
  t.is(receiver.requests.length, 0);
  const head = git(hearth.deps.git.pathOf('alice', 'tool'), 'rev-parse', 'main');
  t.is((await hearth.call('POST', `/repos/alice/tool/hooks/${hook.id}/tests`, { auth: alice.bearer })).status, 204);
  await drain(hearth);
  const [request] = await receiver.waitFor(1);
  t.is(request.headers['content-type'], 'application/x-www-form-urlencoded');
  t.is(request.headers['x-gitea-signature'], hmac('sha256', 'k', request.body), 'the form body is what is signed');
  t.like(request.json, { ref: 'refs/heads/main', before: head, after: head, total_commits: 1 });
  t.is(request.json.compare_url, `${hearth.rootUrl}alice/tool/compare/${head}...${head}`);
  t.like(request.json.head_commit, { id: head, added: null, removed: null, modified: null });
  t.like(request.json.head_commit.verification, { verified: false, reason: 'gpg.error.not_signed_commit' });
  t.like(request.json.repository.permissions, { admin: false, push: false, pull: false });

  t.is((await hearth.call('POST', `/repos/alice/tool/hooks/${hook.id}/tests?ref=side`, { auth: alice.bearer })).status, 204);
  await drain(hearth);
  t.is((await receiver.waitFor(2))[1].json.ref, 'side');
  t.is((await hearth.call('POST', `/repos/alice/tool/hooks/${hook.id}/tests?ref=nope`, { auth: alice.bearer })).status, 404);
  t.is((await hearth.call('POST', `/repos/alice/tool/hooks/999/tests`, { auth: alice.bearer })).status, 404);
});

// Twin of the delivery claimed as it is inserted (insertHookTasks with a claiming worker, the fast path) and the
// delivery a worker fetches (fetchClaimed, then findDelivery): the same task must bring the same delivery and job.
test('a delivery claimed at insert is the delivery and job a worker would fetch for the same task', async (t) => {
  const hearth = await startHearth(t, loopbackAllowed);
  const alice = await hearth.createUser('alice');
  const repo = await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  const hook = await build.hook(hearth, { repoId: repo.id }, { url: 'http://127.0.0.1:9/hook', events: ['push'], secret: 's3cret' });
  await drain(hearth);
  const { db, boss } = hearth.store;
  const workerId = 7;
  const task = { hookId: hook.id, eventId: null, repoId: repo.id, eventType: 'push' as const, payload: '{"ref":"refs/heads/main"}' };
  const [claimed, ...others] = await insertHookTasks(db, hearth.config.webhook.deliverTimeoutSeconds, [{ ...task, claimed: true }, { ...task, claimed: false }], { claimingWorker: workerId });
  t.is(others.length, 0, 'only the task marked claimed is answered');
  const [fetchedJob, ...more] = await fetchClaimed(boss, 'webhook-delivery', 10, workerId);
  t.is(more.length, 0, 'the claimed job is not fetched again');
  const fetched = await findDelivery(db, (fetchedJob.data as { taskId: number }).taskId);
  t.truthy(fetched);

  const { jobId, expireInSeconds, ...claimedDelivery } = claimed;
  t.deepEqual(claimedDelivery, await findDelivery(db, claimed.task.id), 'the claimed delivery is its task and hook as read back');
  const sansIdentity = ({ task: { id, uuid, created, ...rest }, ...delivery }: typeof claimedDelivery) => ({ ...delivery, task: rest });
  t.deepEqual(sansIdentity(claimedDelivery), sansIdentity(fetched!), 'same hook and task but for its own id');
  t.is(expireInSeconds, Number((fetchedJob as unknown as { expireInSeconds: string }).expireInSeconds), 'same expiry');
  const jobs = await db.query<{ id: string; state: string; output: unknown; retry_count: number; retry_limit: number; data_keys: string[] }>(
    `SELECT id::text, state::text, output, retry_count, retry_limit, ARRAY(SELECT jsonb_object_keys(data) ORDER BY 1) AS data_keys
       FROM pgboss.job WHERE name = 'webhook-delivery' ORDER BY created_on, id`,
  );
  t.is(jobs.length, 2);
  const byId = new Map(jobs.map(({ id, ...job }) => [id, job]));
  t.deepEqual(byId.get(jobId), byId.get(fetchedJob.id), 'both jobs active, this worker\'s, with the same retries and data');
  t.like(byId.get(jobId), { state: 'active', output: { hearthWorker: workerId } });
});
