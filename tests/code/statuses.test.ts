import { execFileSync } from 'node:child_process';
import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth } from '../helpers/hearth.js';

const git = (dir: string, ...args: string[]): string => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8' }).trim();

async function setUp(t: Parameters<typeof startHearth>[0]) {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const made = await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  const dir = hearth.deps.git.pathOf('alice', 'tool');
  return { hearth, alice, repoId: made.id, dir, sha: git(dir, 'rev-parse', 'main') };
}

test('statuses are created on a full commit id, numbered per commit, and listed newest first', async (t) => {
  const { hearth, alice, repoId, sha } = await setUp(t);
  const first = await hearth.call('POST', `/repos/alice/tool/statuses/${sha}`, {
    auth: alice.bearer,
    body: { state: 'pending', context: ' ci/build ', description: 'queued', target_url: 'https://ci.example/1' },
  });
  t.is(first.status, 201, JSON.stringify(first.body));
  t.like(first.body, { id: 1, status: 'pending', context: 'ci/build', description: 'queued', target_url: 'https://ci.example/1' });
  t.is(first.body.creator.login, 'alice');
  t.is(first.body.url, `${hearth.rootUrl}api/v1/repos/alice/tool/statuses/${sha}`);
  const second = await hearth.call('POST', `/repos/alice/tool/statuses/${sha.toUpperCase()}`, { auth: alice.bearer, body: { state: 'success', context: 'ci/build' } });
  t.is(second.status, 201);
  t.is(second.body.id, 2);

  const rows = await hearth.store.db.query<{ index: number; state: string; sha: string; creator_id: number }>(
    'SELECT index, state, sha, creator_id FROM commit_status WHERE repo_id = $1 ORDER BY index', [repoId]);
  t.deepEqual(rows, [
    { index: 1, state: 'pending', sha, creator_id: alice.user.id },
    { index: 2, state: 'success', sha, creator_id: alice.user.id },
  ]);
  const [event] = await hearth.store.db.query<{ payload: { sha: string; index: number } }>(
    `SELECT payload FROM domain_event WHERE kind = 'commit_status.created' ORDER BY id DESC LIMIT 1`);
  t.like(event.payload, { sha, index: 2 });

  const list = await hearth.call('GET', `/repos/alice/tool/statuses/${sha}`);
  t.is(list.status, 200);
  t.deepEqual(list.body.map((s: { id: number }) => s.id), [2, 1]);
  t.is(list.headers.get('x-total-count'), '2');
  t.deepEqual((await hearth.call('GET', `/repos/alice/tool/statuses/${sha}?state=pending`)).body.map((s: { id: number }) => s.id), [1]);
  t.deepEqual((await hearth.call('GET', `/repos/alice/tool/statuses/${sha}?sort=oldest`)).body.map((s: { id: number }) => s.id), [1, 2]);
  t.deepEqual((await hearth.call('GET', `/repos/alice/tool/statuses/${sha}?sort=highestindex`)).body.map((s: { id: number }) => s.id), [1, 2]);
  const paged = await hearth.call('GET', `/repos/alice/tool/statuses/${sha}?limit=1`);
  t.is(paged.body.length, 1);
  t.regex(paged.headers.get('link') ?? '', /rel="next"/);
  t.deepEqual((await hearth.call('GET', `/repos/alice/tool/statuses/main`)).body.map((s: { id: number }) => s.id), [2, 1], 'a branch name is resolved');
  t.is((await hearth.call('GET', '/repos/alice/tool/statuses/nothing-like-a-sha')).status, 400);
});

