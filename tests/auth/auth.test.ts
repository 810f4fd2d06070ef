import { pbkdf2Sync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { Secret, TOTP } from 'otpauth';
import { queryTokenWarning } from '../../api/auth/authenticate.js';
import { loadConfig } from '../../db/process/config.js';
import { inTx } from '../../db/data-source.js';
import { enrollTotp } from '../../db/models/users/two-factor.js';
import { basicAuth, startHearth } from '../helpers/hearth.js';

test('token and Bearer headers, basic with a password or a token, and an e-mail address as login', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');

  const byHeader = await hearth.call('GET', '/user', { auth: `token ${alice.token}` });
  t.is(byHeader.status, 200);
  t.is(byHeader.body.login, 'alice');
  t.is(byHeader.body.id, alice.user.id);

  const byBearer = await hearth.call('GET', '/user', { auth: `Bearer ${alice.token}` });
  t.is(byBearer.status, 200);
  t.is(byBearer.body.login, 'alice');

  const byPassword = await hearth.call('GET', '/user', { auth: alice.basic });
  t.is(byPassword.status, 200);
  t.is(byPassword.body.login, 'alice');

  const byTokenAsPassword = await hearth.call('GET', '/user', { auth: basicAuth('alice', alice.token) });
  t.is(byTokenAsPassword.status, 200);
  t.is(byTokenAsPassword.body.login, 'alice');

  const byEmail = await hearth.call('GET', '/user', { auth: basicAuth('alice@example.com', alice.password) });
  t.is(byEmail.status, 200);
  t.is(byEmail.body.login, 'alice');

  for (const answer of [byHeader, byBearer, byPassword, byTokenAsPassword, byEmail]) t.is(answer.headers.get('warning'), null);
});

test('query parameters token and access_token work and answer with a deprecation Warning', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  for (const name of ['token', 'access_token']) {
    const answer = await hearth.call('GET', `/user?${name}=${alice.token}`);
    t.is(answer.status, 200, name);
    t.is(answer.body.login, 'alice');
    t.is(answer.headers.get('warning'), queryTokenWarning);
    t.regex(answer.headers.get('warning') ?? '', /deprecated/);
  }
  const unknown = await hearth.call('GET', `/user?token=${'0'.repeat(40)}`);
  t.is(unknown.status, 401);
  t.truthy(unknown.body.message);
});

test('DISABLE_QUERY_AUTH_TOKEN refuses query tokens but not header tokens', async (t) => {
  const hearth = await startHearth(t, { HEARTH__security__DISABLE_QUERY_AUTH_TOKEN: 'true' });
  const alice = await hearth.createUser('alice');
  for (const name of ['token', 'access_token']) {
    const answer = await hearth.call('GET', `/user?${name}=${alice.token}`);
    t.is(answer.status, 401, name);
    t.regex(answer.body.message, /disabled/);
  }
  const header = await hearth.call('GET', '/user', { auth: alice.bearer });
  t.is(header.status, 200);
  t.is(header.body.login, 'alice');
});

test('the reverse-proxy header authenticates when enabled for the API and sent by a trusted proxy', async (t) => {
  const hearth = await startHearth(t, { HEARTH__service__ENABLE_REVERSE_PROXY_AUTHENTICATION_API: 'true' });
  await hearth.createUser('alice');
  const answer = await hearth.call('GET', '/user', { headers: { 'X-WEBAUTH-USER': 'alice' } });
  t.is(answer.status, 200);
  t.is(answer.body.login, 'alice');

  const tokens = await hearth.call('GET', '/users/alice/tokens', { headers: { 'X-WEBAUTH-USER': 'alice' } });
  t.is(tokens.status, 200);
  t.is(tokens.body.length, 1);

  const unknown = await hearth.call('GET', '/user', { headers: { 'X-WEBAUTH-USER': 'nobody' } });
  t.is(unknown.status, 401);
  t.truthy(unknown.body.message);
});

test('the reverse-proxy header is ignored from a peer outside REVERSE_PROXY_TRUSTED_PROXIES', async (t) => {
  const hearth = await startHearth(t, {
    HEARTH__service__ENABLE_REVERSE_PROXY_AUTHENTICATION_API: 'true',
    HEARTH__security__REVERSE_PROXY_TRUSTED_PROXIES: '10.0.0.0/8',
  });
  await hearth.createUser('alice');
  const answer = await hearth.call('GET', '/user', { headers: { 'X-WEBAUTH-USER': 'alice' } });
  t.is(answer.status, 401);
  t.is(answer.body.message, 'token is required');
  const profile = await hearth.call('GET', '/users/alice', { headers: { 'X-WEBAUTH-USER': 'alice' } });
  t.is(profile.status, 200);
  t.is(profile.body.is_admin, false);
  t.regex(profile.body.email, /@noreply\./);
});

