import { createHash } from 'node:crypto';
import test from 'ava';
import { inTx } from '../../db/data-source.js';
import { findRegistrationToken, resetRegistrationToken } from '../../db/models/actions/registration-tokens.js';
import { ownerScope } from '../../db/models/actions/scope.js';
import { build } from '../helpers/build.js';
import { startHearth } from '../helpers/hearth.js';
import { fetchTask, json, push, type Runner } from './run-helpers.js';

const enabled = { HEARTH__actions__ENABLED: 'true' };

test('registration tokens of the instance, an organization, a user and a repository: the same token until reset, stored sealed and hashed', async (t) => {
  const hearth = await startHearth(t, enabled);
  const root = await hearth.createUser('root', { admin: true });
  const alice = await hearth.createUser('alice');
  const org = await build.org(hearth, alice, { name: 'acme' });
  const repo = await build.repo(hearth, alice, { name: 'tool' });

  const levels: [string, string, { ownerId: number; repoId: number }][] = [
    ['/admin/runners/registration-token', root.bearer, { ownerId: 0, repoId: 0 }],
    ['/orgs/acme/actions/runners/registration-token', alice.bearer, { ownerId: org.id, repoId: 0 }],
    ['/user/actions/runners/registration-token', alice.bearer, { ownerId: alice.user.id, repoId: 0 }],
    ['/repos/alice/tool/runners/registration-token', alice.bearer, { ownerId: 0, repoId: repo.id }],
  ];
  const tokens: string[] = [];
  for (const [path, auth, owner] of levels) {
    const first = await hearth.call('GET', path, { auth });
    t.is(first.status, 200, path);
    t.deepEqual(Object.keys(first.body), ['token']);
    t.regex(first.body.token, /^[0-9a-f]{40}$/);
    const second = await hearth.call('GET', path, { auth });
    t.is(second.body.token, first.body.token, path);
    t.like(await findRegistrationToken(hearth.store.db, first.body.token), { ...owner, isActive: true });
    tokens.push(first.body.token);
  }
  t.is(new Set(tokens).size, 4);
  t.is(await findRegistrationToken(hearth.store.db, 'f'.repeat(40)), null);
  t.is(await findRegistrationToken(hearth.store.db, ''), null);

  const rows = await hearth.store.db.query<{ token_hash: string; token_sealed: string }>('SELECT token_hash, token_sealed FROM action_runner_token ORDER BY id');
  t.is(rows.length, 4);
  rows.forEach((row, i) => {
    t.is(row.token_hash, createHash('sha256').update(tokens[i]).digest('hex'));
    t.false(row.token_sealed.includes(tokens[i]));
  });

  const fresh = await inTx(hearth.store, (tx) => resetRegistrationToken(tx, hearth.config.security.secretKey, ownerScope(org.id), alice.user.id));
  t.not(fresh, tokens[1]);
  t.like(await findRegistrationToken(hearth.store.db, tokens[1]), { ownerId: org.id, isActive: false });
  t.is((await hearth.call('GET', '/orgs/acme/actions/runners/registration-token', { auth: alice.bearer })).body.token, fresh);
  const kinds = await hearth.store.db.query<{ kind: string }>("SELECT kind FROM domain_event WHERE kind LIKE 'actions.runner_token%' ORDER BY id");
  t.deepEqual(kinds.map((row) => row.kind), [...Array(4).fill('actions.runner_token_created'), 'actions.runner_token_reset']);
});

test('two first requests at once get the same token', async (t) => {
  const hearth = await startHearth(t, enabled);
  const alice = await hearth.createUser('alice');
  const answers = await Promise.all([1, 2, 3, 4].map(() => hearth.call('GET', '/user/actions/runners/registration-token', { auth: alice.bearer })));
  t.deepEqual(answers.map((a) => a.status), [200, 200, 200, 200]);
  t.is(new Set(answers.map((a) => a.body.token)).size, 1);
  t.is((await hearth.store.db.query('SELECT 1 FROM action_runner_token')).length, 1);
});

