import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test, { type ExecutionContext } from 'ava';
import { basicAuth } from '../helpers/hearth.js';
import { startSmtp } from '../helpers/smtp.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const admin = { username: 'boot-admin', password: 'boot-admin-pw', email: 'boot-admin@example.com' };

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

interface Launcher {
  child: ChildProcess;
  output: string[];
  exited: Promise<number | null>;
}

/** `npm start` without the build step: the launcher with its embedded database, web and worker processes. */
function launch(env: NodeJS.ProcessEnv): Launcher {
  const child = spawn(process.execPath, ['--import', 'tsx', 'workers/start.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  child.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output, exited };
}

/** Every process as `pid args`, and the pids descending from `ancestor`. */
function processTable(ancestor: number): { lines: string[]; descendants: number[] } {
  const lines = execFileSync('ps', ['-eo', 'pid,ppid,args'], { encoding: 'utf8' }).trim().split('\n').slice(1);
  const rows = lines.map((line) => {
    const [pid, ppid] = line.trim().split(/\s+/).map(Number);
    return { pid, ppid };
  });
  const descendants: number[] = [];
  for (let frontier = [ancestor]; frontier.length > 0; ) {
    frontier = rows.filter((row) => frontier.includes(row.ppid)).map((row) => row.pid);
    descendants.push(...frontier);
  }
  return { lines, descendants };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function waitHealthy(baseUrl: string, launcher: Launcher): Promise<void> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
    if (launcher.child.exitCode !== null) throw new Error(`the launcher exited with ${launcher.child.exitCode}:\n${launcher.output.join('')}`);
    const status = await fetch(`${baseUrl}/api/healthz`).then((response) => response.status, () => 0);
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('no 200 from /api/healthz within 60 s');
}

/** SIGTERM, then: exit code 0 within 20 s, and no process of the launcher or of the data directory left behind. */
async function stopAndCheck(t: ExecutionContext, launcher: Launcher, dataDir: string): Promise<void> {
  const { lines, descendants } = processTable(launcher.child.pid!);
  t.true(descendants.length >= 3, 'postgres, web and worker run under the launcher');
  launcher.child.kill('SIGTERM');
  t.is(await within(20_000, launcher.exited), 0, launcher.output.join(''));
  const left = await survivors(descendants);
  t.deepEqual(lines.filter((line) => left.includes(Number(line.trim().split(/\s+/)[0]))), [], 'no orphan processes');
  t.deepEqual(processTable(process.pid).lines.filter((line) => line.includes(dataDir)), [], 'no process on the data directory');
}

async function within<T>(ms: number, promise: Promise<T>): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The pids still alive after a short grace, for a helper (such as tsx's esbuild service) that exits on its parent's EOF. */
async function survivors(pids: number[]): Promise<number[]> {
  for (const deadline = Date.now() + 2_000; Date.now() < deadline; ) {
    if (!pids.some(isAlive)) return [];
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return pids.filter(isAlive);
}

async function call(baseUrl: string, method: string, apiPath: string, auth?: string, body?: unknown): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {};
  if (auth) headers.Authorization = auth;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${baseUrl}/api/v1${apiPath}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

test('npm start runs the embedded database, web and worker; stops cleanly and keeps the data across a restart', async (t) => {
  t.timeout(120_000);
  const smtp = await startSmtp(t);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'hearth-e2e-'));
  chmodSync(dataDir, 0o755);
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const { DATABASE_URL: _embedded, ...inherited } = process.env;
  const env: NodeJS.ProcessEnv = {
    ...inherited,
    PORT: String(port),
    HEARTH_DATA_DIR: dataDir,
    HEARTH_ADMIN_USERNAME: admin.username,
    HEARTH_ADMIN_PASSWORD: admin.password,
    HEARTH_ADMIN_EMAIL: admin.email,
    HEARTH__mailer__ENABLED: 'true',
    HEARTH__mailer__SMTP_ADDR: '127.0.0.1',
    HEARTH__mailer__SMTP_PORT: String(smtp.port),
    LOG_LEVEL: 'warn',
  };
  let running: Launcher | undefined;
  t.teardown(() => {
    if (running && running.child.exitCode === null) {
      for (const pid of [...processTable(running.child.pid!).descendants, running.child.pid!]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  running = launch(env);
  await waitHealthy(baseUrl, running);
  const adminAuth = basicAuth(admin.username, admin.password);
  const me = await call(baseUrl, 'GET', '/user', adminAuth);
  t.is(me.status, 200);
  t.is(me.body.login, admin.username);
  t.true(me.body.is_admin);

  const newUser = { username: 'erin', email: 'erin@example.com', password: 'erin-password', send_notify: true };
  t.is((await call(baseUrl, 'POST', '/admin/users', adminAuth, newUser)).status, 201);
  const welcome = await smtp.waitFor((mail) => mail.to.includes('erin@example.com'), 20_000);
  t.regex(welcome.raw, /Welcome to Hearth, erin/);

  const token = await call(baseUrl, 'POST', `/users/${admin.username}/tokens`, adminAuth, { name: 'e2e', scopes: ['all'] });
  t.is(token.status, 201);
  const byToken = await call(baseUrl, 'GET', '/user', `token ${token.body.sha1}`);
  t.is(byToken.status, 200);
  t.is(byToken.body.login, admin.username);
  await stopAndCheck(t, running, dataDir);

  running = launch(env);
  await waitHealthy(baseUrl, running);
  const erin = await call(baseUrl, 'GET', '/users/erin');
  t.is(erin.status, 200);
  t.is(erin.body.login, 'erin');
  t.is((await call(baseUrl, 'GET', '/user', `token ${token.body.sha1}`)).status, 200);
  await stopAndCheck(t, running, dataDir);
});
