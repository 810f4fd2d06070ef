import { execFile, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { Secret, TOTP } from 'otpauth';
import pg from 'pg';
import { basicAuth, cloneDatabase, fastPasswordHash } from '../helpers/hearth.js';
import { freePort, root } from '../helpers/processes.js';

const secretKey = 'cli-test-secret-key';

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

interface Site {
  databaseUrl: string;
  env: NodeJS.ProcessEnv;
  hearth(...args: string[]): Promise<Outcome>;
  sql<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
}

/** A cloned database and a data directory, shared by the command line and the web process of one test. */
async function prepareSite(t: ExecutionContext): Promise<Site> {
  const databaseUrl = await cloneDatabase();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'hearth-cli-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    HEARTH_DATA_DIR: dataDir,
    HEARTH__security__SECRET_KEY: secretKey,
    HEARTH__security__PASSWORD_HASH_ALGO: fastPasswordHash,
    LOG_LEVEL: 'warn',
  };
  return {
    databaseUrl,
    env,
    hearth: (...args) => runCli(env, args),
    async sql(text, params) {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        return (await client.query(text, params)).rows;
      } finally {
        await client.end();
      }
    },
  };
}

function runCli(env: NodeJS.ProcessEnv, args: string[]): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'workers/cli.ts', ...args], { cwd: root, env }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

type Call = (apiPath: string, headers?: Record<string, string>) => Promise<{ status: number; body: any }>;

