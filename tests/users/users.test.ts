import test from 'ava';
import { startHearth, type TestHearth } from '../helpers/hearth.js';

async function userRow(hearth: TestHearth, name: string): Promise<Record<string, unknown>> {
  const [row] = await hearth.store.db.query('SELECT * FROM "user" WHERE lower_name = $1', [name]);
  return row;
}

async function emailsOf(hearth: TestHearth, uid: number): Promise<Array<{ email: string; is_primary: boolean }>> {
  return hearth.store.db.query('SELECT email, is_primary FROM email_address WHERE uid = $1 ORDER BY id', [uid]);
}

test('GET /user renders the caller with Gitea fields', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const answer = await hearth.call('GET', '/user', { auth: alice.bearer });
  t.is(answer.status, 200);
  t.like(answer.body, {
    id: alice.user.id,
    login: 'alice',
    email: 'alice@example.com',
    is_admin: false,
    active: true,
    prohibit_login: false,
    restricted: false,
    visibility: 'public',
    followers_count: 0,
    following_count: 0,
    starred_repos_count: 0,
    html_url: `${hearth.rootUrl}alice`,
  });
  t.regex(answer.body.created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  t.regex(answer.body.avatar_url, /^http:\/\/127\.0\.0\.1:\d+\/avatars\/[0-9a-f]{32}$/);
  const anonymous = await hearth.call('GET', '/user');
  t.is(anonymous.status, 401);
  t.is(anonymous.body.message, 'token is required');
});

test('GET /users/{username}: addresses and account details only for the user and administrators', async (t) => {
  const hearth = await startHearth(t);
  const root = await hearth.createUser('root', { admin: true });
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  await hearth.store.db.query(`UPDATE "user" SET language = 'de-DE', login_name = 'alice-login' WHERE id = $1`, [alice.user.id]);

  const anonymous = await hearth.call('GET', '/users/alice');
  t.is(anonymous.status, 200);
  t.is(anonymous.body.login, 'alice');
  t.is(anonymous.body.email, 'alice@noreply.127.0.0.1');
  t.is(anonymous.body.login_name, '');

  const other = await hearth.call('GET', '/users/ALICE', { auth: bob.bearer });
  t.is(other.status, 200);
  t.is(other.body.email, 'alice@example.com');
  t.like(other.body, { is_admin: false, login_name: '', language: '', active: false, last_login: '1970-01-01T00:00:00Z' });

  const self = await hearth.call('GET', '/users/alice', { auth: alice.bearer });
  t.like(self.body, { email: 'alice@example.com', login_name: 'alice-login', language: 'de-DE', active: true });
  const asAdmin = await hearth.call('GET', '/users/alice', { auth: root.bearer });
  t.like(asAdmin.body, { email: 'alice@example.com', login_name: 'alice-login', language: 'de-DE', active: true });
  const adminSeen = await hearth.call('GET', '/users/root', { auth: bob.bearer });
  t.is(adminSeen.body.is_admin, false);
  t.is((await hearth.call('GET', '/users/root', { auth: root.bearer })).body.is_admin, true);

  t.is((await hearth.call('PATCH', '/user/settings', { auth: alice.bearer, body: { hide_email: true } })).status, 200);
  t.is((await userRow(hearth, 'alice')).keep_email_private, true);
  t.is((await hearth.call('GET', '/users/alice', { auth: bob.bearer })).body.email, 'alice@noreply.127.0.0.1');
  t.is((await hearth.call('GET', '/users/alice', { auth: alice.bearer })).body.email, 'alice@example.com');
  t.is((await hearth.call('GET', '/users/alice', { auth: root.bearer })).body.email, 'alice@example.com');

  const missing = await hearth.call('GET', '/users/nobody', { auth: bob.bearer });
  t.is(missing.status, 404);
  t.deepEqual(Object.keys(missing.body).sort(), ['errors', 'message', 'url']);
});

