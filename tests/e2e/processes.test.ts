import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { basicAuth } from '../helpers/hearth.js';
import { freePort, launch, processTable, survivors, waitHealthy, within, type Launcher } from '../helpers/processes.js';
import { startSmtp } from '../helpers/smtp.js';

const admin = { username: 'boot-admin', password: 'boot-admin-pw', email: 'boot-admin@example.com' };

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

async function call(baseUrl: string, method: string, apiPath: string, auth?: string, body?: unknown): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {};
  if (auth) headers.Authorization = auth;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${baseUrl}/api/v1${apiPath}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

test('npm start runs the embedded database, web and worker; stops cleanly and keeps the data across a restart', async (t) => {
  t.timeout(300_000);
  const smtp = await startSmtp(t);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'hearth-e2e-'));
  chmodSync(dataDir, 0o755);
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const { DATABASE_URL: _embedded, ...inherited } = process.env;
  const env: NodeJS.ProcessEnv = {
    ...inherited,
    PORT: String(port),
    HEARTH__server__SSH_LISTEN_PORT: String(await freePort()),
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
