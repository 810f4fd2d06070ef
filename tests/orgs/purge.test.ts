import { existsSync } from 'node:fs';
import test from 'ava';
import { inTx } from '../../db/data-source.js';
import { deleteUser } from '../../db/models/users/users.js';
import { build } from '../helpers/build.js';
import { startHearth } from '../helpers/hearth.js';

test('deleting a user who owns repositories or belongs to organizations needs purge', async (t) => {
  const hearth = await startHearth(t);
  const root = await hearth.createUser('root', { admin: true });
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  await build.repo(hearth, alice, { name: 'own' });
  const refusedRepos = await hearth.call('DELETE', '/admin/users/alice', { auth: root.bearer });
  t.is(refusedRepos.status, 422);
  t.regex(refusedRepos.body.message, /user still has ownership of repositories/);

  await build.org(hearth, bob, { name: 'bobs' });
  const refusedOrgs = await hearth.call('DELETE', '/admin/users/bob', { auth: root.bearer });
  t.is(refusedOrgs.status, 422);
  t.regex(refusedOrgs.body.message, /user still has membership of organizations/);
  t.is((await hearth.call('GET', '/users/bob')).status, 200);
  t.is((await hearth.call('GET', '/orgs/bobs')).status, 200);
});

test('purge deletes the user, their repositories, and the organizations they alone own with their repositories', async (t) => {
  const hearth = await startHearth(t);
  const root = await hearth.createUser('root', { admin: true });
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  await build.repo(hearth, alice, { name: 'own', autoInit: true });
  await build.repo(hearth, await build.org(hearth, alice, { name: 'solo' }), { name: 'lonely', autoInit: true });
  await build.repo(hearth, await build.org(hearth, alice, { name: 'shared' }), { name: 'kept' });
  const owners = (await hearth.call('GET', '/orgs/shared/teams', { auth: alice.bearer })).body[0];
  await hearth.call('PUT', `/teams/${owners.id}/members/bob`, { auth: alice.bearer });
  const bobs = await build.org(hearth, bob, { name: 'bobs' });
  const bobsDevs = await build.team(hearth, bobs, { name: 'devs', permission: 'read', units: ['repo.code'], members: [alice] });
  t.true(existsSync(hearth.deps.git.pathOf('solo', 'lonely')));

  const purged = await hearth.call('DELETE', '/admin/users/alice?purge=true', { auth: root.bearer });
  t.is(purged.status, 204, JSON.stringify(purged.body));
  t.is((await hearth.call('GET', '/users/alice', { auth: root.bearer })).status, 404);
  t.is((await hearth.call('GET', '/orgs/solo', { auth: root.bearer })).status, 404, 'the organization she alone owned is gone');
  t.is((await hearth.call('GET', '/repos/solo/lonely', { auth: root.bearer })).status, 404);
  t.false(existsSync(hearth.deps.git.pathOf('solo', 'lonely')));
  t.false(existsSync(hearth.deps.git.pathOf('alice', 'own')));
  t.is((await hearth.call('GET', '/repos/shared/kept', { auth: bob.bearer })).status, 200, 'another owner keeps the shared organization');
  t.deepEqual((await hearth.call('GET', '/orgs/shared/members', { auth: bob.bearer })).body.map((u: { login: string }) => u.login), ['bob']);
  t.deepEqual((await hearth.call('GET', `/teams/${bobsDevs.id}/members`, { auth: bob.bearer })).body, []);
  const leftovers = await hearth.store.db.query('SELECT 1 FROM repository WHERE owner_name IN ($1, $2)', ['alice', 'solo']);
  t.is(leftovers.length, 0);
});

test('a purge whose transaction does not commit leaves every repository and directory in place', async (t) => {
  const hearth = await startHearth(t);
  const root = await hearth.createUser('root', { admin: true });
  const alice = await hearth.createUser('alice');
  await build.repo(hearth, alice, { name: 'own' });
  await build.repo(hearth, await build.org(hearth, alice, { name: 'solo' }), { name: 'lonely' });
  const failed = inTx(hearth.store, async (tx) => {
    await deleteUser(tx, alice.user, { ctx: hearth.deps, doer: root.user, purge: true });
    throw new Error('something later failed');
  });
  await t.throwsAsync(failed, { message: 'something later failed' });
  t.true(existsSync(hearth.deps.git.pathOf('solo', 'lonely')));
  t.true(existsSync(hearth.deps.git.pathOf('alice', 'own')));
  t.is((await hearth.store.db.query(`SELECT 1 FROM repository WHERE owner_name IN ('solo', 'alice')`)).length, 2);
  t.is((await hearth.call('GET', '/orgs/solo', { auth: alice.bearer })).status, 200);
});