test('private users are a 404 for everyone but themselves and administrators; limited ones for anonymous callers', async (t) => {
  const hearth = await startHearth(t);
  const root = await hearth.createUser('root', { admin: true });
  const hidden = await hearth.createUser('hidden');
  const bob = await hearth.createUser('bob');
  await hearth.createUser('members');
  t.is((await hearth.call('PATCH', '/admin/users/hidden', { auth: root.bearer, body: { visibility: 'private' } })).status, 200);
  t.is((await hearth.call('PATCH', '/admin/users/members', { auth: root.bearer, body: { visibility: 'limited' } })).status, 200);
  t.is((await userRow(hearth, 'hidden')).visibility, 2);

  t.is((await hearth.call('GET', '/users/hidden')).status, 404);
  t.is((await hearth.call('GET', '/users/hidden', { auth: bob.bearer })).status, 404);
  t.is((await hearth.call('GET', '/users/hidden/followers', { auth: bob.bearer })).status, 404);
  t.is((await hearth.call('PUT', '/user/following/hidden', { auth: bob.bearer })).status, 404);
  t.is((await hearth.call('GET', '/users/hidden', { auth: hidden.bearer })).body.visibility, 'private');
  t.is((await hearth.call('GET', '/users/hidden', { auth: root.bearer })).body.visibility, 'private');

  t.is((await hearth.call('GET', '/users/members')).status, 404);
  t.is((await hearth.call('GET', '/users/members', { auth: bob.bearer })).body.visibility, 'limited');

  const anonymousSearch = await hearth.call('GET', '/users/search');
  t.deepEqual(anonymousSearch.body.data.map((u: { login: string }) => u.login), ['root', 'bob']);
  const signedSearch = await hearth.call('GET', '/users/search', { auth: bob.bearer });
  t.deepEqual(signedSearch.body.data.map((u: { login: string }) => u.login), ['root', 'bob', 'members']);
  const adminSearch = await hearth.call('GET', '/users/search', { auth: root.bearer });
  t.is(adminSearch.body.data.length, 4);
});

test('GET /users/search answers {ok, data} with X-Total-Count and Link', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  for (const name of ['sam1', 'sam2', 'sam3', 'other']) await hearth.createUser(name);
  await hearth.store.db.query(`UPDATE "user" SET full_name = 'Samantha Smith' WHERE lower_name = 'other'`);

  const answer = await hearth.call('GET', '/users/search?q=sam&limit=2', { auth: alice.bearer });
  t.is(answer.status, 200);
  t.is(answer.body.ok, true);
  t.deepEqual(answer.body.data.map((u: { login: string }) => u.login), ['sam1', 'sam2']);
  t.is(answer.headers.get('x-total-count'), '4');
  t.regex(answer.headers.get('link') ?? '', /q=sam.*page=2.*rel="next"/);
  t.regex(answer.headers.get('link') ?? '', /page=2.*rel="last"/);

  const second = await hearth.call('GET', '/users/search?q=sam&limit=2&page=2', { auth: alice.bearer });
  t.deepEqual(second.body.data.map((u: { login: string }) => u.login), ['sam3', 'other']);

  const byId = await hearth.call('GET', `/users/search?uid=${alice.user.id}`);
  t.deepEqual(byId.body.data.map((u: { login: string }) => u.login), ['alice']);
  t.is(byId.body.data[0].email, 'alice@noreply.127.0.0.1');

  const wildcard = await hearth.call('GET', '/users/search?q=%25', { auth: alice.bearer });
  t.deepEqual(wildcard.body.data, []);
  t.is(wildcard.headers.get('x-total-count'), '0');

  const bad = await hearth.call('GET', '/users/search?page=zero', { auth: alice.bearer });
  t.is(bad.status, 422);
  t.regex(bad.body.message, /page/);
});

test('/user/settings: GET, and PATCH changes only the allowed columns', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const initial = await hearth.call('GET', '/user/settings', { auth: alice.bearer });
  t.is(initial.status, 200);
  t.deepEqual(initial.body, {
    full_name: '', website: '', description: '', location: '', language: '', theme: 'gitea-auto',
    diff_view_style: '', hide_email: false, hide_activity: false,
  });

  const patch = await hearth.call('PATCH', '/user/settings', {
    auth: alice.bearer,
    body: {
      full_name: 'Alice Liddell', website: 'https://alice.example', description: 'down the rabbit hole', location: 'Oxford',
      language: 'en-GB', theme: 'gitea-dark', diff_view_style: 'split', hide_activity: true,
      is_admin: true, email: 'evil@example.com', name: 'root', login_name: 'root', visibility: 'private', max_repo_creation: 99,
    },
  });
  t.is(patch.status, 200);
  t.deepEqual(patch.body, {
    full_name: 'Alice Liddell', website: 'https://alice.example', description: 'down the rabbit hole', location: 'Oxford',
    language: 'en-GB', theme: 'gitea-dark', diff_view_style: 'split', hide_email: false, hide_activity: true,
  });
  t.deepEqual((await hearth.call('GET', '/user/settings', { auth: alice.bearer })).body, patch.body);
  const row = await userRow(hearth, 'alice');
  t.like(row, {
    full_name: 'Alice Liddell', location: 'Oxford', hide_activity: true, is_admin: false, email: 'alice@example.com',
    name: 'alice', login_name: 'alice', visibility: 0, max_repo_creation: -1,
  });

  const partial = await hearth.call('PATCH', '/user/settings', { auth: alice.bearer, body: { location: 'London' } });
  t.like(partial.body, { location: 'London', full_name: 'Alice Liddell' });

  for (const body of [{ diff_view_style: 'sideways' }, { full_name: 42 }, { hide_email: 'yes' }, { location: 'x'.repeat(51) }, { full_name: 'a\u0000b' }]) {
    const answer = await hearth.call('PATCH', '/user/settings', { auth: alice.bearer, body });
    t.is(answer.status, 422, JSON.stringify(body));
    t.truthy(answer.body.message);
  }
  const malformed = await hearth.call('PATCH', '/user/settings', { auth: alice.bearer, body: '{"full_name": ', headers: { 'Content-Type': 'application/json' } });
  t.is(malformed.status, 400);
  t.like(await userRow(hearth, 'alice'), { location: 'London', full_name: 'Alice Liddell', diff_view_style: 'split' });
});

