import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth } from '../helpers/hearth.js';

test('an administrator of the repository adds, changes and removes collaborators; access follows', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const carol = await hearth.createUser('carol');
  await build.repo(hearth, alice, { name: 'secret', private: true });
  t.is((await hearth.call('GET', '/repos/alice/secret', { auth: bob.bearer })).status, 404);

  const added = await hearth.call('PUT', '/repos/alice/secret/collaborators/bob', { auth: alice.bearer, body: { permission: 'read' } });
  t.is(added.status, 204, JSON.stringify(added.body));
  const [row] = await hearth.store.db.query<{ mode: number }>('SELECT mode FROM collaboration WHERE user_id = $1', [bob.user.id]);
  t.is(row.mode, 1);
  const seen = await hearth.call('GET', '/repos/alice/secret', { auth: bob.bearer });
  t.is(seen.status, 200);
  t.deepEqual(seen.body.permissions, { admin: false, push: false, pull: true });

  t.is((await hearth.call('GET', '/repos/alice/secret/collaborators/bob', { auth: bob.bearer })).status, 204);
  t.is((await hearth.call('GET', '/repos/alice/secret/collaborators/carol', { auth: bob.bearer })).status, 404);
  t.is((await hearth.call('GET', '/repos/alice/secret/collaborators/nobody', { auth: bob.bearer })).status, 422);
  const list = await hearth.call('GET', '/repos/alice/secret/collaborators', { auth: bob.bearer });
  t.is(list.status, 200);
  t.deepEqual(list.body.map((u: { login: string }) => u.login), ['bob']);
  t.is(list.headers.get('x-total-count'), '1');

  // a reader may not manage collaborators; a collaborator with admin may
  t.is((await hearth.call('PUT', '/repos/alice/secret/collaborators/carol', { auth: bob.bearer, body: {} })).status, 403);
  t.is((await hearth.call('PUT', '/repos/alice/secret/collaborators/bob', { auth: alice.bearer, body: { permission: 'admin' } })).status, 204);
  t.is((await hearth.call('PUT', '/repos/alice/secret/collaborators/carol', { auth: bob.bearer, body: {} })).status, 204);
  const [carolRow] = await hearth.store.db.query<{ mode: number }>('SELECT mode FROM collaboration WHERE user_id = $1', [carol.user.id]);
  t.is(carolRow.mode, 2, 'write is the default permission');
  const push = await hearth.call('GET', '/repos/alice/secret', { auth: carol.bearer });
  t.deepEqual(push.body.permissions, { admin: false, push: true, pull: true });

  const removed = await hearth.call('DELETE', '/repos/alice/secret/collaborators/carol', { auth: bob.bearer });
  t.is(removed.status, 204);
  t.is((await hearth.call('GET', '/repos/alice/secret', { auth: carol.bearer })).status, 404);
  const rows = await hearth.store.db.query('SELECT 1 FROM collaboration WHERE user_id = $1', [carol.user.id]);
  t.is(rows.length, 0);
});

test('refusals: the owner, unknown users, bad permissions, anonymous callers and outsiders', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  await build.repo(hearth, alice, { name: 'tools' });

  const owner = await hearth.call('PUT', '/repos/alice/tools/collaborators/alice', { auth: alice.bearer, body: {} });
  t.is(owner.status, 422);
  t.truthy(owner.body.message);
  t.is((await hearth.call('PUT', '/repos/alice/tools/collaborators/ghost', { auth: alice.bearer, body: {} })).status, 422);
  t.is((await hearth.call('DELETE', '/repos/alice/tools/collaborators/ghost', { auth: alice.bearer })).status, 422);
  t.is((await hearth.call('PUT', '/repos/alice/tools/collaborators/bob', { auth: alice.bearer, body: { permission: 'owner' } })).status, 422);
  t.is((await hearth.call('PUT', '/repos/alice/tools/collaborators/bob', { body: {} })).status, 401);
  t.is((await hearth.call('GET', '/repos/alice/tools/collaborators')).status, 401);
  t.is((await hearth.call('PUT', '/repos/alice/tools/collaborators/bob', { auth: bob.bearer, body: {} })).status, 403);
  t.is((await hearth.call('PUT', '/repos/alice/none/collaborators/bob', { auth: alice.bearer, body: {} })).status, 404);
  const rows = await hearth.store.db.query('SELECT 1 FROM collaboration');
  t.is(rows.length, 0);
});

