import test from 'ava';
import { inTx } from '../../db/data-source.js';
import { deleteUser, findUserByName } from '../../db/models/users/users.js';
import { drain } from '../helpers/drain.js';
import { basicAuth, startHearth, type TestHearth } from '../helpers/hearth.js';
import { startSmtp } from '../helpers/smtp.js';

async function userCount(hearth: TestHearth): Promise<number> {
  const [{ count }] = await hearth.store.db.query<{ count: string }>('SELECT count(*) FROM "user"');
  return Number(count);
}

async function userRow(hearth: TestHearth, name: string): Promise<Record<string, any> | undefined> {
  const [row] = await hearth.store.db.query('SELECT * FROM "user" WHERE lower_name = $1', [name.toLowerCase()]);
  return row;
}

async function mailJobs(hearth: TestHearth): Promise<Array<{ state: string; data: { to: string[]; subject: string } }>> {
  return hearth.store.db.query(`SELECT state, data FROM pgboss.job WHERE name = 'mail' ORDER BY created_on`);
}

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('adminCreateUser creates a user, back-dates created_at, and the user can sign in', async (t) => {
  const hearth = await startHearth(t);
  const root = await hearth.createUser('root', { admin: true });
  const answer = await hearth.call('POST', '/admin/users', {
    auth: root.bearer,
    body: {
      username: 'Newcomer', email: 'New@Example.com', password: 'correct horse', full_name: 'New Comer',
      visibility: 'limited', restricted: true, created_at: '2020-02-03T04:05:06Z',
    },
  });
  t.is(answer.status, 201);
  t.like(answer.body, {
    login: 'Newcomer', full_name: 'New Comer', email: 'New@Example.com', visibility: 'limited', restricted: true,
    is_admin: false, active: true, created: '2020-02-03T04:05:06Z',
  });
  const row = await userRow(hearth, 'newcomer');
  t.truthy(row);
  t.is(row!.name, 'Newcomer');
  t.is(new Date(row!.created).toISOString(), '2020-02-03T04:05:06.000Z');
  t.is(row!.visibility, 1);
  t.is(row!.must_change_password, true);
  const emails = await hearth.store.db.query('SELECT email, is_primary FROM email_address WHERE uid = $1', [row!.id]);
  t.deepEqual(emails, [{ email: 'New@Example.com', is_primary: true }]);

  const demanded = await hearth.call('GET', '/user', { auth: basicAuth('newcomer', 'correct horse') });
  t.is(demanded.status, 403, 'the password is right, but it must be changed first');
  t.regex(demanded.body.message, /must change your password/);
  await hearth.call('PATCH', '/admin/users/newcomer', { auth: root.bearer, body: { must_change_password: false } });
  const signIn = await hearth.call('GET', '/user', { auth: basicAuth('newcomer', 'correct horse') });
  t.is(signIn.status, 200);
  t.is(signIn.body.login, 'Newcomer');
  t.is((await hearth.call('GET', '/users/newcomer', { auth: root.bearer })).body.created, '2020-02-03T04:05:06Z');

  const now = await hearth.call('POST', '/admin/users', {
    auth: root.bearer,
    body: { username: 'fresh', email: 'fresh@example.com', password: 'password123', must_change_password: false },
  });
  t.is(now.status, 201);
  t.true(Math.abs(Date.parse(now.body.created) - Date.now()) < 60_000);
  t.is((await userRow(hearth, 'fresh'))!.must_change_password, false);
});

