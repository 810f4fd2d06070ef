import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth } from '../helpers/hearth.js';

test("a user's heatmap counts what they did in repositories the viewer can read, in quarter hours", async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const root = await hearth.createUser('root', { admin: true });
  await build.repo(hearth, alice, { name: 'tools' });
  await build.repo(hearth, alice, { name: 'secret', private: true });
  await hearth.call('PATCH', '/repos/alice/tools', { auth: alice.bearer, body: { name: 'toolbox' } });
  await build.repo(hearth, bob, { name: 'elsewhere' });

  const total = (body: Array<{ contributions: number }>): number => body.reduce((sum, point) => sum + point.contributions, 0);
  const own = await hearth.call('GET', '/users/alice/heatmap', { auth: alice.bearer });
  t.is(own.status, 200);
  t.is(total(own.body), 3);
  for (const point of own.body) {
    t.is(point.timestamp % 900, 0);
    t.true(Math.abs(point.timestamp - Date.now() / 1000) < 3600);
  }
  t.is(total((await hearth.call('GET', '/users/alice/heatmap', { auth: bob.bearer })).body), 2, 'the private repository is left out for others');
  t.is(total((await hearth.call('GET', '/users/alice/heatmap')).body), 2);
  t.is(total((await hearth.call('GET', '/users/bob/heatmap', { auth: alice.bearer })).body), 1);

  await hearth.call('PATCH', '/user/settings', { auth: alice.bearer, body: { hide_activity: true } });
  t.deepEqual((await hearth.call('GET', '/users/alice/heatmap', { auth: bob.bearer })).body, [], 'hidden activity');
  t.is(total((await hearth.call('GET', '/users/alice/heatmap', { auth: alice.bearer })).body), 3);
  t.is(total((await hearth.call('GET', '/users/alice/heatmap', { auth: root.bearer })).body), 3);
  t.is((await hearth.call('GET', '/users/nobody/heatmap')).status, 404);
});

test("a user's activity feed: their own doings and their repositories' and watched ones', private ones only for them", async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  await build.repo(hearth, alice, { name: 'tools' });
  await build.repo(hearth, alice, { name: 'secret', private: true });
  await build.repo(hearth, bob, { name: 'watched' });
  await build.repo(hearth, bob, { name: 'ignored' });
  t.is((await hearth.call('PUT', '/repos/bob/watched/subscription', { auth: alice.bearer })).status, 200);

  const feed = await hearth.call('GET', '/users/alice/activities/feeds', { auth: alice.bearer });
  t.is(feed.status, 200);
  t.deepEqual(feed.body.map((a: { repo: { full_name: string } }) => a.repo.full_name), ['bob/watched', 'alice/secret', 'alice/tools']);
  t.like(feed.body[2], { op_type: 'create_repo', act_user: { login: 'alice' }, is_private: false });
  t.is(feed.headers.get('x-total-count'), '3');
  const performed = await hearth.call('GET', '/users/alice/activities/feeds?only-performed-by=true', { auth: alice.bearer });
  t.deepEqual(performed.body.map((a: { repo: { full_name: string } }) => a.repo.full_name), ['alice/secret', 'alice/tools']);
  const byBob = await hearth.call('GET', '/users/alice/activities/feeds', { auth: bob.bearer });
  t.deepEqual(byBob.body.map((a: { repo: { full_name: string } }) => a.repo.full_name), ['bob/watched', 'alice/tools']);
  const today = new Date().toISOString().slice(0, 10);
  t.is((await hearth.call('GET', `/users/alice/activities/feeds?date=${today}`, { auth: alice.bearer })).body.length, 3);
  t.is((await hearth.call('GET', '/users/alice/activities/feeds?date=2001-01-01', { auth: alice.bearer })).body.length, 0);
  t.is((await hearth.call('GET', '/users/alice/activities/feeds?limit=1&page=2', { auth: alice.bearer })).body[0].repo.full_name, 'alice/secret');
  t.is((await hearth.call('GET', '/users/alice/activities/feeds?date=yesterday', { auth: alice.bearer })).status, 422);

  await hearth.call('PATCH', '/user/settings', { auth: alice.bearer, body: { hide_activity: true } });
  t.deepEqual((await hearth.call('GET', '/users/alice/activities/feeds', { auth: bob.bearer })).body, []);
  t.is((await hearth.call('GET', '/users/alice/activities/feeds', { auth: alice.bearer })).body.length, 3);
});

test('nodeinfo counts users; the signing key is empty as Gitea answers without one', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  await hearth.createUser('bob');
  await hearth.store.db.query(`UPDATE "user" SET last_login = now() - interval '2 months' WHERE id = $1`, [alice.user.id]);

  const info = await hearth.call('GET', '/nodeinfo');
  t.is(info.status, 200);
  t.like(info.body, { version: '2.1', software: { name: 'hearth' }, openRegistrations: false, usage: { users: { total: 2, activeHalfyear: 1 } }, metadata: {} });
  t.false('activeMonth' in info.body.usage.users, 'a zero count is left out');
  t.deepEqual(info.body.services, { inbound: [], outbound: [] });

  const key = await hearth.call('GET', '/signing-key.gpg');
  t.is(key.status, 200);
  t.regex(key.headers.get('content-type') ?? '', /^text\/plain/);
  t.is(key.body, undefined, 'an empty body');
  await build.repo(hearth, alice, { name: 'secret', private: true });
  t.is((await hearth.call('GET', '/repos/alice/secret/signing-key.gpg', { auth: alice.bearer })).status, 200);
  t.is((await hearth.call('GET', '/repos/alice/secret/signing-key.gpg')).status, 404, 'an invisible repository is not found');
});

