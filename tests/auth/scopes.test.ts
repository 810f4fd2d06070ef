import { randomBytes } from 'node:crypto';
import test from 'ava';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { hashToken } from '../../db/crypto.js';
import { createDataSource, migrate, poolReader } from '../../db/data-source.js';
import { Foundation1732000000000 } from '../../db/migrations/1732000000000-foundation.js';
import { authenticateToken } from '../../db/models/users/tokens.js';
import { normalizeScopes, scopeAllows } from '../../db/scopes.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';

const scopeDenied = (scope: string): string => `token does not have at least one of required scope(s): [${scope}]`;

async function fullName(hearth: TestHearth, id: number): Promise<string> {
  const [row] = await hearth.store.db.query<{ full_name: string }>('SELECT full_name FROM "user" WHERE id = $1', [id]);
  return row.full_name;
}

test('read:user reads the profile but cannot write settings, by header, query or basic', async (t) => {
  const hearth = await startHearth(t);
  const reader = await hearth.createUser('reader', { scopes: ['read:user'] });

  const me = await hearth.call('GET', '/user', { auth: reader.bearer });
  t.is(me.status, 200);
  t.is(me.body.login, 'reader');

  for (const auth of [reader.bearer, `Bearer ${reader.token}`, `Basic ${Buffer.from(`reader:${reader.token}`).toString('base64')}`]) {
    const patch = await hearth.call('PATCH', '/user/settings', { auth, body: { full_name: 'Changed' } });
    t.is(patch.status, 403);
    t.is(patch.body.message, scopeDenied('write:user'));
  }
  const byQuery = await hearth.call('PATCH', `/user/settings?token=${reader.token}`, { body: { full_name: 'Changed' } });
  t.is(byQuery.status, 403);
  t.is(byQuery.body.message, scopeDenied('write:user'));
  t.is(await fullName(hearth, reader.user.id), '');

  const byPassword = await hearth.call('PATCH', '/user/settings', { auth: reader.basic, body: { full_name: 'By Password' } });
  t.is(byPassword.status, 200);
  t.is(await fullName(hearth, reader.user.id), 'By Password');

  const admin = await hearth.call('GET', '/admin/users', { auth: reader.bearer });
  t.is(admin.status, 403);
  t.is(admin.body.message, scopeDenied('read:admin'));
});

test('write implies read, and a scope of another category grants nothing here', async (t) => {
  const hearth = await startHearth(t);
  const writer = await hearth.createUser('writer', { scopes: ['write:user'] });
  const other = await hearth.createUser('other', { scopes: ['write:repository', 'read:issue'] });

  t.is((await hearth.call('GET', '/user', { auth: writer.bearer })).status, 200);
  t.is((await hearth.call('GET', '/user/emails', { auth: writer.bearer })).status, 200);
  const patch = await hearth.call('PATCH', '/user/settings', { auth: writer.bearer, body: { full_name: 'Writer' } });
  t.is(patch.status, 200);
  t.is(patch.body.full_name, 'Writer');
  t.is(await fullName(hearth, writer.user.id), 'Writer');

  const read = await hearth.call('GET', '/user', { auth: other.bearer });
  t.is(read.status, 403);
  t.is(read.body.message, scopeDenied('read:user'));
  const write = await hearth.call('PATCH', '/user/settings', { auth: other.bearer, body: { full_name: 'Other' } });
  t.is(write.status, 403);
  t.is(await fullName(hearth, other.user.id), '');

  t.is((await hearth.call('GET', '/version', { auth: other.bearer })).status, 200);
});

test('all satisfies every route, including the administrator routes', async (t) => {
  const hearth = await startHearth(t);
  const root = await hearth.createUser('root', { admin: true, scopes: ['all'] });
  const plain = await hearth.createUser('plain', { scopes: ['all'] });

  t.is((await hearth.call('GET', '/user', { auth: root.bearer })).status, 200);
  t.is((await hearth.call('PATCH', '/user/settings', { auth: root.bearer, body: { location: 'Here' } })).status, 200);
  t.is((await hearth.call('GET', '/admin/users', { auth: root.bearer })).status, 200);
  t.is((await hearth.call('GET', '/admin/emails', { auth: root.bearer })).status, 200);
  const created = await hearth.call('POST', '/admin/users', {
    auth: root.bearer,
    body: { username: 'made', email: 'made@example.com', password: 'password123' },
  });
  t.is(created.status, 201);
  t.is((await hearth.call('GET', '/users/made', { auth: root.bearer })).body.login, 'made');

  const notAdmin = await hearth.call('GET', '/admin/users', { auth: plain.bearer });
  t.is(notAdmin.status, 403);
  t.is(notAdmin.body.message, 'user should be the site admin');
});

test('read:admin lists but cannot create; write:admin does both', async (t) => {
  const hearth = await startHearth(t);
  const reader = await hearth.createUser('auditor', { admin: true, scopes: ['read:admin'] });
  const writer = await hearth.createUser('operator', { admin: true, scopes: ['write:admin'] });
  const body = { username: 'newbie', email: 'newbie@example.com', password: 'password123' };

  t.is((await hearth.call('GET', '/admin/users', { auth: reader.bearer })).status, 200);
  const refused = await hearth.call('POST', '/admin/users', { auth: reader.bearer, body });
  t.is(refused.status, 403);
  t.is(refused.body.message, scopeDenied('write:admin'));
  t.is((await hearth.store.db.query('SELECT 1 FROM "user" WHERE lower_name = $1', ['newbie'])).length, 0);

  t.is((await hearth.call('GET', '/admin/users', { auth: writer.bearer })).status, 200);
  const made = await hearth.call('POST', '/admin/users', { auth: writer.bearer, body });
  t.is(made.status, 201);
  t.is((await hearth.store.db.query('SELECT 1 FROM "user" WHERE lower_name = $1', ['newbie'])).length, 1);
});

