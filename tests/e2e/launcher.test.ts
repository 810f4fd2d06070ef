import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { connect, createServer, type Server, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { basicAuth, cloneDatabase, fastPasswordHash } from '../helpers/hearth.js';
import { freePort, killAll, launch, processRows, processTable, root, survivors, waitHealthy, within, type Launcher } from '../helpers/processes.js';
import { startSmtp } from '../helpers/smtp.js';

const admin = { username: 'boot-admin', password: 'boot-admin-pw', email: 'boot-admin@example.com' };

function dataDir(t: ExecutionContext): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hearth-launcher-'));
  chmodSync(dir, 0o755);
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function baseEnv(dir: string, port: number): NodeJS.ProcessEnv {
  const { DATABASE_URL: _unset, ...inherited } = process.env;
  return { ...inherited, PORT: String(port), HEARTH_DATA_DIR: dir, LOG_LEVEL: 'warn', HEARTH__security__PASSWORD_HASH_ALGO: fastPasswordHash };
}

/** Leaves nothing behind if an assertion fails half-way. */
function cleanUp(t: ExecutionContext, launcher: () => Launcher | undefined): void {
  t.teardown(() => {
    const running = launcher();
    if (running && running.child.exitCode === null) killAll([...processTable(running.child.pid!).descendants, running.child.pid!]);
  });
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
}

interface Failure {
  name: string;
  env: NodeJS.ProcessEnv;
  expected: RegExp[];
}

test('a start that cannot succeed prints one line naming the cause, exits 1 and leaves nothing running', async (t) => {
  t.timeout(120_000);
  const busy = createServer();
  const busyPort = await listen(busy);
  const http = createHttpServer((_request, response) => response.end('hello'));
  const httpPort = await listen(http as unknown as Server);
  t.teardown(() => {
    busy.close();
    http.close();
  });
  const withIni = (ini: string): NodeJS.ProcessEnv => {
    const dir = dataDir(t);
    writeFileSync(path.join(dir, 'app.ini'), ini);
    return baseEnv(dir, 0);
  };
  const databaseUrl = await cloneDatabase();
  const failures: Failure[] = [
    {
      name: 'a busy port (with unknown settings warned about)',
      env: { ...withIni('[server]\nHTTP_PORT = 3000\n[database]\nDB_TYPE = postgres\n[webhook]\nDELIVER_TIMOUT = 10\n'), PORT: String(busyPort) },
      expected: [
        /^hearth: warning: unknown key \[server\] HTTP_PORT .*PORT environment variable/m,
        /^hearth: warning: unknown section \[database\] .*DATABASE_URL/m,
        /^hearth: warning: unknown key \[webhook\] DELIVER_TIMOUT .*did you mean DELIVER_TIMEOUT\?/m,
        new RegExp(`^hearth: cannot start: PORT=${busyPort}: another process already listens on this port`, 'm'),
      ],
    },
    {
      name: 'an unreachable database',
      env: { ...baseEnv(dataDir(t), await freePort()), DATABASE_URL: 'postgres://nope@127.0.0.1:1/x' },
      expected: [/^hearth: cannot start: DATABASE_URL: nothing accepts connections at 127\.0\.0\.1:1 \(connection refused\)$/m],
    },
    {
      name: 'a database URL naming an HTTP server',
      env: { ...baseEnv(dataDir(t), await freePort()), DATABASE_URL: `postgres://nope@127.0.0.1:${httpPort}/x` },
      expected: [new RegExp(`^hearth: cannot start: DATABASE_URL: 127\\.0\\.0\\.1:${httpPort} (does not answer as PostgreSQL|closed the connection)`, 'm')],
    },
    {
      name: 'a reserved boot administrator name',
      env: { ...baseEnv(dataDir(t), await freePort()), HEARTH_ADMIN_USERNAME: 'admin', HEARTH_ADMIN_PASSWORD: 'a-long-password', HEARTH_ADMIN_EMAIL: 'admin@example.com' },
      expected: [/^hearth: cannot start: HEARTH_ADMIN_USERNAME=admin: the boot administrator is refused: name is reserved \[name: admin\]$/m],
    },
    {
      name: 'values of the wrong type in app.ini and the environment',
      env: { ...withIni('[webhook]\nDELIVER_TIMEOUT = ten\n[repository]\nMAX_CREATION_LIMIT = -5\n'), HEARTH__actions__ENABLED: 'ture', PORT: String(await freePort()) },
      expected: [
        /^hearth: cannot start: \[webhook\] DELIVER_TIMEOUT = "ten" \(.*app\.ini\): expected a whole number of seconds/m,
        /^hearth: cannot start: \[actions\] ENABLED = "ture" \(HEARTH__actions__ENABLED\): expected true or false/m,
        /^hearth: cannot start: \[repository\] MAX_CREATION_LIMIT = "-5" /m,
      ],
    },
    {
      name: 'a worker that refuses its settings after the web process started',
      env: { ...baseEnv(dataDir(t), await freePort()), DATABASE_URL: databaseUrl, HEARTH_ACTORS: 'no-such-actor' },
      expected: [/^hearth: cannot start: HEARTH_ACTORS names unknown actors: no-such-actor$/m],
    },
  ];
  const launchers = failures.map((failure) => ({ failure, launcher: launch(failure.env) }));
  for (const { launcher } of launchers) cleanUp(t, () => launcher);
  for (const { failure, launcher } of launchers) {
    const code = await within(60_000, launcher.exited);
    const stderr = launcher.stderr.join('');
    t.is(code, 1, `${failure.name}:\n${launcher.output.join('')}`);
    for (const pattern of failure.expected) t.regex(stderr, pattern, failure.name);
    const lines = stderr.trim().split('\n');
    t.deepEqual(lines.filter((line) => !line.startsWith('hearth: ')), [], `${failure.name}: only hearth's own lines, no stack or driver object`);
    t.is(lines.filter((line) => line.startsWith('hearth: cannot start')).length, failure.expected.filter((p) => /cannot start/.test(p.source)).length);
    const dir = failure.env.HEARTH_DATA_DIR!;
    t.deepEqual(processRows().filter((row) => row.args.includes(dir) || row.ppid === launcher.child.pid), [], `${failure.name}: nothing left running`);
  }
});

/** An SMTP address that holds connections (a job hangs in flight) until told to pass them to the real listener. */
async function smtpTarpit(t: ExecutionContext, realPort: number): Promise<{ port: number; connected: Promise<void>; forward(): void }> {
  let forwarding = false;
  const held: Socket[] = [];
  let onConnect: () => void = () => undefined;
  const connected = new Promise<void>((resolve) => (onConnect = resolve));
  const server = createServer((socket) => {
    if (!forwarding) {
      held.push(socket);
      socket.on('error', () => undefined);
      onConnect();
      return;
    }
    const upstream = connect(realPort, '127.0.0.1');
    socket.pipe(upstream).pipe(socket);
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
  });
  const port = await listen(server);
  t.teardown(() => {
    held.forEach((socket) => socket.destroy());
    server.close();
  });
  return { port, connected, forward: () => (forwarding = true) };
}

function childOf(launcher: Launcher, script: string): { pid: number; pgid: number } | undefined {
  const { descendants } = processTable(launcher.child.pid!);
  return processRows().find((row) => descendants.includes(row.pid) && row.args.includes(script));
}

test('children run in their own process groups: Ctrl-C stops everything through the launcher; a killed worker is restarted and its job runs again; a killed launcher takes its children along; a stale lock file is recovered', async (t) => {
  t.timeout(400_000);
  const smtp = await startSmtp(t);
  const tarpit = await smtpTarpit(t, smtp.port);
  const dir = dataDir(t);
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...baseEnv(dir, port),
    HEARTH_ADMIN_USERNAME: admin.username,
    HEARTH_ADMIN_PASSWORD: admin.password,
    HEARTH_ADMIN_EMAIL: admin.email,
    HEARTH__mailer__ENABLED: 'true',
    HEARTH__mailer__SMTP_ADDR: '127.0.0.1',
    HEARTH__mailer__SMTP_PORT: String(tarpit.port),
  };
  let running: Launcher | undefined;
  cleanUp(t, () => running);
  const began = Date.now();
  const mark = (what: string): void => t.log(`${((Date.now() - began) / 1000).toFixed(1)} s: ${what}`);

  // 1. a terminal's foreground job: the launcher leads the group; its children are elsewhere
  running = launch(env, { group: true });
  await waitHealthy(baseUrl, running);
  const launcherGroup = running.child.pid!;
  for (const script of ['database.ts', 'api/server.ts', 'workers/worker.ts', 'bin/postgres']) {
    const row = childOf(running, script);
    t.truthy(row, `${script} runs under the launcher`);
    t.not(row?.pgid, launcherGroup, `${script} is not in the terminal's process group`);
  }

  mark('started');
  // 2. a job in flight when its worker is killed runs again within 30 s; the web process keeps serving meanwhile
  const worker = childOf(running, 'workers/worker.ts')!;
  const created = await fetch(`${baseUrl}/api/v1/admin/users`, {
    method: 'POST',
    headers: { Authorization: basicAuth(admin.username, admin.password), 'Content-Type': 'application/json' },
    body: JSON.stringify({ username: 'erin', email: 'erin@example.com', password: 'erin-password', send_notify: true }),
  });
  t.is(created.status, 201);
  await within(20_000, tarpit.connected);
  process.kill(worker.pid, 'SIGKILL');
  const killedAt = Date.now();
  tarpit.forward();
  t.is((await fetch(`${baseUrl}/api/healthz`)).status, 200, 'the web process still answers');
  const welcome = await smtp.waitFor((mail) => mail.to.includes('erin@example.com'), 30_000);
  t.regex(welcome.raw, /Welcome to Hearth, erin/);
  t.true(Date.now() - killedAt < 30_000, 'the lost job ran again within 30 s');
  const restarted = childOf(running, 'workers/worker.ts');
  t.truthy(restarted, 'a new worker process runs');
  t.not(restarted?.pid, worker.pid);

  mark('lost job ran again');
  // 3. Ctrl-C: SIGINT to the whole foreground group reaches the launcher alone, which stops everything
  let { descendants } = processTable(running.child.pid!);
  process.kill(-launcherGroup, 'SIGINT');
  t.is(await within(40_000, running.exited), 0, running.output.join(''));
  t.deepEqual(await survivors(descendants), [], 'no process left after Ctrl-C');

  mark('stopped by Ctrl-C');
  // 4. kill -9 of the launcher: the children notice and stop
  running = launch(env, { group: true });
  await waitHealthy(baseUrl, running);
  descendants = processTable(running.child.pid!).descendants;
  process.kill(running.child.pid!, 'SIGKILL');
  t.deepEqual(await survivors(descendants, 40_000), [], 'the children of a killed launcher stop');

  mark('children of the killed launcher gone');
  // 5. a lock file naming a live process that is not PostgreSQL (a pid come round again) does not block the start
  const pidFile = path.join(dir, 'db', 'postmaster.pid');
  writeFileSync(pidFile, `${process.pid}\n${path.join(dir, 'db')}\n0\n5432\n`);
  running = launch(env, { group: true });
  await waitHealthy(baseUrl, running);
  t.not(readFileSync(pidFile, 'utf8').split('\n')[0], String(process.pid));
  const erin = await fetch(`${baseUrl}/api/v1/users/erin`);
  t.is(erin.status, 200, 'the data survived every stop');
  descendants = processTable(running.child.pid!).descendants;
  running.child.kill('SIGTERM');
  t.is(await within(40_000, running.exited), 0, running.output.join(''));
  t.deepEqual(await survivors(descendants), []);
  mark('recovered and stopped');
});

