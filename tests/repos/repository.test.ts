import { existsSync } from 'node:fs';
import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth } from '../helpers/hearth.js';

test('create, read, edit, rename and delete a repository; the directory follows the row', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const made = await hearth.call('POST', '/user/repos', { auth: alice.bearer, body: { name: 'tools', description: 'd', auto_init: true, default_branch: 'trunk' } });
  t.is(made.status, 201, JSON.stringify(made.body));
  t.is(made.body.full_name, 'alice/tools');
  t.is(made.body.default_branch, 'trunk');
  t.false(made.body.empty);
  t.deepEqual(made.body.permissions, { admin: true, push: true, pull: true });
  t.true(existsSync(hearth.deps.git.pathOf('alice', 'tools')));

  t.is((await hearth.call('GET', `/repositories/${made.body.id}`)).status, 401);
  const bob = await hearth.createUser('bob');
  const byId = await hearth.call('GET', `/repositories/${made.body.id}`, { auth: bob.bearer });
  t.is(byId.body.full_name, 'alice/tools');
  t.deepEqual(byId.body.permissions, { admin: false, push: false, pull: true });

  const edited = await hearth.call('PATCH', '/repos/alice/tools', { auth: alice.bearer, body: { name: 'kit', description: 'new', allow_rebase: false, template: true } });
  t.is(edited.status, 200, JSON.stringify(edited.body));
  t.is(edited.body.name, 'kit');
  t.false(edited.body.allow_rebase);
  t.true(edited.body.template);
  t.false(existsSync(hearth.deps.git.pathOf('alice', 'tools')));
  t.true(existsSync(hearth.deps.git.pathOf('alice', 'kit')));
  t.is((await hearth.call('GET', '/repos/alice/tools')).body.name, 'kit', 'the old name redirects');

  const removed = await hearth.call('DELETE', '/repos/alice/kit', { auth: alice.bearer });
  t.is(removed.status, 204);
  t.is((await hearth.call('GET', '/repos/alice/kit')).status, 404);
  t.false(existsSync(hearth.deps.git.pathOf('alice', 'kit')));
  const [{ num_repos }] = await hearth.store.db.query<{ num_repos: number }>('SELECT num_repos FROM "user" WHERE id = $1', [alice.user.id]);
  t.is(num_repos, 0);
});

test('bad names and duplicates answer 4xx and leave neither a row nor a directory', async (t) => {
  const hearth = await startHearth(t);
  const bob = await hearth.createUser('bob');
  for (const name of ['x.git', 'has space', '..', 'a'.repeat(101), 'bad/slash']) {
    const answer = await hearth.call('POST', '/user/repos', { auth: bob.bearer, body: { name } });
    t.is(answer.status, 422, `${name}: ${JSON.stringify(answer.body)}`);
    t.truthy(answer.body.message);
  }
  t.is((await hearth.call('POST', '/user/repos', { auth: bob.bearer, body: { name: 'ok', default_branch: 'bad..branch' } })).status, 422);
  t.false(existsSync(hearth.deps.git.pathOf('bob', 'ok')));
  t.is((await hearth.call('POST', '/user/repos', { auth: bob.bearer, body: { name: 'ok' } })).status, 201);
  const duplicate = await hearth.call('POST', '/user/repos', { auth: bob.bearer, body: { name: 'OK' } });
  t.is(duplicate.status, 409);
  const rows = await hearth.store.db.query('SELECT 1 FROM repository');
  t.is(rows.length, 1);
});

test('a private repository is 404 to others and visible to its owner', async (t) => {
  const hearth = await startHearth(t);
  const carol = await hearth.createUser('carol');
  const dave = await hearth.createUser('dave');
  await build.repo(hearth, carol, { name: 'secret', private: true });
  t.is((await hearth.call('GET', '/repos/carol/secret', { auth: dave.bearer })).status, 404);
  t.is((await hearth.call('GET', '/repos/carol/secret')).status, 404);
  t.is((await hearth.call('GET', '/repos/carol/secret', { auth: carol.bearer })).status, 200);
  t.is((await hearth.call('PATCH', '/repos/carol/secret', { auth: dave.bearer, body: { description: 'x' } })).status, 404);
  const list = await hearth.call('GET', '/users/carol/repos', { auth: dave.bearer });
  t.deepEqual(list.body, []);
});