/** The real web process on the site's database, so what the command line wrote is seen through the API. */
async function startWeb(t: ExecutionContext, site: Site): Promise<Call> {
  const port = await freePort();
  const web = spawn(process.execPath, ['--import', 'tsx', 'api/server.ts'], {
    cwd: root,
    env: { ...site.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  t.teardown(() => {
    web.kill('SIGKILL');
  });
  const call: Call = async (apiPath, headers = {}) => {
    const response = await fetch(`http://127.0.0.1:${port}${apiPath}`, { headers });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
    if (web.exitCode !== null) throw new Error(`the web process exited with ${web.exitCode}`);
    const ready = await call('/api/healthz').then((answer) => answer.status === 200, () => false);
    if (ready) return call;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the web process did not answer /api/healthz in time');
}

test('admin user create, list and change-password', async (t) => {
  const site = await prepareSite(t);
  const created = await site.hearth('admin', 'user', 'create', '--username', 'alice', '--password', 'alice-pw-1', '--email', 'alice@example.com', '--admin');
  t.is(created.code, 0, created.stderr);
  t.is(created.stdout.trim(), "New user 'alice' has been successfully created!");
  const bob = await site.hearth('admin', 'user', 'create', '--username', 'bob', '--password', 'bob-pw-12', '--email', 'bob@example.com', '--must-change-password');
  t.is(bob.code, 0, bob.stderr);
  const rows = await site.sql<{ name: string; is_admin: boolean; must_change_password: boolean }>(
    'SELECT name, is_admin, must_change_password FROM "user" ORDER BY id',
  );
  t.deepEqual(rows, [
    { name: 'alice', is_admin: true, must_change_password: false },
    { name: 'bob', is_admin: false, must_change_password: true },
  ]);

  const again = await site.hearth('admin', 'user', 'create', '--username', 'alice', '--password', 'alice-pw-1', '--email', 'other@example.com');
  t.is(again.code, 1);
  t.is(again.stderr.trim(), 'user already exists [name: alice]');

  const list = await site.hearth('admin', 'user', 'list');
  t.is(list.code, 0, list.stderr);
  const ids = await site.sql<{ id: number }>('SELECT id FROM "user" ORDER BY id');
  const table = list.stdout.trim().split('\n').map((line) => line.split(/\s+/));
  t.deepEqual(table, [
    ['ID', 'Name', 'Email', 'Admin'],
    [String(ids[0].id), 'alice', 'alice@example.com', 'true'],
    [String(ids[1].id), 'bob', 'bob@example.com', 'false'],
  ]);
  const admins = await site.hearth('admin', 'user', 'list', '--admin');
  t.deepEqual(admins.stdout.trim().split('\n').slice(1).map((line) => line.split(/\s+/)[1]), ['alice']);

  const changed = await site.hearth('admin', 'user', 'change-password', '--username', 'bob', '--password', 'bob-new-pw');
  t.is(changed.code, 0, changed.stderr);
  t.is(changed.stdout.trim(), "bob's password has been successfully updated!");
  const tooShort = await site.hearth('admin', 'user', 'change-password', '--username', 'bob', '--password', 'short');
  t.is(tooShort.code, 1);
  t.regex(tooShort.stderr, /password is too short/);

  const call = await startWeb(t, site);
  t.is((await call('/api/v1/user', { Authorization: basicAuth('bob', 'bob-pw-12') })).status, 401);
  const me = await call('/api/v1/user', { Authorization: basicAuth('bob', 'bob-new-pw') });
  t.is(me.status, 200);
  t.is(me.body.login, 'bob');
  const admin = await call('/api/v1/user', { Authorization: basicAuth('alice', 'alice-pw-1') });
  t.true(admin.body.is_admin);
});

test('admin user generate-access-token and enroll-totp work against the API', async (t) => {
  const site = await prepareSite(t);
  t.is((await site.hearth('admin', 'user', 'create', '--username', 'carol', '--password', 'carol-pw-1', '--email', 'carol@example.com')).code, 0);

  const generated = await site.hearth('admin', 'user', 'generate-access-token', '--username', 'carol', '--token-name', 'ci', '--scopes', 'read:user', '--raw');
  t.is(generated.code, 0, generated.stderr);
  const token = generated.stdout.trim();
  t.regex(token, /^[0-9a-f]{40}$/);
  t.deepEqual(await site.sql('SELECT name, scope FROM access_token'), [{ name: 'ci', scope: 'read:user' }]);
  const sameName = await site.hearth('admin', 'user', 'generate-access-token', '--username', 'carol', '--token-name', 'ci');
  t.is(sameName.code, 1);
  t.regex(sameName.stderr, /access token name has been used already/);
  const labelled = await site.hearth('admin', 'user', 'generate-access-token', '--username', 'carol');
  t.regex(labelled.stdout, /^Access token was successfully created: [0-9a-f]{40}$/m);

  const enrolled = await site.hearth('admin', 'user', 'enroll-totp', '--username', 'carol');
  t.is(enrolled.code, 0, enrolled.stderr);
  t.regex(enrolled.stdout, /^URI: +otpauth:\/\/totp\/Hearth:carol\?/m);
  const secret = /^Secret: +([A-Z2-7]+)$/m.exec(enrolled.stdout)?.[1];
  if (!secret) return t.fail(`no secret in: ${enrolled.stdout}`);
  const twice = await site.hearth('admin', 'user', 'enroll-totp', '--username', 'carol');
  t.is(twice.code, 1);
  t.regex(twice.stderr, /already has two-factor authentication enrolled/);

  const call = await startWeb(t, site);
  const byToken = await call('/api/v1/user', { Authorization: `token ${token}` });
  t.is(byToken.status, 200);
  t.is(byToken.body.login, 'carol');
  const password = basicAuth('carol', 'carol-pw-1');
  t.is((await call('/api/v1/user', { Authorization: password })).status, 401);
  const code = new TOTP({ secret: Secret.fromBase32(secret) }).generate();
  t.is((await call('/api/v1/user', { Authorization: password, 'X-Gitea-OTP': code })).status, 200);
});

test('mistakes are reported with the reason and a non-zero exit', async (t) => {
  const site = await prepareSite(t);
  const missingUser = await site.hearth('admin', 'user', 'change-password', '--username', 'nobody', '--password', 'whatever-1');
  t.is(missingUser.code, 1);
  t.is(missingUser.stderr.trim(), 'user nobody does not exist');
  const unknown = await site.hearth('admin', 'user', 'frobnicate');
  t.is(unknown.code, 2);
  t.regex(unknown.stderr, /unknown command: admin user frobnicate[\s\S]*Usage:/);
  const missingOption = await site.hearth('admin', 'user', 'create', '--username', 'dave', '--password', 'dave-pw-12');
  t.is(missingOption.code, 2);
  t.regex(missingOption.stderr, /--email is required/);
  t.is((await site.sql('SELECT id FROM "user"')).length, 0);
  const help = await site.hearth('--help');
  t.is(help.code, 0);
  t.regex(help.stdout, /^  generate-access-token --username/m);
});

test('an embedded database already running under npm start is reported, with DATABASE_URL as the way out', async (t) => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'hearth-cli-busy-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  chmodSync(dataDir, 0o755);
  mkdirSync(path.join(dataDir, 'db'));
  // What a running postmaster leaves: its (live) pid, data directory, start time and port. The process must look
  // like a postgres: a lock file naming any other live program is stale (its pid came round again) and is removed.
  const postmaster = spawn('sleep', ['120'], { argv0: 'postgres', stdio: 'ignore' });
  t.teardown(() => {
    postmaster.kill('SIGKILL');
  });
  writeFileSync(path.join(dataDir, 'db', 'postmaster.pid'), `${postmaster.pid}\n${path.join(dataDir, 'db')}\n1700000000\n54329\n\n127.0.0.1\n`);
  const { DATABASE_URL: _unset, ...env } = process.env;
  const outcome = await runCli({ ...env, HEARTH_DATA_DIR: dataDir }, ['admin', 'user', 'list']);
  t.is(outcome.code, 1);
  t.regex(outcome.stderr, /already running \(pid \d+, port 54329\)/);
  t.regex(outcome.stderr, /DATABASE_URL=postgres:\/\/hearth:hearth@127\.0\.0\.1:54329\/hearth/);
});

test('admin auth add-ldap adds an LDAP source with Gitea\'s flags, the bind password sealed; mistakes are refused', async (t) => {
  const site = await prepareSite(t);
  const added = await site.hearth('admin', 'auth', 'add-ldap', '--name', 'corp', '--host', 'ldap.example.org', '--port', '636', '--security-protocol', 'LDAPS',
    '--bind-dn', 'cn=reader,dc=example,dc=org', '--bind-password', 'reader-secret', '--user-search-base', 'ou=people,dc=example,dc=org',
    '--user-filter', '(uid=%s)', '--admin-filter', '(employeeType=admin)', '--username-attribute', 'uid', '--enable-groups',
    '--group-search-base', 'ou=groups,dc=example,dc=org', '--group-member-attribute', 'member', '--group-user-attribute', 'dn',
    '--group-team-map', '{"cn=devs,ou=groups,dc=example,dc=org":{"acme":["devs"]}}', '--group-team-map-removal');
  t.is(added.code, 0, added.stderr);
  t.regex(added.stdout, /Login source 'corp' \(id \d+\) has been successfully added/);
  const [row] = await site.sql<{ type: string; is_active: boolean; cfg: Record<string, unknown> }>('SELECT type, is_active, cfg FROM login_source');
  t.is(row.type, 'ldap');
  t.true(row.is_active);
  t.like(row.cfg, { Host: 'ldap.example.org', Port: 636, SecurityProtocol: 1, Filter: '(uid=%s)', GroupsEnabled: true, UserUID: 'dn', GroupTeamMapRemoval: true });
  t.false(JSON.stringify(row.cfg).includes('reader-secret'));

  const badProtocol = await site.hearth('admin', 'auth', 'add-ldap', '--name', 'x', '--host', 'h', '--port', '389', '--user-search-base', 'b', '--user-filter', '(uid=%s)', '--security-protocol', 'tls');
  t.is(badProtocol.code, 2);
  const badMap = await site.hearth('admin', 'auth', 'add-ldap', '--name', 'y', '--host', 'h', '--port', '389', '--user-search-base', 'b', '--user-filter', '(uid=%s)', '--group-team-map', '["x"]');
  t.is(badMap.code, 1);
  t.regex(badMap.stderr, /GroupTeamMap/);
  t.is((await site.sql('SELECT 1 FROM login_source')).length, 1);
});