test('a password may be omitted for an LDAP login source, not for the local one', async (t) => {
  const hearth = await startHearth(t);
  const root = await hearth.createUser('root', { admin: true });
  const [{ id }] = await hearth.store.db.query<{ id: number }>(`INSERT INTO login_source (type, name) VALUES ('ldap', 'corp') RETURNING id::int`);

  const ldap = await hearth.call('POST', '/admin/users', {
    auth: root.bearer,
    body: { username: 'ldapuser', email: 'ldap@example.com', source_id: id, login_name: 'uid=ldapuser' },
  });
  t.is(ldap.status, 201);
  t.like(ldap.body, { login: 'ldapuser', source_id: id, login_name: 'uid=ldapuser' });
  const row = await userRow(hearth, 'ldapuser');
  t.like(row, { passwd: '', login_source: id, login_name: 'uid=ldapuser' });
  t.is((await hearth.call('GET', '/user', { auth: basicAuth('ldapuser', '') })).status, 401);

  const before = await userCount(hearth);
  const local = await hearth.call('POST', '/admin/users', { auth: root.bearer, body: { username: 'localuser', email: 'local@example.com' } });
  t.is(local.status, 400, 'Gitea answers PasswordIsRequired with 400');
  t.regex(local.body.message, /password is required/);
  const explicitLocal = await hearth.call('POST', '/admin/users', {
    auth: root.bearer, body: { username: 'localuser', email: 'local@example.com', source_id: 0, password: '' },
  });
  t.is(explicitLocal.status, 400);
  const noSource = await hearth.call('POST', '/admin/users', {
    auth: root.bearer, body: { username: 'ghostsrc', email: 'ghost@example.com', source_id: 999 },
  });
  t.is(noSource.status, 422);
  t.regex(noSource.body.message, /login source/);
  t.is(await userCount(hearth), before);

  const search = await hearth.call('GET', `/admin/users?source_id=${id}`, { auth: root.bearer });
  t.deepEqual(search.body.map((u: { login: string }) => u.login), ['ldapuser']);
  const byLogin = await hearth.call('GET', '/admin/users?login_name=uid%3Dldapuser', { auth: root.bearer });
  t.deepEqual(byLogin.body.map((u: { login: string }) => u.login), ['ldapuser']);
});

test('administrator routes refuse other callers with 403 (401 when anonymous) and write nothing', async (t) => {
  const hearth = await startHearth(t);
  const root = await hearth.createUser('root', { admin: true });
  const alice = await hearth.createUser('alice');
  const before = await userCount(hearth);
  const attempts: Array<[string, string, unknown]> = [
    ['POST', '/admin/users', { username: 'sneaky', email: 'sneaky@example.com', password: 'password123' }],
    ['GET', '/admin/users', undefined],
    ['PATCH', '/admin/users/root', { admin: false }],
    ['PATCH', '/admin/users/alice', { admin: true }],
    ['DELETE', '/admin/users/root', undefined],
    ['POST', '/admin/users/root/rename', { new_username: 'toor' }],
    ['GET', '/admin/emails', undefined],
    ['GET', '/admin/emails/search?q=root', undefined],
  ];
  for (const [method, path, body] of attempts) {
    for (const auth of [alice.bearer, alice.basic]) {
      const answer = await hearth.call(method, path, { auth, body });
      t.is(answer.status, 403, `${method} ${path}`);
      t.is(answer.body.message, 'user should be the site admin');
    }
    const anonymous = await hearth.call(method, path, { body });
    t.is(anonymous.status, 401, `anonymous ${method} ${path}`);
  }
  t.is(await userCount(hearth), before);
  t.like(await userRow(hearth, 'root'), { is_admin: true, name: 'root' });
  t.like(await userRow(hearth, 'alice'), { is_admin: false });
  t.truthy(root);
});