test('the reverse-proxy header is ignored when not enabled for the API, even from a trusted peer', async (t) => {
  const hearth = await startHearth(t);
  await hearth.createUser('alice');
  const answer = await hearth.call('GET', '/user', { headers: { 'X-WEBAUTH-USER': 'alice' } });
  t.is(answer.status, 401);
  t.is(answer.body.message, 'token is required');
});

test('a Cookie header never authenticates', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const cookie = `i_like_gitea=${alice.token}; _csrf=x; gitea_incredible=${alice.token}; token=${alice.token}`;
  const answer = await hearth.call('GET', '/user', { headers: { Cookie: cookie } });
  t.is(answer.status, 401);
  t.is(answer.body.message, 'token is required');
  const settings = await hearth.call('PATCH', '/user/settings', { headers: { Cookie: cookie }, body: { full_name: 'Cookie Monster' } });
  t.is(settings.status, 401);
  const [row] = await hearth.store.db.query<{ full_name: string }>('SELECT full_name FROM "user" WHERE id = $1', [alice.user.id]);
  t.is(row.full_name, '');
});

test('wrong passwords, unknown users and unknown tokens answer 401 with a message', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const attempts = [
    basicAuth('alice', 'not-the-password'),
    basicAuth('nobody', alice.password),
    basicAuth('alice', ''),
    basicAuth('alice', 'f'.repeat(40)),
    basicAuth('ali\u0000ce', alice.password),
    `token ${'a'.repeat(40)}`,
    `Bearer ${alice.token[0] === 'a' ? 'b' : 'a'}${alice.token.slice(1)}`,
    'token not-a-token',
    'token ',
    'Digest username="alice"',
  ];
  for (const auth of attempts) {
    const answer = await hearth.call('GET', '/user', { auth });
    t.is(answer.status, 401, auth);
    t.is(typeof answer.body.message, 'string');
    t.not(answer.body.message, '');
  }
  const settings = await hearth.call('PATCH', '/user/settings', { auth: basicAuth('alice', 'wrong'), body: { full_name: 'Mallory' } });
  t.is(settings.status, 401);
  const [row] = await hearth.store.db.query<{ full_name: string }>('SELECT full_name FROM "user" WHERE id = $1', [alice.user.id]);
  t.is(row.full_name, '');
});

test('an account that may not sign in is refused with 403, whatever the credential', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  await hearth.store.db.query('UPDATE "user" SET prohibit_login = true WHERE id = $1', [alice.user.id]);
  for (const auth of [alice.basic, alice.bearer]) {
    const answer = await hearth.call('GET', '/user', { auth });
    t.is(answer.status, 403);
    t.regex(answer.body.message, /prohibited/);
  }
});

test('a stored hash of an algorithm Hearth cannot compute fails the login without an error', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  await hearth.store.db.query(`UPDATE "user" SET passwd_hash_algo = 'argon2' WHERE id = $1`, [alice.user.id]);
  const answer = await hearth.call('GET', '/user', { auth: alice.basic });
  t.is(answer.status, 401);
  t.truthy(answer.body.message);
  const token = await hearth.call('GET', '/user', { auth: alice.bearer });
  t.is(token.status, 200);
});

test('two-factor: basic authentication needs the current code in X-Gitea-OTP; tokens do not', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const { secret, uri } = await inTx(hearth.store, (tx) => enrollTotp(tx, alice.user, hearth.config.security.secretKey));
  t.regex(uri, /^otpauth:\/\/totp\//);
  const [stored] = await hearth.store.db.query<{ secret: string }>('SELECT secret FROM two_factor WHERE uid = $1', [alice.user.id]);
  t.false(stored.secret.includes(secret));

  const totp = new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 });
  const near = new Set([-2, -1, 0, 1, 2].map((k) => totp.generate({ timestamp: Date.now() + k * 30_000 })));
  const wrong = ['000000', '111111', '222222', '333333', '444444', '555555'].find((code) => !near.has(code))!;

  const withoutCode = await hearth.call('GET', '/user', { auth: alice.basic });
  t.is(withoutCode.status, 401);
  t.regex(withoutCode.body.message, /X-Gitea-OTP/);

  const withWrongCode = await hearth.call('GET', '/user', { auth: alice.basic, headers: { 'X-Gitea-OTP': wrong } });
  t.is(withWrongCode.status, 401);
  t.is(withWrongCode.body.message, 'invalid provided OTP');

  const withGarbage = await hearth.call('GET', '/user', { auth: alice.basic, headers: { 'X-Gitea-OTP': 'abc' } });
  t.is(withGarbage.status, 401);

  const withCode = await hearth.call('GET', '/user', { auth: alice.basic, headers: { 'X-Gitea-OTP': totp.generate() } });
  t.is(withCode.status, 200);
  t.is(withCode.body.login, 'alice');

  const tokens = await hearth.call('GET', '/users/alice/tokens', { auth: alice.basic, headers: { 'X-Gitea-OTP': totp.generate() } });
  t.is(tokens.status, 200);

  const byToken = await hearth.call('GET', '/user', { auth: alice.bearer });
  t.is(byToken.status, 200);
  t.is(byToken.body.login, 'alice');
  const byQuery = await hearth.call('GET', `/user?token=${alice.token}`);
  t.is(byQuery.status, 200);

  const again = await inTx(hearth.store, (tx) => enrollTotp(tx, alice.user, hearth.config.security.secretKey)).catch((error: unknown) => error);
  t.is((again as { status?: number }).status, 422);
});