test('a status posted on a short id, a branch or a tag is stored under the complete id, and every name lists it', async (t) => {
  const { hearth, alice, sha } = await setUp(t);
  git(hearth.deps.git.pathOf('alice', 'tool'), 'tag', 'v1', sha);
  for (const [name, context] of [[sha.slice(0, 7), 'short'], ['main', 'branch'], ['v1', 'tag']]) {
    const answer = await hearth.call('POST', `/repos/alice/tool/statuses/${name}`, { auth: alice.bearer, body: { state: 'success', context } });
    t.is(answer.status, 201, `${name}: ${JSON.stringify(answer.body)}`);
    t.is(answer.body.url, `${hearth.rootUrl}api/v1/repos/alice/tool/statuses/${sha}`);
  }
  t.deepEqual(await hearth.store.db.query('SELECT DISTINCT sha FROM commit_status'), [{ sha }]);
  const listed = async (path: string) => (await hearth.call('GET', path)).body.map((s: { context: string }) => s.context).sort();
  const all = ['branch', 'short', 'tag'];
  t.deepEqual(await listed(`/repos/alice/tool/statuses/${sha}`), all);
  t.deepEqual(await listed(`/repos/alice/tool/statuses/${sha.slice(0, 10)}`), all);
  t.deepEqual(await listed('/repos/alice/tool/commits/main/statuses'), all);
  t.deepEqual(await listed('/repos/alice/tool/commits/v1/statuses'), all);
});

test('names of no commit and bad states are refused and store nothing', async (t) => {
  const { hearth, alice, sha } = await setUp(t);
  for (const bad of [`${sha}0`, 'z'.repeat(40), 'no-such-branch', '0'.repeat(40)]) {
    const answer = await hearth.call('POST', `/repos/alice/tool/statuses/${bad}`, { auth: alice.bearer, body: { state: 'success' } });
    t.is(answer.status, 404, `${bad}: ${JSON.stringify(answer.body)}`);
    t.truthy(answer.body.message);
  }
  for (const body of [{ state: 'done' }, {}, { state: 'SUCCESS' }]) {
    const answer = await hearth.call('POST', `/repos/alice/tool/statuses/${sha}`, { auth: alice.bearer, body });
    t.is(answer.status, 422, JSON.stringify(body));
  }
  t.deepEqual(await hearth.store.db.query('SELECT 1 FROM commit_status'), []);
});

test('statuses by ref resolve branches, tags and short ids with git; an unknown ref is 404', async (t) => {
  const { hearth, alice, dir, sha } = await setUp(t);
  git(dir, 'tag', 'v1', sha);
  await hearth.call('POST', `/repos/alice/tool/statuses/${sha}`, { auth: alice.bearer, body: { state: 'failure', context: 'lint' } });
  for (const ref of ['main', 'v1', sha, sha.slice(0, 10)]) {
    const answer = await hearth.call('GET', `/repos/alice/tool/commits/${ref}/statuses`);
    t.is(answer.status, 200, ref);
    t.deepEqual(answer.body.map((s: { context: string }) => s.context), ['lint'], ref);
  }
  t.is((await hearth.call('GET', '/repos/alice/tool/commits/no-such-branch/statuses')).status, 404);
  t.is((await hearth.call('GET', `/repos/alice/tool/commits/${'1'.repeat(40)}/statuses`)).status, 404);
  t.is((await hearth.call('GET', '/repos/alice/tool/commits/no-such-branch/status')).status, 404);
});

