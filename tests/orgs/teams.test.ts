import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';

async function setUp(hearth: TestHearth) {
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const carol = await hearth.createUser('carol');
  const org = await build.org(hearth, alice, { name: 'acme', fullName: 'Acme' });
  return { alice, bob, carol, org };
}

async function teamRow(hearth: TestHearth, id: number) {
  const [row] = await hearth.store.db.query('SELECT * FROM team WHERE id = $1', [id]);
  const units = await hearth.store.db.query<{ type: string; access_mode: number }>('SELECT type, access_mode FROM team_unit WHERE team_id = $1 ORDER BY type', [id]);
  return { row, units: Object.fromEntries(units.map((u) => [u.type, u.access_mode])) };
}

test('creating a team answers with its organization, units and units_map', async (t) => {
  const hearth = await startHearth(t);
  const { alice, org } = await setUp(hearth);
  const made = await hearth.call('POST', '/orgs/acme/teams', {
    auth: alice.bearer,
    body: { name: 'devs', description: 'developers', permission: 'write', units: ['repo.code', 'repo.issues'], can_create_org_repo: true },
  });
  t.is(made.status, 201, JSON.stringify(made.body));
  t.like(made.body, {
    name: 'devs', description: 'developers', permission: 'write', includes_all_repositories: false, can_create_org_repo: true,
    units: ['repo.code', 'repo.issues'], units_map: { 'repo.code': 'write', 'repo.issues': 'write' },
  });
  t.like(made.body.organization, { id: org.id, name: 'acme', full_name: 'Acme', visibility: 'public' });
  const stored = await teamRow(hearth, made.body.id);
  t.like(stored.row, { name: 'devs', lower_name: 'devs', authorize: 2, can_create_org_repo: true });
  t.deepEqual(stored.units, { 'repo.code': 2, 'repo.issues': 2 });

  const mapped = await hearth.call('POST', '/orgs/acme/teams', {
    auth: alice.bearer,
    body: { name: 'mixed', units_map: { 'repo.code': 'read', 'repo.pulls': 'write', 'repo.wiki': 'none', 'repo.ext_wiki': 'read' } },
  });
  t.is(mapped.status, 201, JSON.stringify(mapped.body));
  t.is(mapped.body.permission, 'read', 'the smallest granted unit mode');
  t.deepEqual(mapped.body.units_map, { 'repo.code': 'read', 'repo.pulls': 'write', 'repo.wiki': 'none', 'repo.ext_wiki': 'read' });

  const admins = await hearth.call('POST', '/orgs/acme/teams', { auth: alice.bearer, body: { name: 'admins', permission: 'admin' } });
  t.is(admins.body.permission, 'admin');
  t.is(admins.body.units.length, 10);
  t.is(admins.body.units_map['repo.actions'], 'admin');

  const owners = (await hearth.call('GET', '/orgs/acme/teams', { auth: alice.bearer })).body.find((team: { name: string }) => team.name === 'Owners');
  t.like(owners, { permission: 'owner', includes_all_repositories: true, can_create_org_repo: true, organization: null });
  t.is(owners.units_map['repo.code'], 'owner');
});

test('bad team input answers 4xx with a message and writes nothing', async (t) => {
  const hearth = await startHearth(t);
  const { alice, bob } = await setUp(hearth);
  const cases: Array<[Record<string, unknown>, number, RegExp]> = [
    [{ name: 'x', permission: 'read', units: ['repo.nothing'] }, 422, /invalid unit: repo\.nothing/],
    [{ name: 'x', units_map: { 'repo.code': 'superuser' } }, 422, /invalid permission "superuser"/],
    [{ name: 'x', units_map: { 'repo.bogus': 'read' } }, 422, /invalid unit/],
    [{ name: 'x' }, 422, /units permission should not be empty/],
    [{ name: 'bad name', permission: 'read', units: ['repo.code'] }, 422, /team name/],
    [{ name: 'new', permission: 'read', units: ['repo.code'] }, 422, /reserved/],
    [{ name: 'owners', permission: 'read', units: ['repo.code'] }, 422, /team already exists/],
    [{ permission: 'read', units: ['repo.code'] }, 422, /name/],
  ];
  for (const [body, status, message] of cases) {
    const answer = await hearth.call('POST', '/orgs/acme/teams', { auth: alice.bearer, body });
    t.is(answer.status, status, JSON.stringify(body));
    t.regex(answer.body.message, message);
  }
  const [{ n }] = await hearth.store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM team');
  t.is(n, 1, 'only the Owners team');
  const notOwner = await hearth.call('POST', '/orgs/acme/teams', { auth: bob.bearer, body: { name: 'x', permission: 'read', units: ['repo.code'] } });
  t.is(notOwner.status, 403);
});