test('passwords are stored as salted pbkdf2 hashes, never in plain', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const [row] = await hearth.store.db.query<{ passwd: string; salt: string; passwd_hash_algo: string }>(
    'SELECT passwd, salt, passwd_hash_algo FROM "user" WHERE id = $1',
    [alice.user.id],
  );
  t.is(row.passwd_hash_algo, hearth.config.security.passwordHashAlgo);
  const match = /^pbkdf2\$(\d+)\$(\d+)$/.exec(row.passwd_hash_algo);
  t.truthy(match);
  t.not(row.passwd, alice.password);
  t.false(row.passwd.includes(alice.password));
  t.true(row.salt.length >= 16);
  const [, iterations, keylen] = match!;
  t.is(row.passwd, pbkdf2Sync(alice.password, row.salt, Number(iterations), Number(keylen), 'sha256').toString('hex'));

  const bob = await hearth.createUser('bob');
  await hearth.store.db.query('UPDATE "user" SET passwd = $2, salt = $3 WHERE id = $1', [bob.user.id, row.passwd, row.salt]);
  const swapped = await hearth.call('GET', '/user', { auth: basicAuth('bob', alice.password) });
  t.is(swapped.status, 200);
  t.is(swapped.body.login, 'bob');
});

test('PASSWORD_HASH_ALGO: pbkdf2 means the strong preset, Gitea\'s other names resolve to their parameters; an unsupported value stops the start', (t) => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'hearth-config-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = { HEARTH_DATA_DIR: dataDir };
  t.is(loadConfig(env).security.passwordHashAlgo, 'pbkdf2$320000$50');
  t.is(loadConfig({ ...env, HEARTH__security__PASSWORD_HASH_ALGO: 'pbkdf2' }).security.passwordHashAlgo, 'pbkdf2$320000$50');
  t.is(loadConfig({ ...env, HEARTH__security__PASSWORD_HASH_ALGO: 'pbkdf2$50000$64' }).security.passwordHashAlgo, 'pbkdf2$50000$64');
  t.is(loadConfig({ ...env, HEARTH__security__PASSWORD_HASH_ALGO: '' }).security.passwordHashAlgo, 'pbkdf2$320000$50', 'empty means unset, as Gitea\'s MustString');
  t.is(loadConfig({ ...env, HEARTH__security__PASSWORD_HASH_ALGO: 'pbkdf2_v2' }).security.passwordHashAlgo, 'pbkdf2$50000$50');
  t.is(loadConfig({ ...env, HEARTH__security__PASSWORD_HASH_ALGO: 'argon2' }).security.passwordHashAlgo, 'argon2$2$65536$8$50');
  t.is(loadConfig({ ...env, HEARTH__security__PASSWORD_HASH_ALGO: 'bcrypt' }).security.passwordHashAlgo, 'bcrypt$10');
  t.is(loadConfig({ ...env, HEARTH__security__PASSWORD_HASH_ALGO: 'scrypt' }).security.passwordHashAlgo, 'scrypt$65536$16$2$50');
  for (const value of ['md5', 'pbkdf2$100$50', 'pbkdf2$x$y', 'bcrypt$3', 'scrypt$1000$8$1$32', 'argon2$1$2']) {
    t.throws(() => loadConfig({ ...env, HEARTH__security__PASSWORD_HASH_ALGO: value }), { message: /PASSWORD_HASH_ALGO/ }, value);
  }
});

test('sudo: an administrator acts as another user by header or query; others are refused', async (t) => {
  const hearth = await startHearth(t);
  const root = await hearth.createUser('root', { admin: true });
  const alice = await hearth.createUser('alice');
  await hearth.createUser('bob');
  const byHeader = await hearth.call('GET', '/user', { auth: root.bearer, headers: { Sudo: 'alice' } });
  t.is(byHeader.status, 200);
  t.is(byHeader.body.login, 'alice');
  const created = await hearth.call('POST', '/user/repos?sudo=alice', { auth: root.bearer, body: { name: 'made-by-sudo' } });
  t.is(created.status, 201);
  t.is(created.body.owner.login, 'alice');
  const [{ owner_id }] = await hearth.store.db.query<{ owner_id: number }>('SELECT owner_id FROM repository WHERE lower_name = $1', ['made-by-sudo']);
  t.is(owner_id, alice.user.id);
  const refused = await hearth.call('GET', '/user', { auth: alice.bearer, headers: { Sudo: 'bob' } });
  t.is(refused.status, 403);
  t.is(refused.body.message, 'Only administrators allowed to sudo.');
  t.is((await hearth.call('GET', '/user', { auth: root.bearer, headers: { Sudo: 'nobody' } })).status, 404);
});