test('adminEditUser changes the named fields, the primary address and the password', async (t) => {
  const hearth = await startHearth(t);
  const root = await hearth.createUser('root', { admin: true });
  const alice = await hearth.createUser('alice');
  await hearth.createUser('bob');

  const answer = await hearth.call('PATCH', '/admin/users/alice', {
    auth: root.bearer,
    body: {
      full_name: 'Alice A.', website: 'https://a.example', location: 'Wonderland', description: 'curious', email: 'alice@new.example',
      admin: true, allow_create_organization: false, max_repo_creation: 3, restricted: true, visibility: 'limited', password: 'brand new pass',
      must_change_password: true, login_name: 'alice', source_id: 0,
    },
  });
  t.is(answer.status, 200);
  t.like(answer.body, {
    login: 'alice', full_name: 'Alice A.', website: 'https://a.example', location: 'Wonderland', description: 'curious',
    email: 'alice@new.example', is_admin: true, restricted: true, visibility: 'limited',
  });
  t.like(await userRow(hearth, 'alice'), {
    full_name: 'Alice A.', email: 'alice@new.example', is_admin: true, allow_create_organization: false, max_repo_creation: 3,
    restricted: true, visibility: 1, must_change_password: true,
  });
  const emails = await hearth.store.db.query('SELECT email, is_primary FROM email_address WHERE uid = $1 ORDER BY id', [alice.user.id]);
  t.deepEqual(emails, [{ email: 'alice@example.com', is_primary: false }, { email: 'alice@new.example', is_primary: true }]);
  t.is((await hearth.call('GET', '/user', { auth: alice.basic })).status, 401);
  t.is((await hearth.call('GET', '/user', { auth: basicAuth('alice', 'brand new pass') })).status, 403, 'she must change it');
  await hearth.call('PATCH', '/admin/users/alice', { auth: root.bearer, body: { must_change_password: false } });
  t.is((await hearth.call('GET', '/user', { auth: basicAuth('alice', 'brand new pass') })).status, 200);

  const back = await hearth.call('PATCH', '/admin/users/alice', { auth: root.bearer, body: { email: 'ALICE@example.com' } });
  t.is(back.status, 200);
  const primaries = await hearth.store.db.query<{ email: string }>('SELECT email FROM email_address WHERE uid = $1 AND is_primary', [alice.user.id]);
  t.deepEqual(primaries.map((e) => e.email), ['alice@example.com']);

  const deactivate = await hearth.call('PATCH', '/admin/users/alice', { auth: root.bearer, body: { active: false, prohibit_login: true } });
  t.is(deactivate.status, 200);
  t.like(await userRow(hearth, 'alice'), { is_active: false, prohibit_login: true });
  t.is((await hearth.call('GET', '/user', { auth: alice.bearer })).status, 403);

  const rows = await userRow(hearth, 'alice');
  const refusals: Array<[unknown, RegExp]> = [
    [{ email: 'bob@example.com' }, /in use/],
    [{ email: 'not an address' }, /invalid/],
    [{ visibility: 'secret' }, /visibility/],
    [{ max_repo_creation: -5 }, /MaxRepoCreation/],
    [{ max_repo_creation: 2 ** 40 }, /max_repo_creation/],
    [{ source_id: 77 }, /login source/],
    [{ admin: 'yes' }, /admin/],
    [{ full_name: 'x'.repeat(101) }, /full_name/],
  ];
  for (const [body, message] of refusals) {
    const refused = await hearth.call('PATCH', '/admin/users/alice', { auth: root.bearer, body });
    t.is(refused.status, 422, JSON.stringify(body));
    t.regex(refused.body.message, message);
  }
  const short = await hearth.call('PATCH', '/admin/users/alice', { auth: root.bearer, body: { password: 'short' } });
  t.is(short.status, 400, 'Gitea answers PasswordTooShort with 400');
  t.regex(short.body.message, /too short/);
  t.deepEqual(await userRow(hearth, 'alice'), rows);
  t.is((await hearth.call('PATCH', '/admin/users/nobody', { auth: root.bearer, body: { full_name: 'x' } })).status, 404);
});

