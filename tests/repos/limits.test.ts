import { existsSync } from 'node:fs';
import test from 'ava';
import { startHearth, type TestHearth, type TestUser } from '../helpers/hearth.js';

const create = async (hearth: TestHearth, user: TestUser, name: string): Promise<number> =>
  (await hearth.call('POST', '/user/repos', { auth: user.bearer, body: { name } })).status;

const numRepos = async (hearth: TestHearth, user: TestUser): Promise<number> =>
  (await hearth.store.db.query<{ num_repos: number }>('SELECT num_repos FROM "user" WHERE id = $1', [user.user.id]))[0].num_repos;

test('MAX_CREATION_LIMIT refuses creating; forking stays allowed while ALLOW_FORK_WITHOUT_MAXIMUM_LIMIT is on (the default)', async (t) => {
  const hearth = await startHearth(t, { HEARTH__repository__MAX_CREATION_LIMIT: '1' });
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  t.is(await create(hearth, alice, 'lib'), 201);
  t.is(await create(hearth, bob, 'first'), 201);
  const refused = await hearth.call('POST', '/user/repos', { auth: bob.bearer, body: { name: 'second' } });
  t.is(refused.status, 403);
  t.regex(refused.body.message, /limit of 1/);
  t.false(existsSync(hearth.deps.git.pathOf('bob', 'second')));
  const fork = await hearth.call('POST', '/repos/alice/lib/forks', { auth: bob.bearer, body: {} });
  t.is(fork.status, 202, JSON.stringify(fork.body));
  t.is(await numRepos(hearth, bob), 2);
});

test('with ALLOW_FORK_WITHOUT_MAXIMUM_LIMIT off, a user at the limit can neither fork nor create', async (t) => {
  const hearth = await startHearth(t, { HEARTH__repository__MAX_CREATION_LIMIT: '1', HEARTH__repository__ALLOW_FORK_WITHOUT_MAXIMUM_LIMIT: 'false' });
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  t.is(await create(hearth, alice, 'lib'), 201);
  const carol = await hearth.createUser('carol');
  const underLimit = await hearth.call('POST', '/repos/alice/lib/forks', { auth: carol.bearer, body: {} });
  t.is(underLimit.status, 202, 'a user below the limit may fork');

  t.is(await create(hearth, bob, 'own'), 201);
  const fork = await hearth.call('POST', '/repos/alice/lib/forks', { auth: bob.bearer, body: {} });
  t.is(fork.status, 409, JSON.stringify(fork.body));
  t.regex(fork.body.message, /maximum limit of repositories/);
  t.false(existsSync(hearth.deps.git.pathOf('bob', 'lib')));
  t.is((await hearth.call('GET', '/repos/alice/lib')).body.forks_count, 1);
  t.is(await create(hearth, bob, 'more'), 403);
  t.is(await numRepos(hearth, bob), 1);
});

test('a per-user max_repo_creation overrides the global limit, for creating and (with the setting off) forking', async (t) => {
  const hearth = await startHearth(t, { HEARTH__repository__MAX_CREATION_LIMIT: '1', HEARTH__repository__ALLOW_FORK_WITHOUT_MAXIMUM_LIMIT: 'false' });
  const root = await hearth.createUser('root', { admin: true });
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  t.is(await create(hearth, alice, 'lib'), 201);
  const edit = await hearth.call('PATCH', '/admin/users/bob', { auth: root.bearer, body: { max_repo_creation: 2 } });
  t.is(edit.status, 200, JSON.stringify(edit.body));
  t.is(await create(hearth, bob, 'one'), 201);
  t.is((await hearth.call('POST', '/repos/alice/lib/forks', { auth: bob.bearer, body: {} })).status, 202);
  t.is(await create(hearth, bob, 'three'), 403);

  await hearth.call('PATCH', '/admin/users/alice', { auth: root.bearer, body: { max_repo_creation: 0 } });
  t.is(await create(hearth, alice, 'another'), 403, 'zero allows none, whatever the global limit');
  await hearth.call('PATCH', '/admin/users/alice', { auth: root.bearer, body: { max_repo_creation: -1 } });
  t.is(await create(hearth, alice, 'another'), 403, '-1 falls back to the global limit of 1');
});

test('administrators are exempt: their own repositories, and repositories they create for others', async (t) => {
  const hearth = await startHearth(t, { HEARTH__repository__MAX_CREATION_LIMIT: '0', HEARTH__repository__ALLOW_FORK_WITHOUT_MAXIMUM_LIMIT: 'false' });
  const root = await hearth.createUser('root', { admin: true });
  const alice = await hearth.createUser('alice');
  t.is(await create(hearth, root, 'a'), 201);
  t.is(await create(hearth, root, 'b'), 201);
  t.is((await hearth.call('POST', '/repos/root/a/forks', { auth: root.bearer, body: { name: 'a-fork' } })).status, 202);
  t.is(await create(hearth, alice, 'mine'), 403);
  const onBehalf = await hearth.call('POST', '/admin/users/alice/repos', { auth: root.bearer, body: { name: 'given' } });
  t.is(onBehalf.status, 201, JSON.stringify(onBehalf.body));
  t.is(onBehalf.body.full_name, 'alice/given');
  t.is((await hearth.call('POST', '/repos/root/a/forks', { auth: alice.bearer, body: {} })).status, 409);
});
