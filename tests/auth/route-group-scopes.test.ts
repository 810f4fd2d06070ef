import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth } from '../helpers/hearth.js';

const scopeDenied = (scope: string): string => `token does not have at least one of required scope(s): [${scope}]`;

async function setUp(t: Parameters<typeof startHearth>[0]) {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const narrow = await build.user(hearth, { name: 'narrow', scopes: ['read:repository'] });
  const both = await build.user(hearth, { name: 'both', scopes: ['read:user', 'read:repository'] });
  const userOnly = await build.user(hearth, { name: 'useronly', scopes: ['read:user'] });
  const repo = await build.repo(hearth, alice, { name: 'tool' });
  return { hearth, alice, narrow, both, userOnly, repo };
}

test('the repository lists of /user and /users/{username} need read:user and read:repository, as in Gitea route groups', async (t) => {
  const { hearth, narrow, both, userOnly } = await setUp(t);
  for (const path of ['/user/repos', '/user/starred', '/users/alice/repos']) {
    const onlyRepository = await hearth.call('GET', path, { auth: narrow.bearer });
    t.is(onlyRepository.status, 403, path);
    t.is(onlyRepository.body.message, scopeDenied('read:user'), path);
    const onlyUser = await hearth.call('GET', path, { auth: userOnly.bearer });
    t.is(onlyUser.status, 403, path);
    t.is(onlyUser.body.message, scopeDenied('read:repository'), path);
    t.is((await hearth.call('GET', path, { auth: both.bearer })).status, 200, path);
  }
});

test('asking with a narrow token whether a repository is starred is a 403, not a 404; creating a repository needs write:user too', async (t) => {
  const { hearth, alice, narrow } = await setUp(t);
  const check = await hearth.call('GET', '/user/starred/alice/tool', { auth: narrow.bearer });
  t.is(check.status, 403);
  t.is(check.body.message, scopeDenied('read:user'));
  const writer = await build.user(hearth, { name: 'writer', scopes: ['write:repository'] });
  const create = await hearth.call('POST', '/user/repos', { auth: writer.bearer, body: { name: 'refused' } });
  t.is(create.status, 403);
  t.is(create.body.message, scopeDenied('write:user'));
  const rows = await hearth.store.db.query('SELECT 1 FROM repository WHERE lower_name = $1', ['refused']);
  t.is(rows.length, 0);
  t.is((await hearth.call('GET', '/user/starred/alice/tool', { auth: alice.bearer })).status, 404);
});

test('GET /repositories/{id} asks for a caller, as Gitea route table does', async (t) => {
  const { hearth, both, repo } = await setUp(t);
  const anonymous = await hearth.call('GET', `/repositories/${repo.id}`);
  t.is(anonymous.status, 401);
  const signed = await hearth.call('GET', `/repositories/${repo.id}`, { auth: both.bearer });
  t.is(signed.status, 200);
  t.is(signed.body.full_name, 'alice/tool');
});
