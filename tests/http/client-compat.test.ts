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
