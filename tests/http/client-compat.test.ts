import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth } from '../helpers/hearth.js';

test('every user object carries `username` beside `login`, as Gitea sends it for older clients', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  await build.repo(hearth, alice, { name: 'tool' });
  const me = await hearth.call('GET', '/user', { auth: alice.bearer });
  t.is(me.body.username, 'alice');
  t.is(me.body.login, 'alice');
  t.is((await hearth.call('GET', '/users/alice')).body.username, 'alice');
  t.is((await hearth.call('GET', '/repos/alice/tool')).body.owner.username, 'alice');
});

test('repeated slashes in a path are merged, as clients with a trailing slash on their base URL send them', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const version = await fetch(`${hearth.rootUrl}/api/v1/version`);
  t.is(version.status, 200);
  t.truthy((await version.json()).version);
  const me = await fetch(`${hearth.rootUrl}api/v1//user?x=a//b`, { headers: { Authorization: alice.bearer } });
  t.is(me.status, 200);
  t.is((await me.json()).login, 'alice');
});

test('a JSON null in a body means "not given", as Gitea decodes it', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const body = { name: 'nulls', description: null, gitignores: null, license: null, issue_labels: null, readme: null, auto_init: null, private: null };
  const answer = await hearth.call('POST', '/user/repos', { auth: alice.bearer, body });
  t.is(answer.status, 201, JSON.stringify(answer.body));
  t.is(answer.body.description, '');
  t.false(answer.body.private);
  const edited = await hearth.call('PATCH', '/repos/alice/nulls', { auth: alice.bearer, body: { description: 'kept', website: null } });
  t.is(edited.status, 200);
  t.is((await hearth.call('PATCH', '/repos/alice/nulls', { auth: alice.bearer, body: { description: null } })).body.description, 'kept');
});

test('a team permission Gitea does not know is read as none, not refused', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  await build.org(hearth, alice, { name: 'acme' });
  for (const permission of ['owner', 'bogus']) {
    const answer = await hearth.call('POST', '/orgs/acme/teams', { auth: alice.bearer, body: { name: `t-${permission}`, permission, units: ['repo.code'] } });
    t.is(answer.status, 201, JSON.stringify(answer.body));
    t.is(answer.body.permission, 'none');
    t.is(answer.body.units_map['repo.code'], 'none');
  }
});

test("an accepted transfer appears in the repository's feed as transfer_repo with the old full name", async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  await build.repo(hearth, alice, { name: 'proj' });
  t.is((await hearth.call('POST', '/repos/alice/proj/transfer', { auth: alice.bearer, body: { new_owner: 'bob' } })).status, 201);
  t.is((await hearth.call('POST', '/repos/alice/proj/transfer/accept', { auth: bob.bearer })).status, 202);
  const feed = await hearth.call('GET', '/repos/bob/proj/activities/feeds', { auth: bob.bearer });
  t.is(feed.status, 200);
  t.like(feed.body.find((entry: { op_type: string }) => entry.op_type === 'transfer_repo'), { content: 'alice/proj', act_user: { login: 'alice' } });
});

test('new repositories have no actions unit while actions are disabled, as in Gitea', async (t) => {
  const off = await startHearth(t);
  const alice = await off.createUser('alice');
  const made = await off.call('POST', '/user/repos', { auth: alice.bearer, body: { name: 'plain' } });
  t.false(made.body.has_actions);
  t.deepEqual(await off.store.db.query('SELECT has_actions FROM repository WHERE lower_name = $1', ['plain']), [{ has_actions: false }]);

  const on = await startHearth(t, { HEARTH__actions__ENABLED: 'true' });
  const bob = await on.createUser('bob');
  t.true((await on.call('POST', '/user/repos', { auth: bob.bearer, body: { name: 'plain' } })).body.has_actions);
});
