import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { basicAuth, cloneDatabase, fastPasswordHash } from '../helpers/hearth.js';
import { freePort, killAll, launch, processRows, processTable, survivors, waitHealthy, within, type Launcher } from '../helpers/processes.js';

const admin = { username: 'ssh-admin', password: 'ssh-admin-pw', email: 'ssh-admin@example.com' };

function sshChild(launcher: Launcher): number | undefined {
  const { descendants } = processTable(launcher.child.pid!);
  return processRows().find((row) => descendants.includes(row.pid) && row.args.includes('api/ssh/server.ts'))?.pid;
}

/** Whether the port takes a TCP connection now. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

test('npm start runs the ssh process: restarted when it dies; on SIGTERM a running fetch finishes, new connections are refused', async (t) => {
  t.timeout(180_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hearth-ssh-process-'));
  chmodSync(dir, 0o755);
  const port = await freePort();
  const sshPort = await freePort();
  const metricsPort = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: await cloneDatabase(),
    PORT: String(port),
    HEARTH_DATA_DIR: dir,
    LOG_LEVEL: 'warn',
    HEARTH__security__PASSWORD_HASH_ALGO: fastPasswordHash,
    HEARTH__server__SSH_LISTEN_PORT: String(sshPort),
    HEARTH__server__SSH_LISTEN_HOST: '127.0.0.1',
    HEARTH__metrics__SSH_PORT: String(metricsPort),
    HEARTH__metrics__TOKEN: 'scrape-token',
    HEARTH_ADMIN_USERNAME: admin.username,
    HEARTH_ADMIN_PASSWORD: admin.password,
    HEARTH_ADMIN_EMAIL: admin.email,
  };
  const running = launch(env);
  t.teardown(() => {
    if (running.child.exitCode === null) killAll([...processTable(running.child.pid!).descendants, running.child.pid!]);
    rmSync(dir, { recursive: true, force: true });
  });
  await waitHealthy(baseUrl, running);

  const auth = basicAuth(admin.username, admin.password);
  const api = (apiPath: string, body: unknown): Promise<Response> =>
    fetch(`${baseUrl}/api/v1${apiPath}`, { method: 'POST', headers: { Authorization: auth, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const keyFile = path.join(dir, 'client-key');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'e2e', '-f', keyFile]);
  t.is((await api('/user/keys', { title: 'e2e', key: readFileSync(`${keyFile}.pub`, 'utf8').trim() })).status, 201);
  t.is((await api('/user/repos', { name: 'tools', auto_init: true })).status, 201);
  const knownHosts = path.join(dir, 'client-known-hosts');
  const hostKey = readFileSync(path.join(dir, 'ssh', 'hearth.ed25519.pub'), 'utf8').trim().split(' ').slice(0, 2).join(' ');
  writeFileSync(knownHosts, `[127.0.0.1]:${sshPort} ${hostKey}\n`);
  const sshArgs = ['-F', '/dev/null', '-i', keyFile, '-o', 'IdentitiesOnly=yes', '-o', 'IdentityAgent=none', '-o', `UserKnownHostsFile=${knownHosts}`, '-o', 'BatchMode=yes', '-p', String(sshPort), 'git@127.0.0.1'];
  const upload = (): { child: ReturnType<typeof spawn>; advertised: Promise<string>; closed: Promise<number> } => {
    const child = spawn('ssh', [...sshArgs, `git-upload-pack '${admin.username}/tools.git'`], { stdio: ['pipe', 'pipe', 'ignore'] });
    let stdout = '';
    const closed = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
    const advertised = new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('latin1');
        if (stdout.endsWith('0000')) resolve(stdout);
      });
      void closed.then((code) => reject(new Error(`ssh ended (${code}): ${stdout}`)));
    });
    return { child, advertised, closed };
  };
  const fetchOnce = async (): Promise<string> => {
    const run = upload();
    const refs = await run.advertised;
    run.child.stdin!.end('0000');
    t.is(await run.closed, 0);
    return refs;
  };
  t.regex(await fetchOnce(), /refs\/heads\/main/);

  // killed: the launcher starts it again (after a second) while web keeps serving
  const first = sshChild(running)!;
  t.truthy(first, 'the ssh process runs under the launcher');
  process.kill(first, 'SIGKILL');
  t.is((await fetch(`${baseUrl}/api/healthz`)).status, 200);
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
    const now = sshChild(running);
    if (now && now !== first && (await accepts(sshPort))) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  t.not(sshChild(running), first, 'a new ssh process');
  t.regex(await fetchOnce(), /refs\/heads\/main/, 'serving again');
  // the new ssh process counts its transfers on [metrics] SSH_PORT, behind the metrics token
  const scrapeUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  t.is((await fetch(scrapeUrl)).status, 401);
  const scraped = await (await fetch(scrapeUrl, { headers: { Authorization: 'Bearer scrape-token' } })).text();
  t.regex(scraped, /^hearth_git_transfers_total\{service="upload-pack",protocol="ssh"\} 1$/m);

  // drained: a fetch in flight finishes after SIGTERM; new connections are refused meanwhile
  const inFlight = upload();
  const refs = await inFlight.advertised;
  const { descendants } = processTable(running.child.pid!);
  running.child.kill('SIGTERM');
  for (const deadline = Date.now() + 20_000; Date.now() < deadline && (await accepts(sshPort)); ) await new Promise((resolve) => setTimeout(resolve, 50));
  t.false(await accepts(sshPort), 'no new connection once stopping');
  t.is(running.child.exitCode, null, 'the launcher waits for the running fetch');
  inFlight.child.stdin!.end('0000');
  t.is(await inFlight.closed, 0, 'the running fetch ends cleanly');
  t.regex(refs, /refs\/heads\/main/);
  t.is(await within(30_000, running.exited), 0, running.output.join(''));
  t.deepEqual(await survivors(descendants), [], 'nothing left running');
});

test('a busy SSH port stops the start with one line, as a busy HTTP port does', async (t) => {
  t.timeout(60_000);
  const busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  t.teardown(() => busy.close());
  const busyPort = (busy.address() as { port: number }).port;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hearth-ssh-busy-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const running = launch({
    ...process.env, DATABASE_URL: await cloneDatabase(), PORT: String(await freePort()), HEARTH_DATA_DIR: dir, LOG_LEVEL: 'warn',
    HEARTH__server__SSH_LISTEN_PORT: String(busyPort), HEARTH__server__SSH_LISTEN_HOST: '127.0.0.1',
  });
  t.is(await within(40_000, running.exited), 1, running.output.join(''));
  t.deepEqual(running.stderr.join('').trim().split('\n'), [
    `hearth: cannot start: [server] SSH_LISTEN_PORT=${busyPort}: another process already listens on this port; stop it or choose another [server] SSH_LISTEN_PORT`,
  ]);
});
