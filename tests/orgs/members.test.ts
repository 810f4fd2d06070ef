import test from 'ava';
import { startHearth, type TestHearth, type TestUser } from '../helpers/hearth.js';

async function setUp(hearth: TestHearth, visibility = 'public') {
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const carol = await hearth.createUser('carol');
  const org = await hearth.call('POST', '/orgs', { auth: alice.bearer, body: { username: 'acme', visibility } });
  const team = await hearth.call('POST', '/orgs/acme/teams', { auth: alice.bearer, body: { name: 'devs', permission: 'read', units: ['repo.code'] } });
  await hearth.call('PUT', `/teams/${team.body.id}/members/bob`, { auth: alice.bearer });
  return { alice, bob, carol, org: org.body, team: team.body };
}

const logins = (list: Array<{ login: string }>): string[] => list.map((u) => u.login);

test('members are listed in full for members, public members for everyone else', async (t) => {
  const hearth = await startHearth(t);
  const { alice, bob, carol } = await setUp(hearth);
  t.deepEqual(logins((await hearth.call('GET', '/orgs/acme/members', { auth: bob.bearer })).body), ['alice', 'bob']);
  t.deepEqual(logins((await hearth.call('GET', '/orgs/acme/members', { auth: carol.bearer })).body), []);
  t.deepEqual(logins((await hearth.call('GET', '/orgs/acme/public_members')).body), []);
  // public_members answers as members does (issue 26 item 10; Gitea 1.22 shows public members only to everyone)
  const admin = await hearth.createUser('root', { admin: true });
  for (const auth of [alice.bearer, bob.bearer, admin.bearer]) {
    const listed = await hearth.call('GET', '/orgs/acme/public_members', { auth });
    t.deepEqual(logins(listed.body), ['alice', 'bob']);
    t.is(listed.headers.get('x-total-count'), '2');
  }
  t.deepEqual(logins((await hearth.call('GET', '/orgs/acme/public_members', { auth: carol.bearer })).body), []);

  t.is((await hearth.call('PUT', '/orgs/acme/public_members/bob', { auth: bob.bearer })).status, 204);
  const [{ is_public }] = await hearth.store.db.query<{ is_public: boolean }>('SELECT is_public FROM org_user WHERE uid = $1', [bob.user.id]);
  t.true(is_public);
  t.deepEqual(logins((await hearth.call('GET', '/orgs/acme/public_members')).body), ['bob']);
  t.deepEqual(logins((await hearth.call('GET', '/orgs/acme/public_members', { auth: carol.bearer })).body), ['bob']);
  t.deepEqual(logins((await hearth.call('GET', '/orgs/acme/public_members', { auth: bob.bearer })).body), ['alice', 'bob']);
  const forOthers = await hearth.call('GET', '/orgs/acme/members', { auth: carol.bearer });
  t.deepEqual(logins(forOthers.body), ['bob']);
  t.is(forOthers.headers.get('x-total-count'), '1');
  t.is((await hearth.call('GET', '/orgs/acme/public_members/bob')).status, 204);
  t.is((await hearth.call('GET', '/orgs/acme/public_members/alice')).status, 404);

  const other = await hearth.call('PUT', '/orgs/acme/public_members/alice', { auth: bob.bearer });
  t.is(other.status, 403);
  t.is(other.body.message, 'Cannot publicize another member');
  const outsider = await hearth.call('PUT', '/orgs/acme/public_members/carol', { auth: carol.bearer });
  t.is(outsider.status, 403);
  t.is(outsider.body.message, 'Must be an organization member');
  t.is((await hearth.call('DELETE', '/orgs/acme/public_members/bob', { auth: alice.bearer })).status, 403);
  t.is((await hearth.call('DELETE', '/orgs/acme/public_members/bob', { auth: bob.bearer })).status, 204);
  t.deepEqual(logins((await hearth.call('GET', '/orgs/acme/public_members')).body), []);
  t.is((await hearth.call('GET', '/orgs/acme/members')).status, 401);
});

