import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';

async function setUp(t: Parameters<typeof startHearth>[0]) {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const carol = await hearth.createUser('carol');
  await build.repo(hearth, alice, { name: 'tool' });
  await hearth.call('PUT', '/repos/alice/tool/collaborators/carol', { auth: alice.bearer, body: { permission: 'write' } });
  return { hearth, alice, bob, carol };
}

const subscribers = async (hearth: TestHearth, index = 1): Promise<string[]> => {
  const answer = await hearth.call('GET', `/repos/alice/tool/issues/${index}/subscriptions`);
  if (answer.status !== 200) throw new Error(`subscribers: ${answer.status}`);
  return answer.body.map((u: { login: string }) => u.login);
};

const watchRows = (hearth: TestHearth) =>
  hearth.store.db.query<{ user_id: number; is_watching: boolean }>('SELECT user_id, is_watching FROM issue_watch ORDER BY user_id');

test('posting, commenting and being assigned subscribe; the check answers Gitea\'s WatchInfo', async (t) => {
  const { hearth, alice, bob, carol } = await setUp(t);
  const opened = await hearth.call('POST', '/repos/alice/tool/issues', { auth: alice.bearer, body: { title: 'watch me' } });
  t.is(opened.status, 201);
  t.deepEqual(await subscribers(hearth), ['alice']);
  t.deepEqual(await watchRows(hearth), [{ user_id: alice.user.id, is_watching: true }]);

  const check = await hearth.call('GET', '/repos/alice/tool/issues/1/subscriptions/check', { auth: bob.bearer });
  t.is(check.status, 200);
  t.deepEqual(check.body, {
    subscribed: false, ignored: true, reason: null, created_at: opened.body.created_at,
    url: `${hearth.rootUrl}api/v1/repos/alice/tool/issues/1/subscriptions`, repository_url: `${hearth.rootUrl}api/v1/repos/alice/tool`,
  });
  t.is((await hearth.call('POST', '/repos/alice/tool/issues/1/comments', { auth: bob.bearer, body: { body: 'me too' } })).status, 201);
  t.like((await hearth.call('GET', '/repos/alice/tool/issues/1/subscriptions/check', { auth: bob.bearer })).body, { subscribed: true, ignored: false });
  t.is((await hearth.call('PATCH', '/repos/alice/tool/issues/1', { auth: alice.bearer, body: { assignees: ['carol'] } })).status, 201);
  t.deepEqual(await subscribers(hearth), ['alice', 'bob', 'carol']);
  t.deepEqual((await watchRows(hearth)).map((w) => w.user_id), [alice.user.id, bob.user.id, carol.user.id]);
});

test('PUT and DELETE change one\'s own subscription (201 when it changed, 200 when not); the list is never null', async (t) => {
  const { hearth, alice, bob } = await setUp(t);
  await hearth.call('POST', '/repos/alice/tool/issues', { auth: alice.bearer, body: { title: 'quiet' } });
  const path = (user: string) => `/repos/alice/tool/issues/1/subscriptions/${user}`;

  t.is((await hearth.call('DELETE', path('alice'), { auth: alice.bearer })).status, 201);
  t.is((await hearth.call('DELETE', path('alice'), { auth: alice.bearer })).status, 200);
  const empty = await hearth.call('GET', '/repos/alice/tool/issues/1/subscriptions');
  t.is(empty.status, 200);
  t.deepEqual(empty.body, []);
  t.is(empty.headers.get('x-total-count'), '0');
  t.deepEqual(await watchRows(hearth), [{ user_id: alice.user.id, is_watching: false }]);

  t.is((await hearth.call('PUT', path('bob'), { auth: bob.bearer })).status, 201);
  t.is((await hearth.call('PUT', path('bob'), { auth: bob.bearer })).status, 200);
  t.deepEqual(await subscribers(hearth), ['bob']);
  t.like((await hearth.call('GET', '/repos/alice/tool/issues/1/subscriptions/check', { auth: bob.bearer })).body, { subscribed: true });

  t.is((await hearth.call('PUT', path('alice'), { auth: bob.bearer })).status, 403, 'only one\'s own subscription');
  t.is((await hearth.call('PUT', path('nobody'), { auth: bob.bearer })).status, 404);
  t.is((await hearth.call('PUT', path('bob'))).status, 401);
  t.is((await hearth.call('DELETE', path('bob'))).status, 401);
  t.is((await hearth.call('GET', '/repos/alice/tool/issues/1/subscriptions/check')).status, 401);
  t.is((await hearth.call('PUT', '/repos/alice/tool/issues/7/subscriptions/bob', { auth: bob.bearer })).status, 404);

  const root = await hearth.createUser('root', { admin: true });
  t.is((await hearth.call('DELETE', path('bob'), { auth: root.bearer })).status, 201, 'administrators change anyone\'s');
  t.deepEqual(await subscribers(hearth), []);
});

test('an explicit unsubscription outlasts later comments', async (t) => {
  const { hearth, alice, bob } = await setUp(t);
  await hearth.call('POST', '/repos/alice/tool/issues', { auth: alice.bearer, body: { title: 'noisy' } });
  t.is((await hearth.call('DELETE', '/repos/alice/tool/issues/1/subscriptions/bob', { auth: bob.bearer })).status, 200, 'not subscribed yet');
  t.is((await hearth.call('PUT', '/repos/alice/tool/issues/1/subscriptions/bob', { auth: bob.bearer })).status, 201);
  t.is((await hearth.call('DELETE', '/repos/alice/tool/issues/1/subscriptions/bob', { auth: bob.bearer })).status, 201);
  await hearth.call('POST', '/repos/alice/tool/issues/1/comments', { auth: bob.bearer, body: { body: 'one more thing' } });
  t.like((await hearth.call('GET', '/repos/alice/tool/issues/1/subscriptions/check', { auth: bob.bearer })).body, { subscribed: false });
  t.deepEqual(await subscribers(hearth), ['alice']);
});
