import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth } from '../helpers/hearth.js';
import { git, ok, refOnServer, scratch } from '../git/git-client.js';

test('an empty repository lists no branches with 200 and refuses branch writes with 404', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  await build.repo(hearth, alice, { name: 'void' });
  const list = await hearth.call('GET', '/repos/alice/void/branches');
  t.is(list.status, 200);
  t.deepEqual(list.body, []);
  t.is(list.headers.get('x-total-count'), '0');
  t.is((await hearth.call('GET', '/repos/alice/void/branches/main')).status, 404);
  const create = await hearth.call('POST', '/repos/alice/void/branches', { auth: alice.bearer, body: { new_branch_name: 'x' } });
  t.is(create.status, 404);
  t.is(create.body.message, 'Git Repository is empty.');
  t.is((await hearth.call('DELETE', '/repos/alice/void/branches/main', { auth: alice.bearer })).status, 404);
});

test('create, read, list and delete branches, names with slashes included; the ref and the row go together', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const reader = await hearth.createUser('reader');
  const made = await build.repo(hearth, alice, { name: 'tree', autoInit: true });
  const main = await refOnServer(hearth, 'alice', 'tree', 'refs/heads/main');
  const base = '/repos/alice/tree/branches';

  const one = await hearth.call('GET', `${base}/main`);
  t.is(one.status, 200);
  t.like(one.body, { name: 'main', protected: false, user_can_push: false, user_can_merge: false, effective_branch_protection_name: '', status_check_contexts: [] });
  t.like(one.body.commit, { id: main, message: 'Initial commit\n', url: `${hearth.rootUrl}alice/tree/commit/${main}` });
  t.like(one.body.commit.author, { name: 'alice', email: 'alice@example.com', username: 'alice' });
  t.regex(one.body.commit.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)$/);
  t.like((await hearth.call('GET', `${base}/main`, { auth: alice.bearer })).body, { user_can_push: true, user_can_merge: true });

  const created = await hearth.call('POST', base, { auth: alice.bearer, body: { new_branch_name: 'feature/x' } });
  t.is(created.status, 201, JSON.stringify(created.body));
  t.is(created.body.name, 'feature/x');
  t.is(created.body.commit.id, main);
  t.is(await refOnServer(hearth, 'alice', 'tree', 'refs/heads/feature/x'), main);
  const rows = await hearth.store.db.query<{ name: string; commit_id: string }>('SELECT name, commit_id FROM branch WHERE repo_id = $1 ORDER BY name', [made.id]);
  t.deepEqual(rows, [{ name: 'feature/x', commit_id: main! }, { name: 'main', commit_id: main! }]);
  t.is((await hearth.call('GET', `${base}/feature/x`)).body.name, 'feature/x');
  t.is((await hearth.call('GET', `${base}/feature%2Fx`)).body.name, 'feature/x');

  const fromRef = await hearth.call('POST', base, { auth: alice.bearer, body: { new_branch_name: 'pinned', old_ref_name: main } });
  t.is(fromRef.status, 201);
  const fromBranch = await hearth.call('POST', base, { auth: alice.bearer, body: { new_branch_name: 'copy', old_branch_name: 'feature/x' } });
  t.is(fromBranch.status, 201);

  const list = await hearth.call('GET', `${base}?limit=2`);
  t.is(list.headers.get('x-total-count'), '4');
  t.is(list.body.length, 2);
  t.regex(list.headers.get('link') ?? '', /rel="next"/);

  const refusals: Array<[unknown, number]> = [
    [{ new_branch_name: 'feature/x' }, 409],
    [{ new_branch_name: 'feature' }, 409],
    [{ new_branch_name: 'feature/x/y' }, 409],
    [{ new_branch_name: 'bad..name' }, 422],
    [{ new_branch_name: 'new', old_branch_name: 'missing' }, 404],
    [{ new_branch_name: 'new', old_ref_name: 'no-such-ref' }, 404],
  ];
  for (const [body, status] of refusals) {
    const answer = await hearth.call('POST', base, { auth: alice.bearer, body });
    t.is(answer.status, status, JSON.stringify([body, answer.body]));
  }
  t.is(await refOnServer(hearth, 'alice', 'tree', 'refs/heads/new'), null);
  t.is((await hearth.call('POST', base, { body: { new_branch_name: 'anon' } })).status, 401);
  t.is((await hearth.call('POST', base, { auth: reader.bearer, body: { new_branch_name: 'r' } })).status, 403);

  // A row without a ref (the database already knows the name): refused before git is touched.
  await hearth.store.db.query(`INSERT INTO branch (repo_id, name, commit_id, commit_time) VALUES ($1, 'ghost', $2, now())`, [made.id, main]);
  t.is((await hearth.call('POST', base, { auth: alice.bearer, body: { new_branch_name: 'ghost' } })).status, 409);
  t.is(await refOnServer(hearth, 'alice', 'tree', 'refs/heads/ghost'), null);

  t.is((await hearth.call('DELETE', `${base}/feature/x`, { auth: reader.bearer })).status, 403);
  t.is((await hearth.call('DELETE', `${base}/feature/x`, { auth: alice.bearer })).status, 204);
  t.is(await refOnServer(hearth, 'alice', 'tree', 'refs/heads/feature/x'), null);
  t.is((await hearth.store.db.query(`SELECT 1 FROM branch WHERE name = 'feature/x'`)).length, 0);
  t.is((await hearth.call('GET', `${base}/feature/x`)).status, 404);
  t.is((await hearth.call('DELETE', `${base}/feature/x`, { auth: alice.bearer })).status, 404);

  const defaultBranch = await hearth.call('DELETE', `${base}/main`, { auth: alice.bearer });
  t.is(defaultBranch.status, 403);
  t.is(defaultBranch.body.message, 'can not delete default branch');
  await hearth.call('POST', '/repos/alice/tree/branch_protections', { auth: alice.bearer, body: { rule_name: 'cop*' } });
  const protectedBranch = await hearth.call('DELETE', `${base}/copy`, { auth: alice.bearer });
  t.is(protectedBranch.status, 403);
  t.is(protectedBranch.body.message, 'branch protected');
  t.is(await refOnServer(hearth, 'alice', 'tree', 'refs/heads/copy'), main);
});

test('branches pushed before any row exists are listed at once: the list synchronizes a non-empty repository', async (t) => {
  const hearth = await startHearth(t);
  const bob = await hearth.createUser('bob');
  await build.repo(hearth, bob, { name: 'legacy', autoInit: true });
  const dir = hearth.deps.git.pathOf('bob', 'legacy');
  const home = scratch(t);
  await ok(git(home, ['--git-dir', dir, 'branch', 'side', 'main']));
  await hearth.store.db.query('DELETE FROM branch');
  const list = await hearth.call('GET', '/repos/bob/legacy/branches');
  t.is(list.status, 200);
  t.deepEqual(list.body.map((b: { name: string }) => b.name).sort(), ['main', 'side']);
  t.is((await hearth.store.db.query('SELECT 1 FROM branch')).length, 2);
});
