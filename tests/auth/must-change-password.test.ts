import test from 'ava';
import { build } from '../helpers/build.js';
import { basicAuth, startHearth } from '../helpers/hearth.js';
import { git, remote, scratch } from '../git/git-client.js';

test('a user who must change their password is refused on the API (403) and by git (401) until an administrator clears it', async (t) => {
  const hearth = await startHearth(t);
  const root = await hearth.createUser('root', { admin: true });
  const made = await hearth.call('POST', '/admin/users', { auth: root.bearer, body: { username: 'newbie', email: 'newbie@example.com', password: 'first-password-1' } });
  t.is(made.status, 201);
  t.true(made.body.must_change_password ?? true);
  await build.repo(hearth, root, { name: 'open', autoInit: true, private: true });
  t.is((await hearth.call('PUT', '/repos/root/open/collaborators/newbie', { auth: root.bearer, body: { permission: 'read' } })).status, 204);

  const auth = basicAuth('newbie', 'first-password-1');
  const refused = await hearth.call('GET', '/user', { auth });
  t.is(refused.status, 403);
  t.is(refused.body.message, `You must change your password. Change it at: ${hearth.rootUrl}user/change_password`);
  t.is((await hearth.call('GET', '/repos/root/open', { auth })).status, 403, 'also where the user has access');

  const home = scratch(t);
  const clone = await git(home, ['clone', '--quiet', remote(hearth, 'root', 'open', { user: 'newbie', secret: 'first-password-1' }), 'copy']);
  t.not(clone.code, 0);
  t.regex(clone.stderr, /401|change your password|Authentication failed/i);

  t.is((await hearth.call('PATCH', '/admin/users/newbie', { auth: root.bearer, body: { must_change_password: false } })).status, 200);
  t.is((await hearth.call('GET', '/user', { auth })).status, 200);
  t.is((await git(home, ['clone', '--quiet', remote(hearth, 'root', 'open', { user: 'newbie', secret: 'first-password-1' }), 'copy'])).code, 0);
});