test('/user/emails: list, add, refuse invalid or taken ones, and never delete the primary', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  await hearth.createUser('bob');

  const initial = await hearth.call('GET', '/user/emails', { auth: alice.bearer });
  t.is(initial.status, 200);
  t.deepEqual(initial.body, [{ email: 'alice@example.com', verified: true, primary: true, user_id: alice.user.id, username: 'alice' }]);

  const added = await hearth.call('POST', '/user/emails', { auth: alice.bearer, body: { emails: ['a2@example.com', 'A3@Example.com'] } });
  t.is(added.status, 201);
  t.deepEqual(added.body.map((e: { email: string; primary: boolean }) => [e.email, e.primary]), [['a2@example.com', false], ['A3@Example.com', false]]);
  t.deepEqual(await emailsOf(hearth, alice.user.id), [
    { email: 'alice@example.com', is_primary: true },
    { email: 'a2@example.com', is_primary: false },
    { email: 'A3@Example.com', is_primary: false },
  ]);

  const refusals: Array<[string[], RegExp]> = [
    [['not-an-address'], /invalid/],
    [['ok@example.com', 'two@@example.com'], /invalid/],
    [['bob@example.com'], /has been used/],
    [['ok@example.com', 'BOB@example.com'], /has been used/],
    [['a3@example.com'], /has been used/],
    [[], /empty/],
  ];
  for (const [emails, message] of refusals) {
    const answer = await hearth.call('POST', '/user/emails', { auth: alice.bearer, body: { emails } });
    t.is(answer.status, 422, emails.join());
    t.regex(answer.body.message, message);
  }
  t.is((await emailsOf(hearth, alice.user.id)).length, 3);
  t.is((await hearth.store.db.query(`SELECT 1 FROM email_address WHERE lower_email = 'ok@example.com'`)).length, 0);

  const primary = await hearth.call('DELETE', '/user/emails', { auth: alice.bearer, body: { emails: ['ALICE@example.com'] } });
  t.is(primary.status, 422);
  t.regex(primary.body.message, /primary/);
  const mixed = await hearth.call('DELETE', '/user/emails', { auth: alice.bearer, body: { emails: ['a2@example.com', 'alice@example.com'] } });
  t.is(mixed.status, 422);
  const foreign = await hearth.call('DELETE', '/user/emails', { auth: alice.bearer, body: { emails: ['bob@example.com'] } });
  t.is(foreign.status, 404);
  t.is((await emailsOf(hearth, alice.user.id)).length, 3);

  const removed = await hearth.call('DELETE', '/user/emails', { auth: alice.bearer, body: { emails: ['a2@example.com', 'a3@example.com', 'A2@example.com'] } });
  t.is(removed.status, 204);
  t.deepEqual(await emailsOf(hearth, alice.user.id), [{ email: 'alice@example.com', is_primary: true }]);
  t.deepEqual((await hearth.call('GET', '/user/emails', { auth: alice.bearer })).body.map((e: { email: string }) => e.email), ['alice@example.com']);
});