test('the combined status is the worst latest state per context', async (t) => {
  const { hearth, alice, sha } = await setUp(t);
  const post = (state: string, context: string) =>
    hearth.call('POST', `/repos/alice/tool/statuses/${sha}`, { auth: alice.bearer, body: { state, context } });

  const none = await hearth.call('GET', '/repos/alice/tool/commits/main/status');
  t.is(none.status, 200);
  t.like(none.body, { state: 'pending', sha, total_count: 0, statuses: [] });

  await post('pending', 'ci');
  await post('success', 'ci');
  let combined = await hearth.call('GET', '/repos/alice/tool/commits/main/status');
  t.like(combined.body, { state: 'success', sha, total_count: 1 });
  await post('warning', 'deploy');
  t.is((await hearth.call('GET', '/repos/alice/tool/commits/main/status')).body.state, 'warning');
  await post('pending', 'docs');
  t.is((await hearth.call('GET', '/repos/alice/tool/commits/main/status')).body.state, 'warning', 'warning is worse than pending');
  await post('failure', 'lint');
  t.is((await hearth.call('GET', '/repos/alice/tool/commits/main/status')).body.state, 'failure');
  await post('error', 'security');
  combined = await hearth.call('GET', `/repos/alice/tool/commits/${sha}/status`);
  t.is(combined.status, 200);
  t.is(combined.body.state, 'error');
  t.is(combined.body.total_count, 5);
  t.deepEqual(
    combined.body.statuses.map((s: { context: string; status: string }) => `${s.context}:${s.status}`),
    ['security:error', 'lint:failure', 'docs:pending', 'deploy:warning', 'ci:success'],
  );
  t.is(combined.body.repository.full_name, 'alice/tool');
  t.is(combined.body.commit_url, `${hearth.rootUrl}api/v1/repos/alice/tool/commits/${sha}`);
  t.is(combined.body.url, `${hearth.rootUrl}api/v1/repos/alice/tool/commits/${sha}/status`);
  t.is(combined.headers.get('x-total-count'), '5');
  await post('success', 'security');
  await post('success', 'lint');
  t.is((await hearth.call('GET', '/repos/alice/tool/commits/main/status')).body.state, 'warning');
});

test('creating needs write access; reading follows visibility; an empty repository never answers 500', async (t) => {
  const { hearth, alice, repoId, sha } = await setUp(t);
  const carol = await hearth.createUser('carol');
  const bob = await hearth.createUser('bob');
  const reader = await hearth.createUser('reader', { scopes: ['read:repository'] });
  await hearth.store.db.query('INSERT INTO collaboration (repo_id, user_id, mode) VALUES ($1, $2, 1), ($1, $3, 2)', [repoId, carol.user.id, bob.user.id]);
  const body = { state: 'success', context: 'ci' };
  t.is((await hearth.call('POST', `/repos/alice/tool/statuses/${sha}`, { body })).status, 401);
  t.is((await hearth.call('POST', `/repos/alice/tool/statuses/${sha}`, { auth: carol.bearer, body })).status, 403);
  t.is((await hearth.call('POST', `/repos/alice/tool/statuses/${sha}`, { auth: reader.bearer, body })).status, 403);
  const byBob = await hearth.call('POST', `/repos/alice/tool/statuses/${sha}`, { auth: bob.bearer, body });
  t.is(byBob.status, 201);
  t.is(byBob.body.creator.login, 'bob');
  t.is((await hearth.call('GET', `/repos/alice/tool/statuses/${sha}`, { auth: reader.bearer })).body.length, 1);

  await build.repo(hearth, alice, { name: 'hidden', private: true, autoInit: true });
  t.is((await hearth.call('GET', '/repos/alice/hidden/commits/main/status')).status, 404);
  t.is((await hearth.call('GET', '/repos/alice/hidden/commits/main/status', { auth: alice.bearer })).status, 200);

  await build.repo(hearth, alice, { name: 'bare' });
  t.is((await hearth.call('GET', '/repos/alice/bare/commits/main/status')).status, 404);
  t.is((await hearth.call('GET', '/repos/alice/bare/commits/main/statuses')).status, 404);
  t.is((await hearth.call('POST', `/repos/alice/bare/statuses/${sha}`, { auth: alice.bearer, body })).status, 404);
});

test('concurrent reporters get distinct, gapless indexes', async (t) => {
  const { hearth, alice, repoId, sha } = await setUp(t);
  const answers = await Promise.all(
    Array.from({ length: 12 }, (_, n) =>
      hearth.call('POST', `/repos/alice/tool/statuses/${sha}`, { auth: alice.bearer, body: { state: 'success', context: `job-${n}` } })),
  );
  t.true(answers.every((a) => a.status === 201));
  t.deepEqual(answers.map((a) => a.body.id).sort((a, b) => a - b), Array.from({ length: 12 }, (_, n) => n + 1));
  const rows = await hearth.store.db.query<{ index: number }>('SELECT index FROM commit_status WHERE repo_id = $1 ORDER BY index', [repoId]);
  t.deepEqual(rows.map((r) => r.index), Array.from({ length: 12 }, (_, n) => n + 1));
});