test('scopes are stored normalized, returned on creation and in the token list', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const cases: Array<[string[], string]> = [
    [['read:user', 'read:user', 'read:repository'], 'read:repository,read:user'],
    [['write:user', 'read:user', 'read:admin', 'write:user'], 'read:admin,write:user'],
    [['read:issue,read:issue', ' read:notification '], 'read:issue,read:notification'],
    [['read:user', 'all', 'write:admin'], 'all'],
  ];
  for (const [index, [scopes, stored]] of cases.entries()) {
    const answer = await hearth.call('POST', '/users/alice/tokens', { auth: alice.basic, body: { name: `t${index}`, scopes } });
    t.is(answer.status, 201);
    t.deepEqual(answer.body.scopes, stored.split(','));
    const [row] = await hearth.store.db.query<{ scope: string }>('SELECT scope FROM access_token WHERE id = $1', [answer.body.id]);
    t.is(row.scope, stored);
  }
  const list = await hearth.call('GET', '/users/alice/tokens', { auth: alice.basic });
  t.is(list.status, 200);
  const byName = new Map(list.body.map((token: { name: string; scopes: string[] }) => [token.name, token.scopes]));
  for (const [index, [, stored]] of cases.entries()) t.deepEqual(byName.get(`t${index}`), stored.split(','));
  t.deepEqual(byName.get('test'), ['all']);
});

test('an unknown scope name, or none at all, is refused with 400 and no token is written', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bad: Array<[unknown, RegExp]> = [
    [['read:user', 'read:bogus'], /invalid access token scope provided: read:bogus/],
    [['admin'], /invalid access token scope provided: admin/],
    [['READ:USER'], /invalid access token scope provided/],
    [[], /must have a scope/],
    [[''], /must have a scope/],
  ];
  for (const [scopes, message] of bad) {
    const answer = await hearth.call('POST', '/users/alice/tokens', { auth: alice.basic, body: { name: 'bad', scopes } });
    t.is(answer.status, 400, JSON.stringify(scopes));
    t.regex(answer.body.message, message);
  }
  const wrongType = await hearth.call('POST', '/users/alice/tokens', { auth: alice.basic, body: { name: 'bad', scopes: 'read:user' } });
  t.is(wrongType.status, 422);
  t.truthy(wrongType.body.message);
  const rows = await hearth.store.db.query('SELECT 1 FROM access_token WHERE uid = $1', [alice.user.id]);
  t.is(rows.length, 1);
});

test('scope rules of the model: normalization and implication', (t) => {
  t.is(normalizeScopes(['write:package', 'read:package', 'read:misc']), 'read:misc,write:package');
  t.is(normalizeScopes(['all', 'read:user']), 'all');
  t.true(scopeAllows('all', 'write:admin'));
  t.true(scopeAllows('write:user', 'read:user'));
  t.false(scopeAllows('read:user', 'write:user'));
  t.false(scopeAllows('write:repository', 'read:user'));
  t.false(scopeAllows('', 'read:user'));
});

test('the scope migration gives every token that predates scopes the scope all', async (t) => {
  const adminUrl = process.env.HEARTH_TEST_ADMIN_URL;
  const template = process.env.HEARTH_TEST_TEMPLATE;
  if (!adminUrl || !template) throw new Error('run the tests with `npm test`');
  const name = `${template.replace('hearth_tpl_', 'hearth_t_')}_mig_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  t.teardown(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;

  const before = new DataSource({ type: 'postgres', url: url.toString(), entities: [], migrations: [Foundation1732000000000] });
  await before.initialize();
  await before.runMigrations({ transaction: 'each' });
  const columns = await before.query(`SELECT 1 FROM information_schema.columns WHERE table_name = 'access_token' AND column_name = 'scope'`);
  t.is(columns.length, 0);
  const [{ id: uid }] = await before.query(`INSERT INTO "user" (lower_name, name, email) VALUES ('old', 'Old', 'old@example.com') RETURNING id`);
  const tokens = ['1'.repeat(32) + 'abcdef01', '2'.repeat(32) + 'abcdef02'];
  for (const [index, token] of tokens.entries()) {
    await before.query(
      `INSERT INTO access_token (uid, name, token_hash, token_salt, token_last_eight) VALUES ($1, $2, $3, $4, $5)`,
      [uid, `legacy${index}`, hashToken(token, 'salt'), 'salt', token.slice(-8)],
    );
  }
  await before.destroy();

  const after = createDataSource(url.toString(), 'hearth-test-migration');
  await after.initialize();
  t.teardown(() => after.destroy());
  await migrate(after);
  const rows = await after.query(`SELECT name, scope FROM access_token ORDER BY name`);
  t.deepEqual(rows, [{ name: 'legacy0', scope: 'all' }, { name: 'legacy1', scope: 'all' }]);
  const found = await authenticateToken(poolReader(after), tokens[1]);
  t.is(found?.scope, 'all');
  t.is(found?.user.name, 'Old');
  const [nullable] = await after.query(
    `SELECT is_nullable FROM information_schema.columns WHERE table_name = 'access_token' AND column_name = 'scope'`,
  );
  t.is(nullable.is_nullable, 'NO');
});
