import test from 'ava';
import { variablesForRepo } from '../../db/models/actions/scope.js';
import { build } from '../helpers/build.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';

const enabled = { HEARTH__actions__ENABLED: 'true' };

async function variableRows(hearth: TestHearth): Promise<{ name: string; owner_id: number | null; repo_id: number | null; data: string }[]> {
  return hearth.store.db.query('SELECT name, owner_id, repo_id, data FROM action_variable ORDER BY id');
}

test("user variables: Gitea's name cases, 409 for an existing name in any case, update with rename, delete then 404", async (t) => {
  const hearth = await startHearth(t, enabled);
  const alice = await hearth.createUser('alice');
  const cases: [string, number][] = [
    ['-', 400], ['_', 201], ['TEST_VAR', 201], ['test_var', 409], ['ci', 400], ['123var', 400], ['var@test', 400], ['github_var', 400], ['gitea_var', 400],
  ];
  for (const [name, status] of cases) {
    const answer = await hearth.call('POST', `/user/actions/variables/${name}`, { auth: alice.bearer, body: { value: 'value' } });
    t.is(answer.status, status, name);
  }
  const refused = await hearth.call('POST', '/user/actions/variables/1x', { auth: alice.bearer, body: { value: 'v' } });
  t.is(refused.body.message, 'invalid secret name');
  t.is((await hearth.call('POST', '/user/actions/variables/CI', { auth: alice.bearer, body: { value: 'v' } })).body.message, 'env name cannot be ci');
  t.is((await hearth.call('POST', '/user/actions/variables/TEST_VAR', { auth: alice.bearer, body: { value: 'v' } })).body.message, 'variable name TEST_VAR already exists');
  t.is((await hearth.call('POST', '/user/actions/variables/other', { auth: alice.bearer, body: {} })).status, 422);

  const url = '/user/actions/variables/test_update_var';
  t.is((await hearth.call('POST', url, { auth: alice.bearer, body: { value: 'initial_val' } })).status, 201);
  const updates: [string, string | undefined, number][] = [
    ['not_found_var', undefined, 404], ['test_update_var', '1invalid', 400], ['test_update_var', 'invalid@name', 400], ['test_update_var', 'ci', 400],
    ['test_update_var', 'test_var', 409], ['test_update_var', 'updated_var_name', 204], ['test_update_var', undefined, 404], ['updated_var_name', undefined, 204],
  ];
  for (const [name, newName, status] of updates) {
    const answer = await hearth.call('PUT', `/user/actions/variables/${name}`, { auth: alice.bearer, body: { name: newName, value: 'updated\r\nval' } });
    t.is(answer.status, status, `${name} -> ${newName}`);
  }
  const got = await hearth.call('GET', '/user/actions/variables/Updated_Var_Name', { auth: alice.bearer });
  t.is(got.status, 200);
  t.deepEqual(got.body, { owner_id: alice.user.id, repo_id: 0, name: 'UPDATED_VAR_NAME', data: 'updated\nval' });
  t.is((await hearth.call('GET', '/user/actions/variables/nope', { auth: alice.bearer })).status, 404);
  t.is((await hearth.call('GET', '/user/actions/variables/a%00b', { auth: alice.bearer })).status, 404);
  t.is((await hearth.call('DELETE', '/user/actions/variables/a%00b', { auth: alice.bearer })).status, 404);
  t.is((await hearth.call('PUT', '/user/actions/variables/a%00b', { auth: alice.bearer, body: { value: 'v' } })).status, 404);
  t.is((await hearth.call('POST', '/user/actions/variables/a%C3%A9', { auth: alice.bearer, body: { value: 'v' } })).status, 400);
  t.is((await hearth.call('GET', '/user/actions/variables/a%C3%A9', { auth: alice.bearer })).status, 404);

  const listed = await hearth.call('GET', '/user/actions/variables?limit=2', { auth: alice.bearer });
  t.is(listed.status, 200);
  t.is(listed.headers.get('x-total-count'), '3');
  t.deepEqual(listed.body.map((v: { name: string }) => v.name), ['TEST_VAR', 'UPDATED_VAR_NAME']);
  t.truthy(listed.headers.get('link'));

  t.is((await hearth.call('DELETE', '/user/actions/variables/test_var', { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('DELETE', '/user/actions/variables/test_var', { auth: alice.bearer })).status, 404);
  t.deepEqual((await variableRows(hearth)).map((row) => row.name).sort(), ['UPDATED_VAR_NAME', '_']);
  t.is((await hearth.call('GET', '/user/actions/variables')).status, 401);
  t.is((await hearth.call('POST', '/user/actions/variables/x', { body: { value: 'v' } })).status, 401);

  const kinds = await hearth.store.db.query<{ kind: string }>("SELECT kind FROM domain_event WHERE kind LIKE 'actions.variable%' ORDER BY id");
  t.deepEqual([...new Set(kinds.map((row) => row.kind))].sort(), ['actions.variable_created', 'actions.variable_deleted', 'actions.variable_updated']);
});

test('repository and organization variables: every operation, the permission refusals, and what a workflow sees', async (t) => {
  const hearth = await startHearth(t, enabled);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const org = await build.org(hearth, alice, { name: 'acme' });
  await build.team(hearth, org, { name: 'devs', permission: 'write', members: [bob] });
  const repo = await build.repo(hearth, org, { name: 'app' });

  t.is((await hearth.call('POST', '/orgs/acme/actions/variables/region', { auth: alice.bearer, body: { value: 'eu' } })).status, 201);
  t.is((await hearth.call('POST', '/orgs/acme/actions/variables/tier', { auth: alice.bearer, body: { value: 'gold' } })).status, 201);
  t.is((await hearth.call('POST', '/repos/acme/app/actions/variables/REGION', { auth: alice.bearer, body: { value: 'us' } })).status, 201);
  t.is((await hearth.call('POST', '/repos/acme/app/actions/variables/region', { auth: alice.bearer, body: { value: 'x' } })).status, 409);

  const orgVar = await hearth.call('GET', '/orgs/acme/actions/variables/region', { auth: alice.bearer });
  t.deepEqual(orgVar.body, { owner_id: org.id, repo_id: 0, name: 'REGION', data: 'eu' });
  const repoVar = await hearth.call('GET', '/repos/acme/app/actions/variables/region', { auth: alice.bearer });
  t.deepEqual(repoVar.body, { owner_id: 0, repo_id: repo.id, name: 'REGION', data: 'us' });
  const orgList = await hearth.call('GET', '/orgs/acme/actions/variables', { auth: alice.bearer });
  t.deepEqual(orgList.body.map((v: { name: string }) => v.name), ['REGION', 'TIER']);
  const repoList = await hearth.call('GET', '/repos/acme/app/actions/variables', { auth: alice.bearer });
  t.deepEqual(repoList.body, [repoVar.body]);
  t.deepEqual(await variablesForRepo(hearth.store.db, repo), { REGION: 'us', TIER: 'gold' });

  t.is((await hearth.call('PUT', '/orgs/acme/actions/variables/tier', { auth: alice.bearer, body: { value: 'silver' } })).status, 204);
  t.is((await hearth.call('PUT', '/repos/acme/app/actions/variables/region', { auth: alice.bearer, body: { value: 'ap', name: '' } })).status, 204);
  t.deepEqual(await variablesForRepo(hearth.store.db, repo), { REGION: 'ap', TIER: 'silver' });

  for (const [method, path] of [
    ['GET', '/orgs/acme/actions/variables'], ['GET', '/orgs/acme/actions/variables/tier'], ['POST', '/orgs/acme/actions/variables/new'],
    ['PUT', '/orgs/acme/actions/variables/tier'], ['DELETE', '/orgs/acme/actions/variables/tier'],
    ['GET', '/repos/acme/app/actions/variables'], ['GET', '/repos/acme/app/actions/variables/region'], ['POST', '/repos/acme/app/actions/variables/new'],
    ['PUT', '/repos/acme/app/actions/variables/region'], ['DELETE', '/repos/acme/app/actions/variables/region'],
  ]) {
    const body = method === 'POST' || method === 'PUT' ? { value: 'v' } : undefined;
    t.is((await hearth.call(method, path, { auth: bob.bearer, body })).status, 403, `bob ${method} ${path}`);
    t.is((await hearth.call(method, path, { body })).status, 401, `anonymous ${method} ${path}`);
  }

  t.is((await hearth.call('DELETE', '/repos/acme/app/actions/variables/region', { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('DELETE', '/repos/acme/app/actions/variables/region', { auth: alice.bearer })).status, 404);
  t.is((await hearth.call('DELETE', '/orgs/acme/actions/variables/tier', { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('GET', '/orgs/acme/actions/variables/tier', { auth: alice.bearer })).status, 404);
  t.deepEqual(await variablesForRepo(hearth.store.db, repo), { REGION: 'eu' });
});

test('with actions disabled the variable routes answer 404; so do a repository’s while its actions unit is off', async (t) => {
  const off = await startHearth(t);
  const alice = await off.createUser('alice');
  await build.org(off, alice, { name: 'acme' });
  await build.repo(off, alice, { name: 'tool' });
  for (const path of ['/user/actions/variables/A', '/orgs/acme/actions/variables/A', '/repos/alice/tool/actions/variables/A']) {
    t.is((await off.call('POST', path, { auth: alice.bearer, body: { value: 'v' } })).status, 404, path);
    t.is((await off.call('GET', path, { auth: alice.bearer })).status, 404, path);
  }
  t.is((await off.call('GET', '/user/actions/variables', { auth: alice.bearer })).status, 404);
  t.is((await off.store.db.query('SELECT 1 FROM action_variable')).length, 0);

  const on = await startHearth(t, enabled);
  const bob = await on.createUser('bob');
  await build.repo(on, bob, { name: 'tool' });
  await on.call('PATCH', '/repos/bob/tool', { auth: bob.bearer, body: { has_actions: false } });
  t.is((await on.call('POST', '/repos/bob/tool/actions/variables/A', { auth: bob.bearer, body: { value: 'v' } })).status, 404);
  t.is((await on.call('GET', '/repos/bob/tool/actions/variables', { auth: bob.bearer })).status, 404);
  t.is((await on.call('POST', '/user/actions/variables/A', { auth: bob.bearer, body: { value: 'v' } })).status, 201);
});