function npm(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('npm', args, { cwd: root, env }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

test('npm run -s hearth -- ... --raw prints only the token; SIGTERM to npm start stops everything', async (t) => {
  t.timeout(300_000);
  const databaseUrl = await cloneDatabase();
  const dir = dataDir(t);
  const port = await freePort();
  const env = { ...baseEnv(dir, port), DATABASE_URL: databaseUrl, HEARTH__security__SECRET_KEY: 'launcher-test' };
  const created = await npm(['run', '-s', 'hearth', '--', 'admin', 'user', 'create', '--username', 'tess', '--password', 'tess-password', '--email', 'tess@example.com'], env);
  t.is(created.code, 0, created.stderr);
  const token = await npm(['run', '-s', 'hearth', '--', 'admin', 'user', 'generate-access-token', '--username', 'tess', '--raw'], env);
  t.is(token.code, 0, token.stderr);
  t.regex(token.stdout, /^[0-9a-f]{40}\n$/, 'stdout is the token alone');

  let running: Launcher | undefined = launch(env, { command: ['npm', 'start'] });
  cleanUp(t, () => running);
  await waitHealthy(`http://127.0.0.1:${port}`, running, 240_000);
  const me = await fetch(`http://127.0.0.1:${port}/api/v1/user`, { headers: { Authorization: `token ${token.stdout.trim()}` } });
  t.is(me.status, 200);
  const { descendants } = processTable(running.child.pid!);
  t.true(descendants.length >= 3, 'launcher, web and worker');
  running.child.kill('SIGTERM');
  await within(40_000, running.exited);
  t.deepEqual(await survivors(descendants, 10_000), [], 'SIGTERM to npm reaches the launcher, which stops web and worker');
  running = undefined;
});