test('following: PUT, check, lists and counts, DELETE', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const carol = await hearth.createUser('carol');
  const counts = async (name: string) => {
    const { body } = await hearth.call('GET', `/users/${name}`);
    return [body.followers_count, body.following_count];
  };

  t.is((await hearth.call('GET', '/user/following/bob', { auth: alice.bearer })).status, 404);
  t.is((await hearth.call('PUT', '/user/following/bob', { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('PUT', '/user/following/bob', { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('PUT', '/user/following/bob', { auth: carol.bearer })).status, 204);
  t.is((await hearth.call('PUT', '/user/following/alice', { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('PUT', '/user/following/nobody', { auth: alice.bearer })).status, 404);
  t.is((await hearth.call('PUT', '/user/following/bob')).status, 401);

  t.deepEqual(await counts('alice'), [0, 1]);
  t.deepEqual(await counts('bob'), [2, 0]);
  t.deepEqual(await counts('carol'), [0, 1]);
  const rows = await hearth.store.db.query<{ user_id: number; follow_id: number }>('SELECT user_id, follow_id FROM follow ORDER BY user_id');
  t.deepEqual(rows.map((r) => [Number(r.user_id), Number(r.follow_id)]), [[alice.user.id, bob.user.id], [carol.user.id, bob.user.id]]);

  const check = await hearth.call('GET', '/user/following/bob', { auth: alice.bearer });
  t.is(check.status, 204);
  t.is((await hearth.call('GET', '/users/alice/following/bob')).status, 204);
  t.is((await hearth.call('GET', '/users/bob/following/alice')).status, 404);
  t.is((await hearth.call('GET', '/users/alice/following/nobody')).status, 404);

  const followers = await hearth.call('GET', '/users/bob/followers');
  t.is(followers.status, 200);
  t.deepEqual(followers.body.map((u: { login: string }) => u.login).sort(), ['alice', 'carol']);
  t.is(followers.headers.get('x-total-count'), '2');
  const page = await hearth.call('GET', '/users/bob/followers?limit=1');
  t.is(page.body.length, 1);
  t.regex(page.headers.get('link') ?? '', /rel="next"/);
  t.deepEqual((await hearth.call('GET', '/users/alice/following')).body.map((u: { login: string }) => u.login), ['bob']);
  t.deepEqual((await hearth.call('GET', '/user/following', { auth: carol.bearer })).body.map((u: { login: string }) => u.login), ['bob']);
  t.deepEqual((await hearth.call('GET', '/user/followers', { auth: bob.bearer })).body.map((u: { login: string }) => u.login).sort(), ['alice', 'carol']);

  t.is((await hearth.call('DELETE', '/user/following/bob', { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('DELETE', '/user/following/bob', { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('GET', '/user/following/bob', { auth: alice.bearer })).status, 404);
  t.deepEqual(await counts('alice'), [0, 0]);
  t.deepEqual(await counts('bob'), [1, 0]);
  t.deepEqual((await hearth.call('GET', '/users/bob/followers')).body.map((u: { login: string }) => u.login), ['carol']);
});

test('instance settings and version', async (t) => {
  const hearth = await startHearth(t, { HEARTH__ui__REACTIONS: '+1, heart' });
  const version = await hearth.call('GET', '/version');
  t.is(version.status, 200);
  t.regex(version.body.version, /^1\.22\.\d+/);
  const api = await hearth.call('GET', '/settings/api');
  t.deepEqual(api.body, { max_response_items: 50, default_paging_num: 30, default_git_trees_per_page: 1000, default_max_blob_size: 10485760 });
  const attachment = await hearth.call('GET', '/settings/attachment');
  t.is(attachment.status, 200);
  t.is(attachment.body.enabled, true);
  t.is(typeof attachment.body.allowed_types, 'string');
  t.is(typeof attachment.body.max_size, 'number');
  t.is(typeof attachment.body.max_files, 'number');
  const ui = await hearth.call('GET', '/settings/ui');
  t.deepEqual(ui.body.allowed_reactions, ['+1', 'heart']);
  t.is(typeof ui.body.default_theme, 'string');
  t.true(Array.isArray(ui.body.custom_emojis));
  const repository = await hearth.call('GET', '/settings/repository');
  t.is(repository.status, 200);
  for (const key of ['mirrors_disabled', 'http_git_disabled', 'migrations_disabled', 'stars_disabled', 'time_tracking_disabled', 'lfs_disabled']) {
    t.is(typeof repository.body[key], 'boolean', key);
  }
});

test('API paths refuse NUL characters without reaching the database', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const path = await hearth.call('GET', '/users/ali%00ce', { auth: alice.bearer });
  t.is(path.status, 404);
  const query = await hearth.call('GET', '/users/search?q=a%00b', { auth: alice.bearer });
  t.is(query.status, 422);
  t.truthy(query.body.message);
});
