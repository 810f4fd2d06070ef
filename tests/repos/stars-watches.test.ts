import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';

async function counts(hearth: TestHearth, repoId: number, userId: number): Promise<{ stars: number; watches: number; userStars: number }> {
  const [repo] = await hearth.store.db.query<{ num_stars: number; num_watches: number }>('SELECT num_stars, num_watches FROM repository WHERE id = $1', [repoId]);
  const [user] = await hearth.store.db.query<{ num_stars: number }>('SELECT num_stars FROM "user" WHERE id = $1', [userId]);
  return { stars: repo?.num_stars ?? -1, watches: repo?.num_watches ?? -1, userStars: user.num_stars };
}

test('star, check, list and unstar; repository and user counters follow', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const repo = await build.repo(hearth, alice, { name: 'tools' });

  t.is((await hearth.call('GET', '/user/starred/alice/tools', { auth: bob.bearer })).status, 404);
  t.is((await hearth.call('PUT', '/user/starred/alice/tools', { auth: bob.bearer })).status, 204);
  t.is((await hearth.call('PUT', '/user/starred/alice/tools', { auth: bob.bearer })).status, 204, 'starring twice changes nothing');
  t.is((await hearth.call('GET', '/user/starred/alice/tools', { auth: bob.bearer })).status, 204);
  t.deepEqual(await counts(hearth, repo.id, bob.user.id), { stars: 1, watches: 1, userStars: 1 });
  t.is((await hearth.call('GET', '/repos/alice/tools')).body.stars_count, 1);
  t.is((await hearth.call('GET', '/users/bob', { auth: alice.bearer })).body.starred_repos_count, 1);

  const mine = await hearth.call('GET', '/user/starred', { auth: bob.bearer });
  t.deepEqual(mine.body.map((r: { full_name: string }) => r.full_name), ['alice/tools']);
  t.is(mine.headers.get('x-total-count'), '1');
  const theirs = await hearth.call('GET', '/users/bob/starred', { auth: alice.bearer });
  t.deepEqual(theirs.body.map((r: { full_name: string }) => r.full_name), ['alice/tools']);
  t.is((await hearth.call('GET', '/users/bob/starred')).status, 401);
  const gazers = await hearth.call('GET', '/repos/alice/tools/stargazers');
  t.deepEqual(gazers.body.map((u: { login: string }) => u.login), ['bob']);

  t.is((await hearth.call('DELETE', '/user/starred/alice/tools', { auth: bob.bearer })).status, 204);
  t.is((await hearth.call('GET', '/user/starred/alice/tools', { auth: bob.bearer })).status, 404);
  t.deepEqual(await counts(hearth, repo.id, bob.user.id), { stars: 0, watches: 1, userStars: 0 });
  t.is((await hearth.call('PUT', '/user/starred/alice/none', { auth: bob.bearer })).status, 404);
  t.is((await hearth.call('PUT', '/user/starred/alice/tools')).status, 401);
});

test('a private repository: starring needs read access, and others see only public stars', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const carol = await hearth.createUser('carol');
  await build.repo(hearth, alice, { name: 'secret', private: true });
  await build.repo(hearth, alice, { name: 'open' });
  t.is((await hearth.call('PUT', '/user/starred/alice/secret', { auth: bob.bearer })).status, 404);
  await hearth.call('PUT', '/repos/alice/secret/collaborators/bob', { auth: alice.bearer, body: { permission: 'read' } });
  t.is((await hearth.call('PUT', '/user/starred/alice/secret', { auth: bob.bearer })).status, 204);
  t.is((await hearth.call('PUT', '/user/starred/alice/open', { auth: bob.bearer })).status, 204);

  const own = await hearth.call('GET', '/user/starred', { auth: bob.bearer });
  t.deepEqual(own.body.map((r: { name: string }) => r.name).sort(), ['open', 'secret']);
  const other = await hearth.call('GET', '/users/bob/starred', { auth: carol.bearer });
  t.deepEqual(other.body.map((r: { name: string }) => r.name), ['open']);
  t.is(other.headers.get('x-total-count'), '1');

  await hearth.call('DELETE', '/repos/alice/secret/collaborators/bob', { auth: alice.bearer });
  const lost = await hearth.call('GET', '/user/starred', { auth: bob.bearer });
  t.deepEqual(lost.body.map((r: { name: string }) => r.name), ['open'], 'a star on a repository no longer readable is not shown');
});

