import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth } from '../helpers/hearth.js';

test('an organization blocks and unblocks a user; a blocked user cannot join its teams', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const carol = await hearth.createUser('carol');
  const org = await build.org(hearth, alice, { name: 'acme' });
  const devs = await build.team(hearth, org, { name: 'devs', permission: 'read', units: ['repo.code'], members: [carol] });
  await build.repo(hearth, org, { name: 'app' });
  await hearth.store.db.query(`INSERT INTO collaboration (repo_id, user_id, mode) SELECT id, $1, 2 FROM repository WHERE lower_name = 'app'`, [bob.user.id]);

  t.is((await hearth.call('GET', '/orgs/acme/blocks/bob', { auth: alice.bearer })).status, 404);
  t.is((await hearth.call('PUT', '/orgs/acme/blocks/bob', { auth: carol.bearer })).status, 403, 'members who are not owners cannot block');
  const blocked = await hearth.call('PUT', '/orgs/acme/blocks/bob?note=spam', { auth: alice.bearer });
  t.is(blocked.status, 204, JSON.stringify(blocked.body));
  const [row] = await hearth.store.db.query<{ blocker_id: number; note: string }>('SELECT blocker_id, note FROM user_blocking WHERE blockee_id = $1', [bob.user.id]);
  t.deepEqual(row, { blocker_id: org.id, note: 'spam' });
  t.is((await hearth.store.db.query(`SELECT 1 FROM collaboration WHERE user_id = $1`, [bob.user.id])).length, 0, 'collaborations end');
  t.is((await hearth.call('GET', '/orgs/acme/blocks/bob', { auth: alice.bearer })).status, 204);
  const list = await hearth.call('GET', '/orgs/acme/blocks', { auth: alice.bearer });
  t.deepEqual(list.body.map((u: { login: string }) => u.login), ['bob']);
  t.is(list.headers.get('x-total-count'), '1');

  const join = await hearth.call('PUT', `/teams/${devs.id}/members/bob`, { auth: alice.bearer });
  t.is(join.status, 403);
  t.is((await hearth.store.db.query('SELECT 1 FROM team_user WHERE uid = $1', [bob.user.id])).length, 0);

  for (const [name, message] of [['bob', /can not be blocked/], ['carol', /can not be blocked/], ['alice', /can not be blocked/], ['acme', /cannot block an organization/]] as const) {
    const answer = await hearth.call('PUT', `/orgs/acme/blocks/${name}`, { auth: alice.bearer });
    t.is(answer.status, 422, name);
    t.regex(answer.body.message, message);
  }
  t.is((await hearth.call('PUT', '/orgs/acme/blocks/nobody', { auth: alice.bearer })).status, 404);

  t.is((await hearth.call('DELETE', '/orgs/acme/blocks/bob', { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('DELETE', '/orgs/acme/blocks/bob', { auth: alice.bearer })).status, 422, 'not blocked any more');
  t.is((await hearth.store.db.query('SELECT 1 FROM user_blocking')).length, 0);
  t.is((await hearth.call('PUT', `/teams/${devs.id}/members/bob`, { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('GET', '/orgs/acme/blocks')).status, 401);
});