test('registration tokens are refused to anonymous callers and to users who do not own the level, and answer 404 with actions off', async (t) => {
  const hearth = await startHearth(t, enabled);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const org = await build.org(hearth, alice, { name: 'acme' });
  await build.team(hearth, org, { name: 'devs', permission: 'write', members: [bob] });
  await build.repo(hearth, alice, { name: 'tool' });
  await build.repo(hearth, alice, { name: 'hidden', private: true });
  await hearth.call('PUT', '/repos/alice/tool/collaborators/bob', { auth: alice.bearer, body: { permission: 'write' } });

  for (const path of ['/admin/runners/registration-token', '/orgs/acme/actions/runners/registration-token', '/user/actions/runners/registration-token', '/repos/alice/tool/runners/registration-token']) {
    t.is((await hearth.call('GET', path)).status, 401, path);
  }
  t.is((await hearth.call('GET', '/admin/runners/registration-token', { auth: alice.bearer })).status, 403);
  t.is((await hearth.call('GET', '/orgs/acme/actions/runners/registration-token', { auth: bob.bearer })).status, 403);
  t.is((await hearth.call('GET', '/repos/alice/tool/runners/registration-token', { auth: bob.bearer })).status, 403);
  t.is((await hearth.call('GET', '/repos/alice/hidden/runners/registration-token', { auth: bob.bearer })).status, 404);
  t.is((await hearth.store.db.query('SELECT 1 FROM action_runner_token')).length, 0);

  const off = await startHearth(t);
  const root = await off.createUser('root', { admin: true });
  await build.repo(off, root, { name: 'tool' });
  for (const path of ['/admin/runners/registration-token', '/user/actions/runners/registration-token', '/repos/root/tool/runners/registration-token']) {
    t.is((await off.call('GET', path, { auth: root.bearer })).status, 404, path);
  }
  t.is((await off.store.db.query('SELECT 1 FROM action_runner_token')).length, 0);
});

test('runners belong to the level that registered them: each level lists and deletes its own, the instance every one; jobs go to runners in scope', async (t) => {
  const hearth = await startHearth(t, enabled);
  const root = await hearth.createUser('root', { admin: true });
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  await build.org(hearth, alice, { name: 'acme' });
  const tool = await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  const register = async (tokenPath: string, auth: string, name: string): Promise<Runner & { id: string }> => {
    const token = (await hearth.call('GET', tokenPath, { auth })).body.token;
    const answer = await json(hearth, 'runner.v1.RunnerService/Register', { name, token, labels: ['ubuntu-latest'] });
    return { uuid: answer.body.runner.uuid, token: answer.body.runner.token, id: answer.body.runner.id };
  };
  const instance = await register('/admin/runners/registration-token', root.bearer, 'everywhere');
  const org = await register('/orgs/acme/actions/runners/registration-token', alice.bearer, 'acme-runner');
  const user = await register('/user/actions/runners/registration-token', alice.bearer, 'alice-runner');
  const repo = await register('/repos/alice/tool/runners/registration-token', alice.bearer, 'tool-runner');

  const names = async (path: string, auth: string): Promise<string[]> => {
    const answer = await hearth.call('GET', path, { auth });
    t.is(answer.status, 200, path);
    t.is(answer.body.total_count, answer.body.runners.length);
    return answer.body.runners.map((r: { name: string }) => r.name);
  };
  t.deepEqual(await names('/admin/actions/runners', root.bearer), ['everywhere', 'acme-runner', 'alice-runner', 'tool-runner']);
  t.deepEqual(await names('/orgs/acme/actions/runners', alice.bearer), ['acme-runner']);
  t.deepEqual(await names('/user/actions/runners', alice.bearer), ['alice-runner']);
  t.deepEqual(await names('/repos/alice/tool/actions/runners', alice.bearer), ['tool-runner']);
  t.deepEqual(await names('/user/actions/runners', bob.bearer), []);
  t.is((await hearth.call('GET', '/admin/actions/runners', { auth: alice.bearer })).status, 403);
  t.is((await hearth.call('GET', '/orgs/acme/actions/runners', { auth: bob.bearer })).status, 403);
  t.is((await hearth.call('GET', '/repos/alice/tool/actions/runners', { auth: bob.bearer })).status, 403);
  t.is((await hearth.call('GET', '/repos/alice/tool/actions/runners')).status, 401);

  // a job of alice's repository: not for the organization's runner; for hers, the repository's and the instance's
  await push(hearth, tool, { '.gitea/workflows/ci.yml': 'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps: [{run: echo}]\n' });
  t.is(await fetchTask(hearth, org), null);
  t.truthy(await fetchTask(hearth, user));

  t.is((await hearth.call('DELETE', `/orgs/acme/actions/runners/${repo.id}`, { auth: alice.bearer })).status, 404, 'not the organization\'s runner');
  t.is((await hearth.call('DELETE', `/user/actions/runners/${org.id}`, { auth: alice.bearer })).status, 404);
  t.is((await hearth.call('DELETE', `/orgs/acme/actions/runners/${org.id}`, { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('DELETE', `/admin/actions/runners/${user.id}`, { auth: root.bearer })).status, 204);
  t.is((await hearth.call('DELETE', `/user/actions/runners/${user.id}`, { auth: alice.bearer })).status, 404);
  t.deepEqual(await names('/admin/actions/runners', root.bearer), ['everywhere', 'tool-runner']);
  t.is((await json(hearth, 'runner.v1.RunnerService/FetchTask', {}, org)).body.code, 'unauthenticated');
  const [job] = await hearth.store.db.query<{ status: string }>('SELECT status FROM action_run_job');
  t.is(job.status, 'cancelled', 'the deleted runner\'s job ends cancelled');
  t.truthy(instance.uuid);
});