test('membership checks: members see the truth, others are sent to the public membership', async (t) => {
  const hearth = await startHearth(t);
  const { alice, bob, carol } = await setUp(hearth);
  t.is((await hearth.call('GET', '/orgs/acme/members/bob', { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('GET', '/orgs/acme/members/carol', { auth: alice.bearer })).status, 404);
  t.is((await hearth.call('GET', '/orgs/acme/members/carol', { auth: carol.bearer })).status, 404, 'a non-member asking about themselves');
  // A non-member is redirected (303) to the public membership check, which fetch follows.
  t.is((await hearth.call('GET', '/orgs/acme/members/bob', { auth: carol.bearer })).status, 404);
  await hearth.call('PUT', '/orgs/acme/public_members/bob', { auth: bob.bearer });
  t.is((await hearth.call('GET', '/orgs/acme/members/bob', { auth: carol.bearer })).status, 204);
  const manual = await fetch(`${hearth.rootUrl}api/v1/orgs/acme/members/bob`, { headers: { Authorization: carol.bearer }, redirect: 'manual' });
  t.is(manual.status, 303);
  t.is(manual.headers.get('location'), `${hearth.rootUrl}api/v1/orgs/acme/public_members/bob`);
});

test('removing a member takes them out of every team; the last owner stays', async (t) => {
  const hearth = await startHearth(t);
  const { alice, bob, carol, org } = await setUp(hearth);
  t.is((await hearth.call('DELETE', '/orgs/acme/members/alice', { auth: bob.bearer })).status, 403);
  const last = await hearth.call('DELETE', '/orgs/acme/members/alice', { auth: alice.bearer });
  t.is(last.status, 422);
  t.regex(last.body.message, /last member of owner team/);
  t.is((await hearth.call('GET', '/orgs/acme/members/alice', { auth: alice.bearer })).status, 204);

  t.is((await hearth.call('DELETE', '/orgs/acme/members/bob', { auth: alice.bearer })).status, 204);
  const rows = await hearth.store.db.query('SELECT 1 FROM team_user WHERE uid = $1 UNION ALL SELECT 1 FROM org_user WHERE uid = $1', [bob.user.id]);
  t.is(rows.length, 0);
  t.is((await hearth.call('GET', '/orgs/acme/members/bob', { auth: alice.bearer })).status, 404);
  t.is((await hearth.call('DELETE', '/orgs/acme/members/carol', { auth: alice.bearer })).status, 204, 'a non-member: nothing to do');
  t.is((await hearth.call('DELETE', '/orgs/acme/members/nobody', { auth: alice.bearer })).status, 404);

  const owners = (await hearth.call('GET', '/orgs/acme/teams', { auth: alice.bearer })).body.find((team: { name: string }) => team.name === 'Owners');
  await hearth.call('PUT', `/teams/${owners.id}/members/carol`, { auth: alice.bearer });
  t.is((await hearth.call('DELETE', '/orgs/acme/members/alice', { auth: carol.bearer })).status, 204, 'another owner remains');
  const [{ n }] = await hearth.store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM org_user WHERE org_id = $1', [org.id]);
  t.is(n, 1);
  t.is((await hearth.call('GET', '/orgs/acme/members', { auth: alice.bearer })).status, 200, 'alice now sees public members only');
});

test('a private organization hides its members from non-members', async (t) => {
  const hearth = await startHearth(t);
  const { bob, carol }: { bob: TestUser; carol: TestUser } = await setUp(hearth, 'private');
  await hearth.call('PUT', '/orgs/acme/public_members/bob', { auth: bob.bearer });
  t.is((await hearth.call('GET', '/orgs/acme/public_members')).status, 404);
  t.is((await hearth.call('GET', '/orgs/acme/members', { auth: carol.bearer })).status, 404);
  t.deepEqual(logins((await hearth.call('GET', '/orgs/acme/public_members', { auth: bob.bearer })).body), ['alice', 'bob'], 'a member sees every member');
});
