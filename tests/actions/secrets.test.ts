import test from 'ava';
import { decryptSecret } from '../../db/crypto.js';
import { secretsForRepo } from '../../db/models/actions/scope.js';
import { build } from '../helpers/build.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';

const enabled = { HEARTH__actions__ENABLED: 'true' };

async function sealedRows(hearth: TestHearth): Promise<{ name: string; owner_id: number | null; repo_id: number | null; data_sealed: string }[]> {
  return hearth.store.db.query('SELECT name, owner_id, repo_id, data_sealed FROM secret ORDER BY id');
}

async function eventKinds(hearth: TestHearth): Promise<string[]> {
  const rows = await hearth.store.db.query<{ kind: string }>("SELECT kind FROM domain_event WHERE kind LIKE 'actions.secret%' ORDER BY id");
  return rows.map((row) => row.kind);
}

test('repository secrets: PUT creates (201) then updates (204), sealed at rest, listed without values, DELETE 204 then 404, each change an event', async (t) => {
  const hearth = await startHearth(t, enabled);
  const alice = await hearth.createUser('alice');
  const repo = await build.repo(hearth, alice, { name: 'tool' });

  const made = await hearth.call('PUT', '/repos/alice/tool/actions/secrets/deploy_key', { auth: alice.bearer, body: { data: 'hunter2-first' } });
  t.is(made.status, 201, JSON.stringify(made.body));
  t.is(made.body, undefined);
  let [row] = await sealedRows(hearth);
  t.like(row, { name: 'DEPLOY_KEY', owner_id: null, repo_id: repo.id });
  t.false(row.data_sealed.includes('hunter2'));
  t.is(decryptSecret(hearth.config.security.secretKey, row.data_sealed), 'hunter2-first');

  const updated = await hearth.call('PUT', '/repos/alice/tool/actions/secrets/DEPLOY_KEY', { auth: alice.bearer, body: { data: 'hunter2\r\nsecond' } });
  t.is(updated.status, 204);
  const rows = await sealedRows(hearth);
  t.is(rows.length, 1);
  [row] = rows;
  t.is(decryptSecret(hearth.config.security.secretKey, row.data_sealed), 'hunter2\nsecond');

  await hearth.call('PUT', '/repos/alice/tool/actions/secrets/_', { auth: alice.bearer, body: { data: 'x' } });
  const listed = await hearth.call('GET', '/repos/alice/tool/actions/secrets', { auth: alice.bearer });
  t.is(listed.status, 200);
  t.is(listed.headers.get('x-total-count'), '2');
  t.deepEqual(listed.body.map((s: { name: string }) => s.name), ['DEPLOY_KEY', '_']);
  t.deepEqual(Object.keys(listed.body[0]).sort(), ['created_at', 'name']);
  t.regex(listed.body[0].created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  t.false(JSON.stringify(listed.body).includes('hunter2'));
  const paged = await hearth.call('GET', '/repos/alice/tool/actions/secrets?limit=1&page=2', { auth: alice.bearer });
  t.deepEqual(paged.body.map((s: { name: string }) => s.name), ['_']);

  t.is((await hearth.call('DELETE', '/repos/alice/tool/actions/secrets/deploy_key', { auth: alice.bearer })).status, 204);
  const again = await hearth.call('DELETE', '/repos/alice/tool/actions/secrets/deploy_key', { auth: alice.bearer });
  t.is(again.status, 404);
  t.is(again.body.message, 'secret not found');
  t.deepEqual((await sealedRows(hearth)).map((r) => r.name), ['_']);
  t.deepEqual(await eventKinds(hearth), ['actions.secret_created', 'actions.secret_updated', 'actions.secret_created', 'actions.secret_deleted']);
});

test("names follow Gitea's rule: letters, digits, underscores, no leading digit, no GITEA_ or GITHUB_ prefix; data is required", async (t) => {
  const hearth = await startHearth(t, enabled);
  const alice = await hearth.createUser('alice');
  await build.repo(hearth, alice, { name: 'tool' });
  const cases: [string, number][] = [
    ['-', 400], ['1abc', 400], ['var@test', 400], ['github_token', 400], ['GITEA_X', 400], ['gItHuB_x', 400], ['a%20b', 400], ['%C3%A9', 400], ['a'.repeat(256), 400],
    ['_', 201], ['ci', 201], ['a1_B2', 201], ['GITHUB', 201],
  ];
  for (const [name, status] of cases) {
    const answer = await hearth.call('PUT', `/repos/alice/tool/actions/secrets/${name}`, { auth: alice.bearer, body: { data: 'v' } });
    t.is(answer.status, status, name);
    if (status === 400) t.is(answer.body.message, 'invalid secret name');
  }
  // a NUL never reaches the database: the router answers 404 for it
  t.is((await hearth.call('PUT', '/repos/alice/tool/actions/secrets/a%00', { auth: alice.bearer, body: { data: 'v' } })).status, 404);
  t.is((await hearth.call('PUT', `/repos/alice/tool/actions/secrets/${'a'.repeat(255)}`, { auth: alice.bearer, body: { data: 'v' } })).status, 201);
  t.is((await hearth.call('DELETE', `/repos/alice/tool/actions/secrets/${'A'.repeat(255)}`, { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('PUT', '/repos/alice/tool/actions/secrets/fine', { auth: alice.bearer, body: {} })).status, 422);
  t.is((await hearth.call('PUT', '/repos/alice/tool/actions/secrets/fine', { auth: alice.bearer, body: { data: '' } })).status, 422);
  t.deepEqual((await sealedRows(hearth)).map((r) => r.name).sort(), ['A1_B2', 'CI', 'GITHUB', '_']);

  // DELETE checks the name as creating does, before any look-up (Gitea's DeleteSecretByName calls ValidateName)
  await build.org(hearth, alice, { name: 'acme' });
  for (const base of ['/repos/alice/tool', '/orgs/acme', '/user']) {
    for (const [name] of cases.filter(([, status]) => status === 400)) {
      const answer = await hearth.call('DELETE', `${base}/actions/secrets/${name}`, { auth: alice.bearer });
      t.is(answer.status, 400, `DELETE ${base} ${name}`);
      t.is(answer.body.message, 'invalid secret name');
    }
    t.is((await hearth.call('DELETE', `${base}/actions/secrets/NOT_THERE`, { auth: alice.bearer })).status, 404);
  }
  t.deepEqual((await sealedRows(hearth)).map((r) => r.name).sort(), ['A1_B2', 'CI', 'GITHUB', '_']);
});

test('only the owner, an organization owner, a repository administrator or a site administrator manage repository secrets', async (t) => {
  const hearth = await startHearth(t, enabled);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const carol = await hearth.createUser('carol');
  const root = await hearth.createUser('root', { admin: true });
  await build.repo(hearth, alice, { name: 'tool' });
  await build.repo(hearth, alice, { name: 'hidden', private: true });
  t.is((await hearth.call('PUT', '/repos/alice/tool/collaborators/bob', { auth: alice.bearer, body: { permission: 'write' } })).status, 204);
  t.is((await hearth.call('PUT', '/repos/alice/tool/collaborators/carol', { auth: alice.bearer, body: { permission: 'admin' } })).status, 204);

  const put = (auth: string | undefined, repo = 'tool') => hearth.call('PUT', `/repos/alice/${repo}/actions/secrets/KEY`, { auth, body: { data: 'v' } });
  t.is((await put(undefined)).status, 401);
  t.is((await hearth.call('GET', '/repos/alice/tool/actions/secrets')).status, 401);
  t.is((await put(bob.bearer)).status, 403);
  t.is((await hearth.call('GET', '/repos/alice/tool/actions/secrets', { auth: bob.bearer })).status, 403);
  t.is((await hearth.call('DELETE', '/repos/alice/tool/actions/secrets/KEY', { auth: bob.bearer })).status, 403);
  t.is((await put(bob.bearer, 'hidden')).status, 404);
  t.is((await put(carol.bearer)).status, 201);
  t.is((await put(root.bearer)).status, 204);
  t.is((await put(alice.bearer)).status, 204);
  const readOnly = await hearth.createUser('reader', { scopes: ['read:repository'] });
  await hearth.call('PUT', '/repos/alice/tool/collaborators/reader', { auth: alice.bearer, body: { permission: 'admin' } });
  t.is((await put(readOnly.bearer)).status, 403);
  t.is((await hearth.call('GET', '/repos/alice/tool/actions/secrets', { auth: readOnly.bearer })).status, 200);
  t.is((await sealedRows(hearth)).length, 1);
});

test('organization and user secrets; a workflow of a repository sees its owner’s secrets with its own winning', async (t) => {
  const hearth = await startHearth(t, enabled);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const org = await build.org(hearth, alice, { name: 'acme' });
  await build.team(hearth, org, { name: 'devs', permission: 'write', members: [bob] });
  const repo = await build.repo(hearth, org, { name: 'app' });

  t.is((await hearth.call('PUT', '/orgs/acme/actions/secrets/shared', { auth: alice.bearer, body: { data: 'org-shared' } })).status, 201);
  t.is((await hearth.call('PUT', '/orgs/acme/actions/secrets/only_org', { auth: alice.bearer, body: { data: 'org-only' } })).status, 201);
  t.is((await hearth.call('PUT', '/orgs/acme/actions/secrets/shared', { auth: alice.bearer, body: { data: 'org-shared-2' } })).status, 204);
  t.is((await hearth.call('PUT', '/repos/acme/app/actions/secrets/SHARED', { auth: alice.bearer, body: { data: 'repo-shared' } })).status, 201);
  t.is((await hearth.call('PUT', '/orgs/acme/actions/secrets/x', { auth: bob.bearer, body: { data: 'v' } })).status, 403);
  t.is((await hearth.call('GET', '/orgs/acme/actions/secrets', { auth: bob.bearer })).status, 403);
  t.is((await hearth.call('PUT', '/orgs/acme/actions/secrets/x', { body: { data: 'v' } })).status, 401);
  t.is((await hearth.call('PUT', '/repos/acme/app/actions/secrets/x', { auth: bob.bearer, body: { data: 'v' } })).status, 403);

  const listed = await hearth.call('GET', '/orgs/acme/actions/secrets', { auth: alice.bearer });
  t.is(listed.status, 200);
  t.deepEqual(listed.body.map((s: { name: string }) => s.name), ['ONLY_ORG', 'SHARED']);
  t.deepEqual(await secretsForRepo(hearth.store.db, repo, hearth.config.security.secretKey), { SHARED: 'repo-shared', ONLY_ORG: 'org-only' });

  t.is((await hearth.call('PUT', '/user/actions/secrets/mine', { auth: bob.bearer, body: { data: 'bob-secret' } })).status, 201);
  t.is((await hearth.call('PUT', '/user/actions/secrets/mine', { auth: bob.bearer, body: { data: 'bob-secret-2' } })).status, 204);
  t.is((await hearth.call('PUT', '/user/actions/secrets/mine', { body: { data: 'v' } })).status, 401);
  const bobRepo = await build.repo(hearth, bob, { name: 'own' });
  t.deepEqual(await secretsForRepo(hearth.store.db, bobRepo, hearth.config.security.secretKey), { MINE: 'bob-secret-2' });
  const rows = await sealedRows(hearth);
  t.false(rows.some((row) => row.data_sealed.includes('secret') || row.data_sealed.includes('shared')));
  t.is((await hearth.call('DELETE', '/user/actions/secrets/MINE', { auth: alice.bearer })).status, 404);
  t.is((await hearth.call('DELETE', '/user/actions/secrets/mine', { auth: bob.bearer })).status, 204);
  t.is((await hearth.call('DELETE', '/user/actions/secrets/mine', { auth: bob.bearer })).status, 404);
  t.is((await hearth.call('DELETE', '/orgs/acme/actions/secrets/only_org', { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('DELETE', '/orgs/acme/actions/secrets/only_org', { auth: alice.bearer })).status, 404);
});

test('with actions disabled every secret route answers 404; a repository with its actions unit off answers 404', async (t) => {
  const off = await startHearth(t);
  const alice = await off.createUser('alice');
  await build.org(off, alice, { name: 'acme' });
  await build.repo(off, alice, { name: 'tool' });
  for (const [method, path] of [
    ['PUT', '/repos/alice/tool/actions/secrets/A'], ['GET', '/repos/alice/tool/actions/secrets'], ['DELETE', '/repos/alice/tool/actions/secrets/A'],
    ['PUT', '/orgs/acme/actions/secrets/A'], ['GET', '/orgs/acme/actions/secrets'], ['PUT', '/user/actions/secrets/A'], ['DELETE', '/user/actions/secrets/A'],
  ]) {
    t.is((await off.call(method, path, { auth: alice.bearer, body: method === 'PUT' ? { data: 'v' } : undefined })).status, 404, `${method} ${path}`);
  }
  t.is((await off.store.db.query('SELECT 1 FROM secret')).length, 0);

  const on = await startHearth(t, enabled);
  const bob = await on.createUser('bob');
  await build.repo(on, bob, { name: 'tool' });
  t.is((await on.call('PATCH', '/repos/bob/tool', { auth: bob.bearer, body: { has_actions: false } })).status, 200);
  t.is((await on.call('PUT', '/repos/bob/tool/actions/secrets/A', { auth: bob.bearer, body: { data: 'v' } })).status, 404);
  t.is((await on.call('GET', '/repos/bob/tool/actions/secrets', { auth: bob.bearer })).status, 404);
  t.is((await on.call('PATCH', '/repos/bob/tool', { auth: bob.bearer, body: { has_actions: true } })).status, 200);
  t.is((await on.call('PUT', '/repos/bob/tool/actions/secrets/A', { auth: bob.bearer, body: { data: 'v' } })).status, 201);
});