test('PATCH /teams/{id}: every field optional, absent fields unchanged', async (t) => {
  const hearth = await startHearth(t);
  const { alice, bob } = await setUp(hearth);
  const made = await hearth.call('POST', '/orgs/acme/teams', {
    auth: alice.bearer,
    body: { name: 'devs', description: 'keep', permission: 'write', units: ['repo.code', 'repo.issues'], can_create_org_repo: true },
  });
  const id = made.body.id;
  const renamed = await hearth.call('PATCH', `/teams/${id}`, { auth: alice.bearer, body: { name: 'builders' } });
  t.is(renamed.status, 200, JSON.stringify(renamed.body));
  t.like(renamed.body, { name: 'builders', description: 'keep', permission: 'write', can_create_org_repo: true, units_map: { 'repo.code': 'write', 'repo.issues': 'write' } });
  t.is(renamed.body.organization.name, 'acme');

  const empty = await hearth.call('PATCH', `/teams/${id}`, { auth: alice.bearer, body: {} });
  t.like(empty.body, { name: 'builders', description: 'keep', permission: 'write' });

  const units = await hearth.call('PATCH', `/teams/${id}`, { auth: alice.bearer, body: { units_map: { 'repo.code': 'read', 'repo.wiki': 'write' } } });
  t.deepEqual(units.body.units_map, { 'repo.code': 'read', 'repo.wiki': 'write' });
  t.is(units.body.permission, 'write', 'without a permission the mode stays');
  const flags = await hearth.call('PATCH', `/teams/${id}`, { auth: alice.bearer, body: { can_create_org_repo: false, includes_all_repositories: true, description: '' } });
  t.like(flags.body, { can_create_org_repo: false, includes_all_repositories: true, description: '', name: 'builders' });
  const admin = await hearth.call('PATCH', `/teams/${id}`, { auth: alice.bearer, body: { permission: 'admin' } });
  t.is(admin.body.permission, 'admin');
  t.is(admin.body.units_map['repo.code'], 'admin');
  const down = await hearth.call('PATCH', `/teams/${id}`, { auth: alice.bearer, body: { permission: 'read' } });
  t.is(down.body.permission, 'read');
  t.is(down.body.units_map['repo.code'], 'read');
  const stored = await teamRow(hearth, id);
  t.like(stored.row, { name: 'builders', authorize: 1, can_create_org_repo: false, includes_all_repositories: true });

  const bad = await hearth.call('PATCH', `/teams/${id}`, { auth: alice.bearer, body: { units: ['repo.nope'] } });
  t.is(bad.status, 422);
  t.is((await teamRow(hearth, id)).units['repo.code'], 1, 'nothing written');
  t.is((await hearth.call('PATCH', `/teams/${id}`, { auth: bob.bearer, body: { name: 'x' } })).status, 404);
  t.is((await hearth.call('PATCH', '/teams/999999', { auth: alice.bearer, body: { name: 'x' } })).status, 404);
  t.is((await hearth.call('PATCH', '/teams/abc', { auth: alice.bearer, body: { name: 'x' } })).status, 404);
});