test('watching: the creator watches a new repository; subscription endpoints and counters', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const made = await hearth.call('POST', '/user/repos', { auth: alice.bearer, body: { name: 'tools' } });
  t.is(made.body.watchers_count, 1);
  const mine = await hearth.call('GET', '/repos/alice/tools/subscription', { auth: alice.bearer });
  t.is(mine.status, 200);
  t.like(mine.body, {
    subscribed: true, ignored: false, reason: null,
    url: `${hearth.rootUrl}api/v1/repos/alice/tools/subscription`, repository_url: `${hearth.rootUrl}api/v1/repos/alice/tools`,
  });
  t.regex(mine.body.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

  t.is((await hearth.call('GET', '/repos/alice/tools/subscription')).status, 401);
  t.is((await hearth.call('GET', '/repos/alice/tools/subscription', { auth: bob.bearer })).status, 404);
  const watched = await hearth.call('PUT', '/repos/alice/tools/subscription', { auth: bob.bearer });
  t.is(watched.status, 200);
  t.true(watched.body.subscribed);
  t.is((await hearth.call('PUT', '/repos/alice/tools/subscription', { auth: bob.bearer })).status, 200);
  t.is((await counts(hearth, made.body.id, bob.user.id)).watches, 2);
  const subscribers = await hearth.call('GET', '/repos/alice/tools/subscribers');
  t.deepEqual(subscribers.body.map((u: { login: string }) => u.login), ['alice', 'bob']);
  t.is(subscribers.headers.get('x-total-count'), '2');
  const bobs = await hearth.call('GET', '/user/subscriptions', { auth: bob.bearer });
  t.deepEqual(bobs.body.map((r: { full_name: string }) => r.full_name), ['alice/tools']);
  const alices = await hearth.call('GET', '/users/alice/subscriptions', { auth: bob.bearer });
  t.deepEqual(alices.body.map((r: { full_name: string }) => r.full_name), ['alice/tools']);

  t.is((await hearth.call('DELETE', '/repos/alice/tools/subscription', { auth: bob.bearer })).status, 204);
  t.is((await hearth.call('GET', '/repos/alice/tools/subscription', { auth: bob.bearer })).status, 404);
  t.is((await hearth.call('GET', '/repos/alice/tools')).body.watchers_count, 1);
});

test('a removed collaborator stops watching; an automatic watch declined stays declined', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const repo = await build.repo(hearth, alice, { name: 'tools', private: true });
  await hearth.call('PUT', '/repos/alice/tools/collaborators/bob', { auth: alice.bearer, body: {} });
  t.is((await hearth.call('PUT', '/repos/alice/tools/subscription', { auth: bob.bearer })).status, 200);
  t.is((await counts(hearth, repo.id, bob.user.id)).watches, 2);
  await hearth.call('DELETE', '/repos/alice/tools/collaborators/bob', { auth: alice.bearer });
  t.is((await counts(hearth, repo.id, bob.user.id)).watches, 1);
  t.is((await hearth.store.db.query('SELECT 1 FROM watch WHERE user_id = $1', [bob.user.id])).length, 0);

  // an automatic watch (mode 3, set by other areas) that is declined becomes "don't watch" and does not count
  await hearth.store.db.query('INSERT INTO watch (user_id, repo_id, mode) VALUES ($1, $2, 3)', [bob.user.id, repo.id]);
  t.is((await counts(hearth, repo.id, bob.user.id)).watches, 2);
  await hearth.call('PUT', '/repos/alice/tools/collaborators/bob', { auth: alice.bearer, body: {} });
  t.is((await hearth.call('DELETE', '/repos/alice/tools/subscription', { auth: bob.bearer })).status, 204);
  const [row] = await hearth.store.db.query<{ mode: number }>('SELECT mode FROM watch WHERE user_id = $1', [bob.user.id]);
  t.is(row.mode, 2);
  t.is((await counts(hearth, repo.id, bob.user.id)).watches, 1);
});

test('deleting a repository or a user keeps the other side of the counters right', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const root = await hearth.createUser('root', { admin: true });
  const tools = await build.repo(hearth, alice, { name: 'tools' });
  await build.repo(hearth, alice, { name: 'kit' });
  for (const name of ['tools', 'kit']) {
    await hearth.call('PUT', `/user/starred/alice/${name}`, { auth: bob.bearer });
    await hearth.call('PUT', `/repos/alice/${name}/subscription`, { auth: bob.bearer });
  }
  t.is((await counts(hearth, tools.id, bob.user.id)).userStars, 2);
  t.is((await hearth.call('DELETE', '/repos/alice/kit', { auth: alice.bearer })).status, 204);
  t.is((await counts(hearth, tools.id, bob.user.id)).userStars, 1);

  t.is((await hearth.call('DELETE', '/admin/users/bob', { auth: root.bearer })).status, 204);
  const after = await hearth.call('GET', '/repos/alice/tools');
  t.is(after.body.stars_count, 0);
  t.is(after.body.watchers_count, 1);
});

test("a user the owner blocks may neither star nor watch, nor become a collaborator", async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const repo = await build.repo(hearth, alice, { name: 'tools' });
  await hearth.store.db.query('INSERT INTO user_blocking (blocker_id, blockee_id) VALUES ($1, $2)', [alice.user.id, bob.user.id]);
  t.is((await hearth.call('PUT', '/user/starred/alice/tools', { auth: bob.bearer })).status, 403);
  t.is((await hearth.call('PUT', '/repos/alice/tools/subscription', { auth: bob.bearer })).status, 403);
  t.is((await hearth.call('PUT', '/repos/alice/tools/collaborators/bob', { auth: alice.bearer, body: {} })).status, 403);
  t.deepEqual(await counts(hearth, repo.id, bob.user.id), { stars: 0, watches: 1, userStars: 0 });
  t.is((await hearth.store.db.query('SELECT 1 FROM collaboration')).length, 0);
});