test('adminRenameUser, adminDeleteUser and adminSearchUsers', async (t) => {
  const hearth = await startHearth(t);
  const root = await hearth.createUser('root', { admin: true });
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');

  const renamed = await hearth.call('POST', '/admin/users/alice/rename', { auth: root.bearer, body: { new_username: 'alicia' } });
  t.is(renamed.status, 204);
  t.like(await userRow(hearth, 'alicia'), { id: alice.user.id, name: 'alicia' });
  t.is(await userRow(hearth, 'alice'), undefined);
  t.is((await hearth.call('GET', '/users/alice')).status, 404);
  t.is((await hearth.call('GET', '/users/alicia')).body.id, alice.user.id);
  t.is((await hearth.call('GET', '/user', { auth: alice.bearer })).body.login, 'alicia');

  const recase = await hearth.call('POST', '/admin/users/alicia/rename', { auth: root.bearer, body: { new_username: 'Alicia' } });
  t.is(recase.status, 204);
  t.is((await userRow(hearth, 'alicia'))!.name, 'Alicia');

  for (const [newName, message] of [['bob', /already exists/], ['BOB', /already exists/], ['api', /reserved/], ['x.keys', /not allowed/], ['-x', /invalid/], ['', /new_username/]] as const) {
    const refused = await hearth.call('POST', '/admin/users/alicia/rename', { auth: root.bearer, body: { new_username: newName } });
    t.is(refused.status, 422, newName);
    t.regex(refused.body.message, message);
  }
  t.is((await userRow(hearth, 'alicia'))!.name, 'Alicia');
  t.is((await hearth.call('POST', '/admin/users/nobody/rename', { auth: root.bearer, body: { new_username: 'somebody' } })).status, 404);

  t.is((await hearth.call('PUT', '/user/following/bob', { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('PUT', '/user/following/alicia', { auth: bob.bearer })).status, 204);
  const deleted = await hearth.call('DELETE', '/admin/users/alicia', { auth: root.bearer });
  t.is(deleted.status, 204);
  t.is(await userRow(hearth, 'alicia'), undefined);
  t.is((await hearth.store.db.query('SELECT 1 FROM email_address WHERE uid = $1', [alice.user.id])).length, 0);
  t.is((await hearth.store.db.query('SELECT 1 FROM access_token WHERE uid = $1', [alice.user.id])).length, 0);
  t.like(await userRow(hearth, 'bob'), { num_followers: 0, num_following: 0 });
  t.is((await hearth.call('GET', '/user', { auth: alice.bearer })).status, 401);
  t.is((await hearth.call('DELETE', '/admin/users/alicia', { auth: root.bearer })).status, 404);
  const badPurge = await hearth.call('DELETE', '/admin/users/bob?purge=maybe', { auth: root.bearer });
  t.is(badPurge.status, 422);
  t.truthy(await userRow(hearth, 'bob'));

  for (const name of ['u1', 'u2', 'u3']) await hearth.createUser(name);
  await hearth.store.db.query(`UPDATE "user" SET visibility = 2 WHERE lower_name = 'u3'`);
  const search = await hearth.call('GET', '/admin/users?limit=2', { auth: root.bearer });
  t.is(search.status, 200);
  t.deepEqual(search.body.map((u: { login: string }) => u.login), ['root', 'bob']);
  t.is(search.headers.get('x-total-count'), '5');
  t.regex(search.headers.get('link') ?? '', /page=2.*rel="next"/);
  t.regex(search.headers.get('link') ?? '', /page=3.*rel="last"/);
  const last = await hearth.call('GET', '/admin/users?limit=2&page=3', { auth: root.bearer });
  t.deepEqual(last.body.map((u: { login: string }) => u.login), ['u3']);
  t.is(last.body[0].visibility, 'private');
});

test('the last administrator can be neither demoted nor deleted; an administrator cannot delete itself', async (t) => {
  const hearth = await startHearth(t);
  const root = await hearth.createUser('root', { admin: true });
  const second = await hearth.createUser('second', { admin: true });

  const selfDelete = await hearth.call('DELETE', '/admin/users/root', { auth: root.bearer });
  t.is(selfDelete.status, 422);
  t.is(selfDelete.body.message, 'you cannot delete yourself');
  t.truthy(await userRow(hearth, 'root'));

  const demoted = await hearth.call('PATCH', '/admin/users/second', { auth: root.bearer, body: { admin: false } });
  t.is(demoted.status, 200);
  t.is(demoted.body.is_admin, false);
  t.is((await userRow(hearth, 'second'))!.is_admin, false);

  const lastDemote = await hearth.call('PATCH', '/admin/users/root', { auth: root.bearer, body: { admin: false, full_name: 'Still Root' } });
  t.is(lastDemote.status, 422);
  t.regex(lastDemote.body.message, /last administrator/);
  t.like(await userRow(hearth, 'root'), { is_admin: true, full_name: '' });

  const rootRow = (await findUserByName(hearth.store.db, 'root'))!;
  const lastDelete = await inTx(hearth.store, (tx) => deleteUser(tx, rootRow, { ctx: hearth.deps, doer: rootRow, purge: false })).then(() => null, (error: unknown) => error);
  t.is((lastDelete as { status?: number })?.status, 422);
  t.regex((lastDelete as Error).message, /last admin/);
  t.truthy(await userRow(hearth, 'root'));

  t.is((await hearth.call('PATCH', '/admin/users/second', { auth: root.bearer, body: { admin: true } })).status, 200);
  const crossed = await Promise.all([
    hearth.call('PATCH', '/admin/users/second', { auth: root.bearer, body: { admin: false } }),
    hearth.call('PATCH', '/admin/users/root', { auth: second.bearer, body: { admin: false } }),
  ]);
  t.is(crossed.filter((a) => a.status === 200).length, 1);
  t.true(crossed.every((a) => [200, 403, 422].includes(a.status)));
  const admins = await hearth.store.db.query(`SELECT name FROM "user" WHERE is_admin`);
  t.is(admins.length, 1);

  const survivor = admins[0].name === 'root' ? root : second;
  const other = survivor === root ? 'second' : 'root';
  t.is((await hearth.call('DELETE', `/admin/users/${other}`, { auth: survivor.bearer })).status, 204);
  t.is(await userRow(hearth, other), undefined);
});

test('reserved and malformed names, bad types and bad addresses are 422 with a message and write nothing', async (t) => {
  const hearth = await startHearth(t);
  const root = await hearth.createUser('root', { admin: true });
  await hearth.createUser('taken');
  const valid = { username: 'valid', email: 'valid@example.com', password: 'password123' };
  const before = await userCount(hearth);
  const [{ count: emailsBefore }] = await hearth.store.db.query<{ count: string }>('SELECT count(*) FROM email_address');
  const bodies: Array<[Record<string, unknown>, RegExp]> = [
    ...['admin', 'api', 'hearth-actions', 'service-actions', 'gitea-actions', 'Admin', 'user'].map(
      (username): [Record<string, unknown>, RegExp] => [{ ...valid, username }, /reserved/],
    ),
    [{ ...valid, username: 'foo.keys' }, /not allowed/],
    [{ ...valid, username: 'feed.atom' }, /not allowed/],
    [{ ...valid, username: '-bad' }, /invalid/],
    [{ ...valid, username: 'a..b' }, /invalid/],
    [{ ...valid, username: 'trailing.' }, /invalid/],
    [{ ...valid, username: 'with space' }, /invalid/],
    [{ ...valid, username: 'ünïcode' }, /invalid/],
    [{ ...valid, username: 'a'.repeat(41) }, /username/],
    [{ ...valid, username: '' }, /username/],
    [{ ...valid, username: 'taken' }, /already exists/],
    [{ ...valid, username: 'TAKEN' }, /already exists/],
    [{ ...valid, email: 'taken@example.com' }, /in use/],
    [{ ...valid, email: 'TAKEN@EXAMPLE.COM' }, /in use/],
    [{ ...valid, username: 42 }, /username/],
    [{ ...valid, email: ['valid@example.com'] }, /email/],
    [{ ...valid, email: 'not-an-email' }, /invalid/],
    [{ ...valid, email: 'a@b@example.com' }, /invalid/],
    [{ ...valid, email: '' }, /email/],
    [{ username: 'valid', password: 'password123' }, /email/],
    [{ ...valid, visibility: 'secret' }, /visibility/],
    [{ ...valid, must_change_password: 'yes' }, /must_change_password/],
    [{ ...valid, send_notify: 1 }, /send_notify/],
    [{ ...valid, source_id: -1 }, /source_id/],
    [{ ...valid, source_id: 1.5 }, /source_id/],
    [{ ...valid, created_at: 'yesterday' }, /created_at/],
    [{ ...valid, password: 'x'.repeat(256) }, /password/],
    [{ ...valid, full_name: 'nul\u0000byte' }, /NUL/],
  ];
  for (const [body, message] of bodies) {
    const answer = await hearth.call('POST', '/admin/users', { auth: root.bearer, body });
    t.is(answer.status, 422, JSON.stringify(body));
    t.regex(answer.body.message ?? '', message, JSON.stringify(body));
  }
  for (const raw of ['{"username":', '[1,2', 'null']) {
    const answer = await hearth.call('POST', '/admin/users', { auth: root.bearer, body: raw });
    t.is(answer.status, 400, raw);
    t.truthy(answer.body.message);
  }
  const short = await hearth.call('POST', '/admin/users', { auth: root.bearer, body: { ...valid, password: 'short' } });
  t.is(short.status, 400);
  t.regex(short.body.message, /too short/);
  const list = await hearth.call('POST', '/admin/users', { auth: root.bearer, body: [valid] });
  t.is(list.status, 422);
  t.is(await userCount(hearth), before);
  const [{ count: emailsAfter }] = await hearth.store.db.query<{ count: string }>('SELECT count(*) FROM email_address');
  t.is(emailsAfter, emailsBefore);
  t.is((await hearth.call('POST', '/admin/users', { auth: root.bearer, body: valid })).status, 201);
  t.is(await userCount(hearth), before + 1);
});

test('simultaneous creations of one name or one address: one 201, the others 422, never a 500', async (t) => {
  const hearth = await startHearth(t);
  const root = await hearth.createUser('root', { admin: true });
  for (let round = 0; round < 4; round++) {
    const sameName = await Promise.all([1, 2].map((i) =>
      hearth.call('POST', '/admin/users', { auth: root.bearer, body: { username: `twin${round}`, email: `twin${round}-${i}@example.com`, password: 'password123' } }),
    ));
    t.deepEqual(sameName.map((a) => a.status).sort(), [201, 422]);
    t.regex(sameName.find((a) => a.status === 422)!.body.message, /already exists/);
    const sameEmail = await Promise.all([1, 2].map((i) =>
      hearth.call('POST', '/admin/users', { auth: root.bearer, body: { username: `mail${round}x${i}`, email: `shared${round}@example.com`, password: 'password123' } }),
    ));
    t.deepEqual(sameEmail.map((a) => a.status).sort(), [201, 422]);
    t.regex(sameEmail.find((a) => a.status === 422)!.body.message, /in use/);
  }
  const rows = await hearth.store.db.query<{ lower_name: string }>(`SELECT lower_name FROM "user" WHERE lower_name LIKE 'twin%' ORDER BY 1`);
  t.deepEqual(rows.map((r) => r.lower_name), ['twin0', 'twin1', 'twin2', 'twin3']);
  const shared = await hearth.store.db.query(`SELECT 1 FROM email_address WHERE lower_email LIKE 'shared%'`);
  t.is(shared.length, 4);
});

test('/admin/emails lists every address; /admin/emails/search filters by address or user name', async (t) => {
  const hearth = await startHearth(t);
  const root = await hearth.createUser('root', { admin: true });
  const alice = await hearth.createUser('alice');
  await hearth.createUser('bob');
  t.is((await hearth.call('POST', '/user/emails', { auth: alice.bearer, body: { emails: ['alice@work.example'] } })).status, 201);

  const all = await hearth.call('GET', '/admin/emails', { auth: root.bearer });
  t.is(all.status, 200);
  t.is(all.headers.get('x-total-count'), '4');
  t.deepEqual(all.body.map((e: { email: string }) => e.email), ['root@example.com', 'alice@example.com', 'bob@example.com', 'alice@work.example']);
  t.deepEqual(all.body[3], { email: 'alice@work.example', verified: true, primary: false, user_id: alice.user.id, username: 'alice' });

  const paged = await hearth.call('GET', '/admin/emails?limit=3', { auth: root.bearer });
  t.is(paged.body.length, 3);
  t.regex(paged.headers.get('link') ?? '', /rel="next"/);

  const byUser = await hearth.call('GET', '/admin/emails/search?q=ALICE', { auth: root.bearer });
  t.deepEqual(byUser.body.map((e: { email: string }) => e.email), ['alice@example.com', 'alice@work.example']);
  t.is(byUser.headers.get('x-total-count'), '2');
  const byDomain = await hearth.call('GET', '/admin/emails/search?q=work.example', { auth: root.bearer });
  t.deepEqual(byDomain.body.map((e: { email: string }) => e.email), ['alice@work.example']);
  const none = await hearth.call('GET', '/admin/emails/search?q=_', { auth: root.bearer });
  t.deepEqual(none.body, []);
});

test('send_notify enqueues a mail job with the user; the worker delivers it over SMTP', async (t) => {
  const smtp = await startSmtp(t);
  const hearth = await startHearth(t, {
    HEARTH__mailer__ENABLED: 'true',
    HEARTH__mailer__SMTP_ADDR: '127.0.0.1',
    HEARTH__mailer__SMTP_PORT: String(smtp.port),
    HEARTH__mailer__FROM: 'Hearth <noreply@hearth.test>',
  });
  const root = await hearth.createUser('root', { admin: true });

  const quiet = await hearth.call('POST', '/admin/users', {
    auth: root.bearer, body: { username: 'quiet', email: 'quiet@example.com', password: 'password123' },
  });
  t.is(quiet.status, 201);
  t.deepEqual(await mailJobs(hearth), []);

  const refused = await hearth.call('POST', '/admin/users', {
    auth: root.bearer, body: { username: 'api', email: 'api@example.com', password: 'password123', send_notify: true },
  });
  t.is(refused.status, 422);
  t.deepEqual(await mailJobs(hearth), []);

  const answer = await hearth.call('POST', '/admin/users', {
    auth: root.bearer, body: { username: 'greeted', email: 'greeted@example.com', password: 'password123', send_notify: true },
  });
  t.is(answer.status, 201);
  const queued = await mailJobs(hearth);
  t.is(queued.length, 1);
  t.deepEqual(queued[0].data.to, ['greeted@example.com']);
  t.regex(queued[0].data.subject, /greeted/);

  await hearth.startWorker();
  const mail = await smtp.waitFor((m) => m.to.includes('greeted@example.com'));
  t.is(mail.from, 'noreply@hearth.test');
  t.regex(mail.raw, /Subject: Welcome to Hearth, greeted/);
  t.regex(mail.raw, /greeted/);
  const jobs = await eventually(() => mailJobs(hearth), (rows) => rows.every((row) => row.state === 'completed'));
  t.deepEqual(jobs.map((row) => row.state), ['completed']);
  t.is(smtp.mails.length, 1);
});

test('with mail disabled the mail job completes without sending', async (t) => {
  const smtp = await startSmtp(t);
  const hearth = await startHearth(t, {
    HEARTH__mailer__ENABLED: 'false',
    HEARTH__mailer__SMTP_ADDR: '127.0.0.1',
    HEARTH__mailer__SMTP_PORT: String(smtp.port),
  });
  const root = await hearth.createUser('root', { admin: true });
  const answer = await hearth.call('POST', '/admin/users', {
    auth: root.bearer, body: { username: 'unmailed', email: 'unmailed@example.com', password: 'password123', send_notify: true },
  });
  t.is(answer.status, 201);
  await drain(hearth, 'mail');
  const jobs = await mailJobs(hearth);
  t.deepEqual(jobs.map((row) => row.state), ['completed']);
  const [output] = await hearth.store.db.query<{ output: unknown }>(`SELECT output FROM pgboss.job WHERE name = 'mail'`);
  t.deepEqual(output.output, { value: 'skipped' });
  t.is(smtp.mails.length, 0);
});