test('the Owners team cannot be deleted or renamed, keeps its mode and at least one member', async (t) => {
  const hearth = await startHearth(t);
  const { alice, bob } = await setUp(hearth);
  const owners = (await hearth.call('GET', '/orgs/acme/teams', { auth: alice.bearer })).body[0];
  t.is(owners.name, 'Owners');
  const deleted = await hearth.call('DELETE', `/teams/${owners.id}`, { auth: alice.bearer });
  t.is(deleted.status, 422);
  t.is((await hearth.call('PATCH', `/teams/${owners.id}`, { auth: alice.bearer, body: { name: 'Bosses' } })).status, 422);
  const kept = await hearth.call('PATCH', `/teams/${owners.id}`, { auth: alice.bearer, body: { permission: 'read', includes_all_repositories: false, can_create_org_repo: false, description: 'the bosses' } });
  t.like(kept.body, { name: 'Owners', permission: 'owner', includes_all_repositories: true, can_create_org_repo: true, description: 'the bosses' });

  const last = await hearth.call('DELETE', `/teams/${owners.id}/members/alice`, { auth: alice.bearer });
  t.is(last.status, 422);
  t.regex(last.body.message, /last member of owner team/);
  t.is((await hearth.call('PUT', `/teams/${owners.id}/members/bob`, { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('DELETE', `/teams/${owners.id}/members/alice`, { auth: alice.bearer })).status, 204);
  const members = await hearth.call('GET', `/teams/${owners.id}/members`, { auth: bob.bearer });
  t.deepEqual(members.body.map((u: { login: string }) => u.login), ['bob']);
  t.is((await hearth.call('GET', '/orgs/acme/members/alice', { auth: bob.bearer })).status, 404, 'alice left with her last team');
});

test('team members: add, check, list and remove; non-users are refused', async (t) => {
  const hearth = await startHearth(t);
  const { alice, bob, carol } = await setUp(hearth);
  const team = (await hearth.call('POST', '/orgs/acme/teams', { auth: alice.bearer, body: { name: 'devs', permission: 'read', units: ['repo.code'] } })).body;
  t.is((await hearth.call('PUT', `/teams/${team.id}/members/bob`, { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('PUT', `/teams/${team.id}/members/bob`, { auth: alice.bearer })).status, 204, 'again: no change');
  t.is((await hearth.call('PUT', `/teams/${team.id}/members/nobody`, { auth: alice.bearer })).status, 404);
  t.is((await hearth.call('PUT', `/teams/${team.id}/members/acme`, { auth: alice.bearer })).status, 404, 'an organization is not a user');
  t.is((await hearth.call('PUT', `/teams/${team.id}/members/carol`, { auth: bob.bearer })).status, 404, 'a member who is not an owner');
  const rows = await hearth.store.db.query<{ uid: number }>('SELECT uid FROM team_user WHERE team_id = $1', [team.id]);
  t.deepEqual(rows.map((r) => r.uid), [bob.user.id]);
  t.is((await hearth.call('GET', '/orgs/acme/members/bob', { auth: alice.bearer })).status, 204, 'joining a team joins the organization');

  const member = await hearth.call('GET', `/teams/${team.id}/members/bob`, { auth: bob.bearer });
  t.is(member.status, 200);
  t.is(member.body.login, 'bob');
  t.is((await hearth.call('GET', `/teams/${team.id}/members/carol`, { auth: bob.bearer })).status, 404);
  const list = await hearth.call('GET', `/teams/${team.id}/members`, { auth: alice.bearer });
  t.deepEqual(list.body.map((u: { login: string }) => u.login), ['bob']);
  t.is(list.headers.get('x-total-count'), '1');
  t.is((await hearth.call('GET', `/teams/${team.id}`, { auth: carol.bearer })).status, 404, 'outsiders do not see teams');

  const owners = (await hearth.call('GET', '/orgs/acme/teams', { auth: alice.bearer })).body.find((x: { name: string }) => x.name === 'Owners');
  const forbidden = await hearth.call('GET', `/teams/${owners.id}`, { auth: bob.bearer });
  t.is(forbidden.status, 403, 'an organization member outside the team');
  t.is(forbidden.body.message, 'Must be a team member');

  t.is((await hearth.call('DELETE', `/teams/${team.id}/members/bob`, { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('GET', '/orgs/acme/members/bob', { auth: alice.bearer })).status, 404);
  t.is((await hearth.call('DELETE', `/teams/${team.id}`, { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('GET', `/teams/${team.id}`, { auth: alice.bearer })).status, 404);
});

test('team repositories: add, check, list, remove; including all repositories covers later ones', async (t) => {
  const hearth = await startHearth(t);
  const { alice, bob, org } = await setUp(hearth);
  await build.repo(hearth, await build.org(hearth, alice, { name: 'other' }), { name: 'elsewhere' });
  for (const name of ['one', 'two']) await build.repo(hearth, org, { name, private: true });
  const team = await build.team(hearth, org, { name: 'devs', permission: 'write', units: ['repo.code'], members: [bob] });

  t.is((await hearth.call('PUT', `/teams/${team.id}/repos/acme/one`, { auth: bob.bearer })).status, 403, 'bob does not administer the repository');
  t.is((await hearth.call('PUT', `/teams/${team.id}/repos/acme/one`, { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('PUT', `/teams/${team.id}/repos/other/elsewhere`, { auth: alice.bearer })).status, 404, "another organization's repository");
  t.is((await hearth.call('PUT', `/teams/${team.id}/repos/acme/none`, { auth: alice.bearer })).status, 404);
  const rows = await hearth.store.db.query('SELECT repo_id FROM team_repo WHERE team_id = $1', [team.id]);
  t.is(rows.length, 1);

  const listed = await hearth.call('GET', `/teams/${team.id}/repos`, { auth: bob.bearer });
  t.deepEqual(listed.body.map((r: { name: string }) => r.name), ['one']);
  t.deepEqual(listed.body[0].permissions, { admin: false, push: true, pull: true });
  t.is((await hearth.call('GET', `/teams/${team.id}/repos/acme/one`, { auth: bob.bearer })).body.full_name, 'acme/one');
  t.is((await hearth.call('GET', `/teams/${team.id}/repos/acme/two`, { auth: bob.bearer })).status, 404);
  t.is((await hearth.call('GET', '/repos/acme/two', { auth: bob.bearer })).status, 404);

  t.is((await hearth.call('DELETE', `/teams/${team.id}/repos/acme/one`, { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('GET', '/repos/acme/one', { auth: bob.bearer })).status, 404);

  await hearth.call('PATCH', `/teams/${team.id}`, { auth: alice.bearer, body: { includes_all_repositories: true } });
  await build.repo(hearth, org, { name: 'three', private: true });
  const all = await hearth.call('GET', `/teams/${team.id}/repos`, { auth: bob.bearer });
  t.is(all.status, 200, JSON.stringify(all.body));
  t.deepEqual(all.body.map((r: { name: string }) => r.name), ['one', 'three', 'two']);
  t.is((await hearth.call('GET', '/repos/acme/three', { auth: bob.bearer })).body.permissions.push, true);
  t.is((await hearth.call('DELETE', `/teams/${team.id}/repos/acme/three`, { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('GET', '/repos/acme/three', { auth: bob.bearer })).status, 200, 'ignored for a team including everything');

  await hearth.call('PATCH', `/teams/${team.id}`, { auth: alice.bearer, body: { includes_all_repositories: false } });
  t.is((await hearth.call('GET', `/teams/${team.id}/repos`, { auth: bob.bearer })).body.length, 3, 'it keeps the repositories it had');
});

test('/user/teams, the organization team list and team search share one team reading', async (t) => {
  const hearth = await startHearth(t);
  const root = await hearth.createUser('root', { admin: true });
  const { bob, org } = await setUp(hearth);
  for (const [name, description] of [['backend', 'servers'], ['frontend', 'web pages'], ['ops', 'backend servers']]) {
    await build.team(hearth, org, { name, description, permission: 'read', units: ['repo.code'], members: name === 'frontend' ? [] : [bob] });
  }
  const mine = await hearth.call('GET', '/user/teams', { auth: bob.bearer });
  t.deepEqual(mine.body.map((x: { name: string }) => x.name), ['backend', 'ops']);
  t.is(mine.body[0].organization.name, 'acme');
  t.deepEqual(mine.body[0].units_map, { 'repo.code': 'read' });

  const list = await hearth.call('GET', '/orgs/acme/teams', { auth: bob.bearer });
  t.deepEqual(list.body.map((x: { name: string }) => x.name), ['backend', 'frontend', 'ops', 'Owners']);
  t.is(list.body[0].organization, null);
  t.is(list.headers.get('x-total-count'), '4');
  const paged = await hearth.call('GET', '/orgs/acme/teams?limit=2&page=2', { auth: bob.bearer });
  t.deepEqual(paged.body.map((x: { name: string }) => x.name), ['ops', 'Owners']);

  const search = await hearth.call('GET', '/orgs/acme/teams/search?q=back', { auth: bob.bearer });
  t.true(search.body.ok);
  t.deepEqual(search.body.data.map((x: { name: string }) => x.name), ['backend', 'ops'], 'the description matches by default');
  const byName = await hearth.call('GET', '/orgs/acme/teams/search?q=back&include_desc=false', { auth: bob.bearer });
  t.deepEqual(byName.body.data.map((x: { name: string }) => x.name), ['backend']);
  const onlyOwn = await hearth.call('GET', '/orgs/acme/teams/search?q=front', { auth: bob.bearer });
  t.deepEqual(onlyOwn.body.data, [], "members search the teams they belong to");
  const asAdmin = await hearth.call('GET', '/orgs/acme/teams/search?q=front', { auth: root.bearer });
  t.deepEqual(asAdmin.body.data.map((x: { name: string }) => x.name), ['frontend']);

  const carol = await hearth.createUser('carol2');
  t.is((await hearth.call('GET', '/orgs/acme/teams', { auth: carol.bearer })).status, 403);
  t.deepEqual((await hearth.call('GET', '/user/teams', { auth: carol.bearer })).body, []);
});

test("a repository's teams: list, check, add and remove", async (t) => {
  const hearth = await startHearth(t);
  const { alice, bob, org } = await setUp(hearth);
  await build.repo(hearth, org, { name: 'tools' });
  await build.repo(hearth, bob, { name: 'mine' });
  const devs = await build.team(hearth, org, { name: 'devs', permission: 'write', units: ['repo.code'] });

  const initial = await hearth.call('GET', '/repos/acme/tools/teams', { auth: bob.bearer });
  t.deepEqual(initial.body.map((x: { name: string }) => x.name), ['Owners']);
  t.is((await hearth.call('GET', '/repos/acme/tools/teams/devs', { auth: bob.bearer })).status, 404);
  t.is((await hearth.call('PUT', '/repos/acme/tools/teams/devs', { auth: bob.bearer })).status, 403);
  t.is((await hearth.call('PUT', '/repos/acme/tools/teams/devs', { auth: alice.bearer })).status, 204);
  const again = await hearth.call('PUT', '/repos/acme/tools/teams/devs', { auth: alice.bearer });
  t.is(again.status, 422);
  t.regex(again.body.message, /already added/);
  const checked = await hearth.call('GET', '/repos/acme/tools/teams/devs', { auth: bob.bearer });
  t.is(checked.status, 200);
  t.is(checked.body.organization.name, 'acme');
  t.deepEqual((await hearth.call('GET', '/repos/acme/tools/teams', { auth: bob.bearer })).body.map((x: { name: string }) => x.name), ['devs', 'Owners']);
  const [row] = await hearth.store.db.query('SELECT * FROM team_repo WHERE team_id = $1', [devs.id]);
  t.truthy(row);

  t.is((await hearth.call('DELETE', '/repos/acme/tools/teams/devs', { auth: alice.bearer })).status, 204);
  const notAdded = await hearth.call('DELETE', '/repos/acme/tools/teams/devs', { auth: alice.bearer });
  t.is(notAdded.status, 422);
  t.is((await hearth.call('PUT', '/repos/acme/tools/teams/nothing', { auth: alice.bearer })).status, 404);
  t.is((await hearth.call('GET', '/repos/bob/mine/teams', { auth: bob.bearer })).status, 405);
  t.is((await hearth.call('GET', '/repos/acme/tools/teams')).status, 401);
});

test("a team's activity feed shows the repositories the team can reach", async (t) => {
  const hearth = await startHearth(t);
  const { bob, org } = await setUp(hearth);
  const seen = await build.repo(hearth, org, { name: 'seen', private: true });
  await build.repo(hearth, org, { name: 'unseen', private: true });
  const devs = await build.team(hearth, org, { name: 'devs', permission: 'read', units: ['repo.code'], members: [bob], repos: [seen] });
  const feed = await hearth.call('GET', `/teams/${devs.id}/activities/feeds`, { auth: bob.bearer });
  t.is(feed.status, 200, JSON.stringify(feed.body));
  t.deepEqual(feed.body.map((a: { op_type: string; repo: { full_name: string } }) => `${a.op_type} ${a.repo.full_name}`), ['create_repo acme/seen']);
  t.is(feed.headers.get('x-total-count'), '1');
});