test('permission of a user: owner, collaborator, outsider; only admins and the user themself may ask', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const carol = await hearth.createUser('carol');
  const root = await hearth.createUser('root', { admin: true });
  await build.repo(hearth, alice, { name: 'tools' });
  await hearth.call('PUT', '/repos/alice/tools/collaborators/bob', { auth: alice.bearer, body: { permission: 'write' } });

  const ownerPerm = await hearth.call('GET', '/repos/alice/tools/collaborators/alice/permission', { auth: alice.bearer });
  t.is(ownerPerm.status, 200);
  t.is(ownerPerm.body.permission, 'owner');
  t.is(ownerPerm.body.role_name, 'owner');
  t.is(ownerPerm.body.user.login, 'alice');
  const bobSelf = await hearth.call('GET', '/repos/alice/tools/collaborators/bob/permission', { auth: bob.bearer });
  t.is(bobSelf.status, 200);
  t.is(bobSelf.body.permission, 'write');
  const carolByAdmin = await hearth.call('GET', '/repos/alice/tools/collaborators/carol/permission', { auth: root.bearer });
  t.is(carolByAdmin.body.permission, 'read');
  t.is((await hearth.call('GET', '/repos/alice/tools/collaborators/bob/permission', { auth: carol.bearer })).status, 403);
  t.is((await hearth.call('GET', '/repos/alice/tools/collaborators/nobody/permission', { auth: alice.bearer })).status, 404);
});

test('assignees are writers and the owner; reviewers include readers', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const carol = await hearth.createUser('carol');
  const dave = await hearth.createUser('dave');
  await build.repo(hearth, alice, { name: 'tools' });
  await hearth.call('PUT', '/repos/alice/tools/collaborators/carol', { auth: alice.bearer, body: { permission: 'write' } });
  await hearth.call('PUT', '/repos/alice/tools/collaborators/bob', { auth: alice.bearer, body: { permission: 'admin' } });
  await hearth.call('PUT', '/repos/alice/tools/collaborators/dave', { auth: alice.bearer, body: { permission: 'read' } });

  const assignees = await hearth.call('GET', '/repos/alice/tools/assignees', { auth: dave.bearer });
  t.is(assignees.status, 200);
  t.deepEqual(assignees.body.map((u: { login: string }) => u.login), ['bob', 'carol', 'alice']);
  const reviewers = await hearth.call('GET', '/repos/alice/tools/reviewers', { auth: dave.bearer });
  t.deepEqual(reviewers.body.map((u: { login: string }) => u.login), ['bob', 'carol', 'dave', 'alice']);
  t.is((await hearth.call('GET', '/repos/alice/tools/assignees')).status, 401);

  await hearth.call('DELETE', '/repos/alice/tools/collaborators/carol', { auth: alice.bearer });
  const after = await hearth.call('GET', '/repos/alice/tools/assignees', { auth: alice.bearer });
  t.deepEqual(after.body.map((u: { login: string }) => u.login), ['bob', 'alice']);
});

test('assignees of an organization repository include members of teams with write access to it', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const dave = await hearth.createUser('dave');
  const acme = await build.org(hearth, alice, { name: 'acme' });
  await build.repo(hearth, acme, { name: 'r' });
  await build.team(hearth, acme, { name: 'devs', permission: 'write', units: ['repo.code', 'repo.issues'], includesAllRepositories: true, members: [bob] });
  await build.team(hearth, acme, { name: 'readers', permission: 'read', units: ['repo.code'], includesAllRepositories: true, members: [dave] });
  const assignees = await hearth.call('GET', '/repos/acme/r/assignees', { auth: alice.bearer });
  t.is(assignees.status, 200);
  t.deepEqual(assignees.body.map((u: { login: string }) => u.login).sort(), ['alice', 'bob']);
});
