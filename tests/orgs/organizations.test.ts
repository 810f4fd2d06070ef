import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth, type TestHearth, type TestUser } from '../helpers/hearth.js';

async function createOrg(hearth: TestHearth, owner: TestUser, username: string, extra: Record<string, unknown> = {}) {
  const answer = await hearth.call('POST', '/orgs', { auth: owner.bearer, body: { username, ...extra } });
  if (answer.status !== 201) throw new Error(`creating ${username}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

const names = (list: Array<{ name?: string; username?: string }>): string[] => list.map((o) => o.name ?? o.username ?? '');

test('creating an organization stores a type-1 user, an Owners team with the creator, and answers Gitea JSON', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const made = await hearth.call('POST', '/orgs', {
    auth: alice.bearer,
    body: { username: 'acme', full_name: 'Acme Inc', email: 'info@acme.test', description: 'd', website: 'https://acme.test', location: 'Here', repo_admin_change_team_access: true },
  });
  t.is(made.status, 201, JSON.stringify(made.body));
  t.like(made.body, {
    name: 'acme', username: 'acme', full_name: 'Acme Inc', email: 'info@acme.test', description: 'd', website: 'https://acme.test',
    location: 'Here', visibility: 'public', repo_admin_change_team_access: true,
  });
  t.regex(made.body.avatar_url, /\/avatars\/[0-9a-f]{32}$/);
  const [row] = await hearth.store.db.query<{ type: number; id: number }>(`SELECT id, type FROM "user" WHERE lower_name = 'acme'`);
  t.is(row.type, 1);
  t.is(made.body.id, row.id);
  const owners = await hearth.store.db.query<{ name: string; authorize: number; includes_all_repositories: boolean; uid: number }>(
    `SELECT t.name, t.authorize, t.includes_all_repositories, tu.uid FROM team t JOIN team_user tu ON tu.team_id = t.id WHERE t.org_id = $1`,
    [row.id],
  );
  t.deepEqual(owners, [{ name: 'Owners', authorize: 4, includes_all_repositories: true, uid: alice.user.id }]);

  const got = await hearth.call('GET', '/orgs/ACME');
  t.is(got.status, 200);
  t.is(got.body.name, 'acme');
  t.is(got.body.email, '', 'anonymous callers do not see the address');
  t.is((await hearth.call('GET', '/orgs/acme', { auth: alice.bearer })).body.email, 'info@acme.test');
  t.is((await hearth.call('GET', '/orgs/nothing')).status, 404);
  t.is((await hearth.call('GET', '/orgs/alice')).status, 404, 'a user is not an organization');
  t.is((await hearth.call('GET', '/users/acme')).body.login, 'acme', 'Gitea answers an organization under /users/{username} too');
});

test('organization names share the user namespace and rules; bad input writes nothing', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  await createOrg(hearth, alice, 'acme');
  const count = async (): Promise<number> => (await hearth.store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM "user"'))[0].n;
  const before = await count();
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ username: 'alice' }, /user already exists/],
    [{ username: 'ACME' }, /user already exists/],
    [{ username: 'admin' }, /reserved/],
    [{ username: 'bad name' }, /invalid/],
    [{ username: 'x.keys' }, /not allowed/],
    [{ username: 'ok1', visibility: 'secret' }, /visibility/],
    [{ username: 'ok2', email: 'not-an-address' }, /e-mail invalid/],
    [{ username: 'ok3', website: 'ftp://x' }, /invalid url/],
    [{ username: 'a'.repeat(41) }, /username/i],
    [{}, /username/],
  ];
  for (const [body, message] of cases) {
    const answer = await hearth.call('POST', '/orgs', { auth: alice.bearer, body });
    t.is(answer.status, 422, JSON.stringify(body));
    t.regex(answer.body.message, message);
  }
  t.is(await count(), before);
  t.is((await hearth.call('POST', '/users/alice/repos', { auth: alice.bearer, body: { name: 'x' } })).status, 404);
  t.is((await hearth.call('POST', '/orgs', { body: { username: 'anon' } })).status, 401);
});

test('only users allowed to create organizations may; administrators create one for a user', async (t) => {
  const hearth = await startHearth(t);
  const root = await hearth.createUser('root', { admin: true });
  const bob = await hearth.createUser('bob');
  await hearth.store.db.query('UPDATE "user" SET allow_create_organization = false WHERE id = $1', [bob.user.id]);
  const refused = await hearth.call('POST', '/orgs', { auth: bob.bearer, body: { username: 'bobs' } });
  t.is(refused.status, 403);
  t.is((await hearth.call('GET', '/orgs/bobs', { auth: root.bearer })).status, 404);

  const carol = await hearth.createUser('carol');
  const made = await hearth.call('POST', '/admin/users/carol/orgs', { auth: root.bearer, body: { username: 'carols', visibility: 'limited' } });
  t.is(made.status, 201, JSON.stringify(made.body));
  t.is(made.body.visibility, 'limited');
  const mine = await hearth.call('GET', '/user/orgs', { auth: carol.bearer });
  t.deepEqual(names(mine.body), ['carols']);
  t.is((await hearth.call('GET', '/user/orgs', { auth: root.bearer })).body.length, 0, 'the administrator is not a member');
  t.is((await hearth.call('POST', '/admin/users/carol/orgs', { auth: carol.bearer, body: { username: 'again' } })).status, 403);
  t.is((await hearth.call('POST', '/admin/users/nobody/orgs', { auth: root.bearer, body: { username: 'again' } })).status, 404);
});

test('PATCH /orgs/{org} changes only the fields given, and only for owners', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  await createOrg(hearth, alice, 'acme', { full_name: 'Acme', description: 'keep me', location: 'There' });
  const edited = await hearth.call('PATCH', '/orgs/acme', { auth: alice.bearer, body: { full_name: 'Acme 2', visibility: 'private' } });
  t.is(edited.status, 200, JSON.stringify(edited.body));
  t.like(edited.body, { full_name: 'Acme 2', description: 'keep me', location: 'There', visibility: 'private' });
  const [row] = await hearth.store.db.query<{ full_name: string; visibility: number }>(`SELECT full_name, visibility FROM "user" WHERE lower_name = 'acme'`);
  t.deepEqual(row, { full_name: 'Acme 2', visibility: 2 });

  t.is((await hearth.call('PATCH', '/orgs/acme', { auth: bob.bearer, body: { full_name: 'x' } })).status, 404, 'a private organization is hidden');
  await hearth.call('PATCH', '/orgs/acme', { auth: alice.bearer, body: { visibility: 'public' } });
  const denied = await hearth.call('PATCH', '/orgs/acme', { auth: bob.bearer, body: { full_name: 'x' } });
  t.is(denied.status, 403);
  t.is(denied.body.message, 'Must be an organization owner');
  t.is((await hearth.call('PATCH', '/orgs/acme', { body: { full_name: 'x' } })).status, 401);
  const bad = await hearth.call('PATCH', '/orgs/acme', { auth: alice.bearer, body: { visibility: 'nope' } });
  t.is(bad.status, 422);
  t.is((await hearth.call('GET', '/orgs/acme')).body.full_name, 'Acme 2');
});

test('visibility: what public, limited and private organizations hide from whom', async (t) => {
  const hearth = await startHearth(t);
  const root = await hearth.createUser('root', { admin: true });
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  await createOrg(hearth, alice, 'pub');
  await createOrg(hearth, alice, 'lim', { visibility: 'limited' });
  await createOrg(hearth, alice, 'priv', { visibility: 'private' });

  for (const [org, anonymous, stranger] of [['pub', 200, 200], ['lim', 404, 200], ['priv', 404, 404]] as const) {
    t.is((await hearth.call('GET', `/orgs/${org}`)).status, anonymous, `${org} anonymous`);
    t.is((await hearth.call('GET', `/orgs/${org}`, { auth: bob.bearer })).status, stranger, `${org} stranger`);
    t.is((await hearth.call('GET', `/orgs/${org}`, { auth: alice.bearer })).status, 200, `${org} member`);
    t.is((await hearth.call('GET', `/orgs/${org}`, { auth: root.bearer })).status, 200, `${org} admin`);
  }
  t.deepEqual(names((await hearth.call('GET', '/orgs')).body), ['pub']);
  t.deepEqual(names((await hearth.call('GET', '/orgs', { auth: bob.bearer })).body), ['lim', 'pub']);
  t.deepEqual(names((await hearth.call('GET', '/orgs', { auth: alice.bearer })).body), ['lim', 'pub'], 'private ones are not listed, even for members');
  const all = await hearth.call('GET', '/admin/orgs', { auth: root.bearer });
  t.deepEqual(names(all.body), ['lim', 'priv', 'pub']);
  t.is(all.headers.get('x-total-count'), '3');
  t.is((await hearth.call('GET', '/admin/orgs', { auth: alice.bearer })).status, 403);

  const page = await hearth.call('GET', '/orgs?limit=1&page=2', { auth: bob.bearer });
  t.deepEqual(names(page.body), ['pub']);
  t.is(page.headers.get('x-total-count'), '2');
});

test("a user's organizations: all for the user, public memberships of visible organizations for others", async (t) => {
  const hearth = await startHearth(t);
  const root = await hearth.createUser('root', { admin: true });
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  await createOrg(hearth, alice, 'pub');
  await createOrg(hearth, alice, 'lim', { visibility: 'limited' });
  await createOrg(hearth, alice, 'priv', { visibility: 'private' });
  await createOrg(hearth, alice, 'quiet');
  for (const org of ['pub', 'lim', 'priv']) {
    t.is((await hearth.call('PUT', `/orgs/${org}/public_members/alice`, { auth: alice.bearer })).status, 204);
  }
  t.deepEqual(names((await hearth.call('GET', '/user/orgs', { auth: alice.bearer })).body), ['lim', 'priv', 'pub', 'quiet']);
  t.deepEqual(names((await hearth.call('GET', '/users/alice/orgs', { auth: alice.bearer })).body), ['lim', 'priv', 'pub', 'quiet']);
  t.deepEqual(names((await hearth.call('GET', '/users/alice/orgs', { auth: bob.bearer })).body), ['lim', 'pub']);
  t.deepEqual(names((await hearth.call('GET', '/users/alice/orgs', { auth: root.bearer })).body), ['lim', 'priv', 'pub', 'quiet']);
  t.is((await hearth.call('GET', '/users/alice/orgs')).status, 401);
  t.is((await hearth.call('GET', '/user/orgs')).status, 401);
  t.is((await hearth.call('GET', '/users/nobody/orgs', { auth: bob.bearer })).status, 404);
});

test("GET /users/{username}/orgs/{org}/permissions reports the user's highest team mode", async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const carol = await hearth.createUser('carol');
  await createOrg(hearth, alice, 'acme');
  const writers = await hearth.call('POST', '/orgs/acme/teams', { auth: alice.bearer, body: { name: 'writers', permission: 'write', units: ['repo.code'], can_create_org_repo: true } });
  t.is(writers.status, 201, JSON.stringify(writers.body));
  await hearth.call('PUT', `/teams/${writers.body.id}/members/bob`, { auth: alice.bearer });

  const owner = await hearth.call('GET', '/users/alice/orgs/acme/permissions', { auth: bob.bearer });
  t.deepEqual(owner.body, { is_owner: true, is_admin: true, can_write: true, can_read: true, can_create_repository: true });
  const writer = await hearth.call('GET', '/users/bob/orgs/acme/permissions', { auth: bob.bearer });
  t.deepEqual(writer.body, { is_owner: false, is_admin: false, can_write: true, can_read: true, can_create_repository: true });
  const stranger = await hearth.call('GET', '/users/carol/orgs/acme/permissions', { auth: carol.bearer });
  t.deepEqual(stranger.body, { is_owner: false, is_admin: false, can_write: false, can_read: false, can_create_repository: false });
  t.is((await hearth.call('GET', '/users/carol/orgs/nothing/permissions', { auth: carol.bearer })).status, 404);
  t.is((await hearth.call('GET', '/users/carol/orgs/acme/permissions')).status, 401);
});

test('DELETE /orgs/{org}: refused while it owns repositories, then removes teams, memberships and labels', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const org = await createOrg(hearth, alice, 'acme');
  await hearth.call('POST', '/orgs/acme/labels', { auth: alice.bearer, body: { name: 'bug', color: 'ff0000' } });
  await build.repo(hearth, 'acme', { name: 'tools' });

  t.is((await hearth.call('DELETE', '/orgs/acme', { auth: bob.bearer })).status, 403);
  const refused = await hearth.call('DELETE', '/orgs/acme', { auth: alice.bearer });
  t.is(refused.status, 422);
  t.regex(refused.body.message, /still has ownership of repositories/);
  t.is((await hearth.call('GET', '/orgs/acme')).status, 200);

  t.is((await hearth.call('DELETE', '/repos/acme/tools', { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('DELETE', '/orgs/acme', { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('GET', '/orgs/acme')).status, 404);
  for (const table of ['team', 'org_user', 'label']) {
    const rows = await hearth.store.db.query(`SELECT 1 FROM ${table} WHERE org_id = $1`, [org.id]);
    t.is(rows.length, 0, table);
  }
});

test('organization avatars: owners upload a base64 image and delete it; anything else is refused', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  await createOrg(hearth, alice, 'acme');
  const before = (await hearth.call('GET', '/orgs/acme')).body.avatar_url;
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
  const image = png.toString('base64');
  t.is((await hearth.call('POST', '/orgs/acme/avatar', { auth: bob.bearer, body: { image } })).status, 403);
  t.is((await hearth.call('POST', '/orgs/acme/avatar', { auth: alice.bearer, body: { image: '***' } })).status, 400);
  t.is((await hearth.call('POST', '/orgs/acme/avatar', { auth: alice.bearer, body: { image: Buffer.from('plain text').toString('base64') } })).status, 422);

  const uploaded = await hearth.call('POST', '/orgs/acme/avatar', { auth: alice.bearer, body: { image } });
  t.is(uploaded.status, 204, JSON.stringify(uploaded.body));
  const [{ avatar }] = await hearth.store.db.query<{ avatar: string }>(`SELECT avatar FROM "user" WHERE lower_name = 'acme'`);
  t.regex(avatar, /^avatar-\d+-[0-9a-f]{32}$/);
  const stored = await hearth.deps.blobs.get(avatar);
  const chunks: Buffer[] = [];
  for await (const chunk of stored) chunks.push(chunk as Buffer);
  t.deepEqual(Buffer.concat(chunks), png);
  t.not((await hearth.call('GET', '/orgs/acme')).body.avatar_url, before);

  t.is((await hearth.call('DELETE', '/orgs/acme/avatar', { auth: alice.bearer })).status, 204);
  const [{ avatar: cleared }] = await hearth.store.db.query<{ avatar: string }>(`SELECT avatar FROM "user" WHERE lower_name = 'acme'`);
  t.is(cleared, '');
  await t.throwsAsync(() => hearth.deps.blobs.get(avatar));
  t.is((await hearth.call('GET', '/orgs/acme')).body.avatar_url, before);
});

test('the organization activity feed lists its repositories, private ones only for members', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  await createOrg(hearth, alice, 'acme');
  await build.repo(hearth, 'acme', { name: 'open' });
  await build.repo(hearth, 'acme', { name: 'closed', private: true });
  const member = await hearth.call('GET', '/orgs/acme/activities/feeds', { auth: alice.bearer });
  t.is(member.status, 200, JSON.stringify(member.body));
  t.deepEqual(member.body.map((a: { op_type: string; repo: { name: string } }) => `${a.op_type} ${a.repo.name}`), ['create_repo closed', 'create_repo open']);
  t.is(member.body[0].act_user.login, 'alice');
  t.true(member.body[0].is_private);
  const stranger = await hearth.call('GET', '/orgs/acme/activities/feeds', { auth: bob.bearer });
  t.deepEqual(stranger.body.map((a: { repo: { name: string } }) => a.repo.name), ['open']);
  t.is(stranger.headers.get('x-total-count'), '1');
  const today = new Date().toISOString().slice(0, 10);
  t.is((await hearth.call('GET', `/orgs/acme/activities/feeds?date=${today}`, { auth: alice.bearer })).body.length, 2);
  t.is((await hearth.call('GET', '/orgs/acme/activities/feeds?date=2001-01-01', { auth: alice.bearer })).body.length, 0);
  t.is((await hearth.call('GET', '/orgs/acme/activities/feeds?date=yesterday', { auth: alice.bearer })).status, 422);
});
