import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth } from '../helpers/hearth.js';

test("a repository's feed is read from its stored events, newest first", async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const made = await build.repo(hearth, alice, { name: 'tools', private: true });
  await hearth.call('PATCH', '/repos/alice/tools', { auth: alice.bearer, body: { name: 'kit' } });

  const feed = await hearth.call('GET', '/repos/alice/kit/activities/feeds', { auth: alice.bearer });
  t.is(feed.status, 200, JSON.stringify(feed.body));
  t.deepEqual(feed.body.map((a: { op_type: string; content: string }) => [a.op_type, a.content]), [['rename_repo', 'tools'], ['create_repo', '']]);
  t.is(feed.headers.get('x-total-count'), '2');
  t.like(feed.body[1], {
    user_id: alice.user.id, act_user_id: alice.user.id, repo_id: made.id, is_private: true, comment_id: 0, comment: null, ref_name: '',
  });
  t.is(feed.body[1].act_user.login, 'alice');
  t.is(feed.body[1].repo.full_name, 'alice/kit');
  const [event] = await hearth.store.db.query<{ id: number }>(`SELECT id FROM domain_event WHERE kind = 'repository.created'`);
  t.is(feed.body[1].id, event.id);

  const today = new Date().toISOString().slice(0, 10);
  t.is((await hearth.call('GET', `/repos/alice/kit/activities/feeds?date=${today}`, { auth: alice.bearer })).body.length, 2);
  t.deepEqual((await hearth.call('GET', '/repos/alice/kit/activities/feeds?date=2001-02-03', { auth: alice.bearer })).body, []);
  t.is((await hearth.call('GET', '/repos/alice/kit/activities/feeds?date=yesterday', { auth: alice.bearer })).status, 422);
  t.is((await hearth.call('GET', '/repos/alice/kit/activities/feeds', { auth: bob.bearer })).status, 404);
  const page = await hearth.call('GET', '/repos/alice/kit/activities/feeds?limit=1&page=2', { auth: alice.bearer });
  t.deepEqual(page.body.map((a: { op_type: string }) => a.op_type), ['create_repo']);
});
