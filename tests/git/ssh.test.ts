import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Writable } from 'node:stream';
import test, { type ExecutionContext } from 'ava';
import { pino } from 'pino';
import ssh2 from 'ssh2';
import { createSshServer, type GitTransfer, type SshServer } from '../../api/ssh/ssh-server.js';
import { freePort } from '../../db/process/startup.js';
import { build } from '../helpers/build.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';
import { gitOnDisk, refOnServer, scratch, type DiskRun } from './git-client.js';

interface SshWorld {
  hearth: TestHearth;
  server: SshServer;
  port: number;
  home: string;
  /** The server's log lines, parsed. */
  logs: Array<Record<string, any>>;
  transfers: GitTransfer[];
  /** OpenSSH's own arguments for this key, up to the destination `git@127.0.0.1`. */
  sshArgs(key: string): string[];
  /** git with OpenSSH using this private key, known_hosts pinned to the server's host key. */
  git(key: string, args: string[], cwd?: string): Promise<DiskRun>;
  /** A new ed25519 key: the private key's path and the public key's text. */
  newKey(name: string): { file: string; pub: string };
}

async function sshWorld(t: ExecutionContext, settings: Record<string, string> = {}): Promise<SshWorld> {
  const port = await freePort();
  const hearth = await startHearth(t, { HEARTH__server__SSH_LISTEN_PORT: String(port), HEARTH__server__SSH_LISTEN_HOST: '127.0.0.1', HEARTH__server__SSH_DOMAIN: '127.0.0.1', ...settings });
  const logs: Array<Record<string, any>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) logs.push(JSON.parse(line) as Record<string, any>);
      done();
    },
  });
  const transfers: GitTransfer[] = [];
  const server = createSshServer({ ...hearth.deps, log: pino({ level: 'info' }, sink) }, { onTransfer: (transfer) => transfers.push(transfer) });
  await server.listen();
  t.teardown(() => server.drain());
  const home = scratch(t);
  const hostKey = readFileSync(`${hearth.config.ssh.hostKeys[0]}.pub`, 'utf8').trim().split(' ').slice(0, 2).join(' ');
  const knownHosts = path.join(home, 'known_hosts');
  writeFileSync(knownHosts, `[127.0.0.1]:${port} ${hostKey}\n`);
  return {
    hearth, server, port, home, logs, transfers,
    sshArgs: (key) => ['-F', '/dev/null', '-i', key, '-o', 'IdentitiesOnly=yes', '-o', 'IdentityAgent=none', '-o', `UserKnownHostsFile=${knownHosts}`, '-o', 'BatchMode=yes', '-p', String(port), 'git@127.0.0.1'],
    git: (key, args, cwd = home) => gitOnDisk(args, cwd, {
      HOME: home,
      GIT_AUTHOR_NAME: 'Tester', GIT_AUTHOR_EMAIL: 'tester@example.com', GIT_COMMITTER_NAME: 'Tester', GIT_COMMITTER_EMAIL: 'tester@example.com',
      GIT_SSH_COMMAND: `ssh -F /dev/null -i ${key} -o IdentitiesOnly=yes -o IdentityAgent=none -o UserKnownHostsFile=${knownHosts} -o StrictHostKeyChecking=yes -o BatchMode=yes`,
    }),
    newKey: (name) => {
      const file = path.join(home, name);
      execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', file]);
      return { file, pub: readFileSync(`${file}.pub`, 'utf8').trim() };
    },
  };
}

const url = (w: SshWorld, repoPath: string): string => `ssh://git@127.0.0.1:${w.port}/${repoPath}`;

/** OpenSSH run asynchronously (the server runs in this process: the client must not block it). */
function ssh(w: SshWorld, key: string, extra: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('ssh', [...w.sshArgs(key), ...extra], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code: code ?? -1, stderr }));
  });
}

/**
 * A running fetch held open: upload-pack over OpenSSH has sent its ref advertisement and waits for the client's wants.
 * `finish` sends the flush a client with nothing to fetch sends, and resolves with ssh's exit status and what it read.
 */
async function heldFetch(w: SshWorld, key: string, repoPath: string): Promise<{ finish(): Promise<{ code: number; stdout: string }> }> {
  const child = spawn('ssh', [...w.sshArgs(key), `git-upload-pack '${repoPath}'`], { stdio: ['pipe', 'pipe', 'ignore'] });
  let stdout = '';
  const closed = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('latin1');
      if (stdout.endsWith('0000')) resolve();
    });
    void closed.then((code) => reject(new Error(`ssh ended (${code}) before the advertisement: ${stdout}`)));
  });
  return {
    finish: async () => {
      child.stdin.end('0000');
      return { code: await closed, stdout };
    },
  };
}

/** A raw TCP connection that never speaks SSH: resolves with how long the server kept it open. */
function silentSocket(port: number): Promise<number> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    // read what the server says (its SSH banner), so its closing is seen
    socket.resume();
    socket.on('close', () => resolve(Date.now() - started));
  });
}

/** An exec of any bytes (OpenSSH cannot send a NUL) through the ssh2 client: the exit status and standard error. */
function rawExec(w: SshWorld, key: string, command: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const client = new ssh2.Client();
    client.on('error', reject);
    client.on('ready', () => {
      client.exec(command, (error, channel) => {
        if (error) return reject(error);
        let stderr = '';
        let code: number | null = null;
        channel.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        channel.on('exit', (status: number) => (code = status));
        channel.on('close', () => {
          client.end();
          resolve({ code, stderr });
        });
        channel.resume();
      });
    });
    client.connect({ host: '127.0.0.1', port: w.port, username: 'git', privateKey: readFileSync(key), hostVerifier: () => true });
  });
}

test('clone, fetch and push over SSH with a user key; protocol v2; protection refuses with the HTTP message; ssh_url', async (t) => {
  const w = await sshWorld(t);
  const alice = await w.hearth.createUser('alice');
  await build.repo(w.hearth, alice, { name: 'tools', autoInit: true });
  const key = w.newKey('alice-key');
  t.is((await w.hearth.call('POST', '/user/keys', { auth: alice.basic, body: { title: 'laptop', key: key.pub } })).status, 201);

  const shown = await w.hearth.call('GET', '/repos/alice/tools', { auth: alice.basic });
  t.is(shown.body.ssh_url, `ssh://git@127.0.0.1:${w.port}/alice/tools.git`);

  const cloned = await w.git(key.file, ['clone', '--quiet', shown.body.ssh_url, 'tools']);
  t.is(cloned.code, 0, cloned.stderr);
  const dir = path.join(w.home, 'tools');
  writeFileSync(path.join(dir, 'a.txt'), 'a\n');
  t.is((await w.git(key.file, ['add', 'a.txt'], dir)).code, 0);
  t.is((await w.git(key.file, ['commit', '--quiet', '-m', 'a'], dir)).code, 0);
  const local = (await w.git(key.file, ['rev-parse', 'HEAD'], dir)).stdout.toString().trim();
  const pushed = await w.git(key.file, ['push', 'origin', 'main'], dir);
  t.is(pushed.code, 0, pushed.stderr);
  t.is(await refOnServer(w.hearth, 'alice', 'tools', 'refs/heads/main'), local);
  const [job] = await w.hearth.deps.db.query<{ data: { updates: { ref: string; newSha: string }[] } }>(
    "SELECT data FROM pgboss.job WHERE name = 'branch-sync' ORDER BY created_on DESC LIMIT 1",
  );
  t.deepEqual(job.data.updates.map((u) => [u.ref, u.newSha]), [['refs/heads/main', local]], 'the push is recorded as over HTTP');

  for (const version of ['0', '2']) {
    const other = `v${version}`;
    const run = await w.git(key.file, ['-c', `protocol.version=${version}`, 'clone', '--quiet', url(w, 'alice/tools'), other]);
    t.is(run.code, 0, run.stderr);
    t.is((await w.git(key.file, ['rev-parse', 'HEAD'], path.join(w.home, other))).stdout.toString().trim(), local);
  }
  const fetched = await w.git(key.file, ['fetch', '--quiet', 'origin'], dir);
  t.is(fetched.code, 0, fetched.stderr);

  // one log line per command, and one transfer report shaped as git over HTTP's, never key material
  const fingerprint = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${key.file}.pub`]).toString().split(' ')[1];
  const sessions = w.logs.filter((line) => line.msg === 'ssh session');
  t.is(sessions.length, 5, 'clone, push, two clones, fetch');
  t.like(sessions[0], { fingerprint, user: 'alice', repo: 'alice/tools.git', command: 'git-upload-pack', exit: 0 });
  t.like(sessions[1], { fingerprint, user: 'alice', repo: 'alice/tools.git', command: 'git-receive-pack', exit: 0 });
  for (const line of sessions) t.true(line.bytesIn > 0 && line.bytesOut > 0 && typeof line.durationMs === 'number', JSON.stringify(line));
  const keyBody = key.pub.split(' ')[1];
  t.false(w.logs.some((line) => JSON.stringify(line).includes(keyBody.slice(20, 60))), 'no key material in the log');
  t.deepEqual(w.transfers.map((x) => [x.service, x.protocol]), [['upload-pack', 'ssh'], ['receive-pack', 'ssh'], ['upload-pack', 'ssh'], ['upload-pack', 'ssh'], ['upload-pack', 'ssh']]);
  t.is(w.transfers[0].bytes, sessions[0].bytesIn + sessions[0].bytesOut);
  t.true(w.transfers.every((x) => x.ms >= 0));

  t.is((await w.hearth.call('POST', '/repos/alice/tools/branch_protections', { auth: alice.basic, body: { rule_name: 'main', enable_push: false } })).status, 201);
  writeFileSync(path.join(dir, 'b.txt'), 'b\n');
  await w.git(key.file, ['add', 'b.txt'], dir);
  await w.git(key.file, ['commit', '--quiet', '-m', 'b'], dir);
  const refused = await w.git(key.file, ['push', 'origin', 'main'], dir);
  t.not(refused.code, 0);
  t.regex(refused.stderr, /Not allowed to push to protected branch main/);
  t.is(await refOnServer(w.hearth, 'alice', 'tools', 'refs/heads/main'), local);

  const archive = await w.git(key.file, ['archive', `--remote=${url(w, 'alice/tools.git')}`, 'main', 'a.txt']);
  t.is(archive.code, 0, archive.stderr);
  t.true(archive.stdout.includes(Buffer.from('a\n')));
});

test('deploy keys read or write their one repository; a stranger reads as missing; shells and bad commands are one line', async (t) => {
  const w = await sshWorld(t);
  const alice = await w.hearth.createUser('alice');
  const bob = await w.hearth.createUser('bob');
  await build.repo(w.hearth, alice, { name: 'secret', private: true, autoInit: true });
  await build.repo(w.hearth, alice, { name: 'other', private: true, autoInit: true });
  const ro = w.newKey('ro');
  const rw = w.newKey('rw');
  const stranger = w.newKey('bob');
  t.is((await w.hearth.call('POST', '/repos/alice/secret/keys', { auth: alice.basic, body: { title: 'ro', key: ro.pub, read_only: true } })).status, 201);
  t.is((await w.hearth.call('POST', '/repos/alice/secret/keys', { auth: alice.basic, body: { title: 'rw', key: rw.pub, read_only: false } })).status, 201);
  t.is((await w.hearth.call('POST', '/user/keys', { auth: bob.basic, body: { title: 'bob', key: stranger.pub } })).status, 201);

  const roClone = await w.git(ro.file, ['clone', '--quiet', url(w, 'alice/secret.git'), 'ro-clone']);
  t.is(roClone.code, 0, roClone.stderr);
  const roDir = path.join(w.home, 'ro-clone');
  writeFileSync(path.join(roDir, 'x.txt'), 'x\n');
  await w.git(ro.file, ['add', 'x.txt'], roDir);
  await w.git(ro.file, ['commit', '--quiet', '-m', 'x'], roDir);
  const before = await refOnServer(w.hearth, 'alice', 'secret', 'refs/heads/main');
  const roPush = await w.git(ro.file, ['push', 'origin', 'main'], roDir);
  t.not(roPush.code, 0);
  t.regex(roPush.stderr, /User permission denied for writing/);
  t.is(await refOnServer(w.hearth, 'alice', 'secret', 'refs/heads/main'), before);

  const rwPush = await w.git(rw.file, ['push', url(w, 'alice/secret'), 'main'], roDir);
  t.is(rwPush.code, 0, rwPush.stderr);
  t.not(await refOnServer(w.hearth, 'alice', 'secret', 'refs/heads/main'), before);

  const otherRepo = await w.git(rw.file, ['ls-remote', url(w, 'alice/other.git')]);
  const strangerSecret = await w.git(stranger.file, ['ls-remote', url(w, 'alice/secret.git')]);
  const strangerMissing = await w.git(stranger.file, ['ls-remote', url(w, 'alice/nothing.git')]);
  for (const run of [otherRepo, strangerSecret, strangerMissing]) {
    t.not(run.code, 0);
    t.regex(run.stderr, /Hearth: Repository does not exist or you do not have access/);
  }
  const line = (s: string) => s.split('\n').find((l) => l.startsWith('Hearth') || l.startsWith('Hi there'));
  t.is(line(strangerSecret.stderr), line(strangerMissing.stderr));

  const run = (extra: string[]) => ssh(w, stranger.file, extra);
  const shell = await run(['-T']);
  t.is(shell.code, 1);
  t.regex(shell.stderr, /Hi there, bob! You've successfully authenticated, but Hearth does not provide shell access\./);
  const refusals = [
    ['ls -la', 'Unknown git command'],
    ['git-upload-pack', 'Too few arguments'],
    ["git-upload-pack 'alice/secret' extra", 'Too many arguments'],
    ["git-upload-pack 'alice/secret", 'Error parsing arguments'],
    ["git-upload-pack '../etc/passwd'", 'Invalid repository path'],
    ["git-upload-pack 'alice/../../etc'", 'Invalid repository path'],
    ["git-upload-pack '//etc/passwd'", 'Invalid repository path'],
    ["git-upload-pack '/srv/git/alice/secret.git'", 'Invalid repository path'],
    ["git-receive-pack 'a/b/c'", 'Invalid repository path'],
    ["git-upload-pack 'alice/sec$ret'", 'Invalid repo name'],
  ];
  for (const [command, message] of refusals) {
    const refused = await run([command]);
    t.is(refused.code, 1, command);
    t.regex(refused.stderr, new RegExp(`Hearth: ${message.replace('$', '\\$')}`), command);
  }
  for (const command of ["git-upload-pack 'alice/secret\0/../x'", "git-receive-pack 'alice\0'", '\0']) {
    const refused = await rawExec(w, rw.file, command);
    t.is(refused.code, 1, JSON.stringify(command));
    t.regex(refused.stderr, /Hearth: Invalid repository path/);
  }
  t.deepEqual(w.transfers.map((x) => x.service), ['upload-pack', 'receive-pack'], 'no refused command ran git');
  // the server keeps serving, and nothing was written
  const after = await w.git(rw.file, ['ls-remote', url(w, 'alice/secret.git'), 'refs/heads/main']);
  t.is(after.code, 0, after.stderr);
  t.is(after.stdout.toString().split('\t')[0], (await refOnServer(w.hearth, 'alice', 'secret', 'refs/heads/main')) ?? 'missing');
  const unknownKey = w.newKey('nobody');
  const denied = await w.git(unknownKey.file, ['ls-remote', url(w, 'alice/secret.git')]);
  t.not(denied.code, 0);
  t.regex(denied.stderr, /Permission denied \(publickey\)/);
});

test('the wiki over SSH: clone, push served by the API, and the first push creating a wiki', async (t) => {
  const w = await sshWorld(t);
  const alice = await w.hearth.createUser('alice');
  await build.repo(w.hearth, alice, { name: 'tool', autoInit: true });
  await build.repo(w.hearth, alice, { name: 'blank', autoInit: true });
  const key = w.newKey('alice-key');
  t.is((await w.hearth.call('POST', '/user/keys', { auth: alice.basic, body: { title: 'laptop', key: key.pub } })).status, 201);
  const b64 = (text: string): string => Buffer.from(text).toString('base64');
  const made = await w.hearth.call('POST', '/repos/alice/tool/wiki/new', { auth: alice.basic, body: { title: 'Home', content_base64: b64('# Home\n') } });
  t.is(made.status, 201);

  const cloned = await w.git(key.file, ['clone', '--quiet', url(w, 'alice/tool.wiki.git'), 'wiki']);
  t.is(cloned.code, 0, cloned.stderr);
  const clone = path.join(w.home, 'wiki');
  t.is(readFileSync(path.join(clone, 'Home.md'), 'utf8'), '# Home\n');
  writeFileSync(path.join(clone, 'Over-SSH.md'), 'pushed over ssh\n');
  await w.git(key.file, ['add', 'Over-SSH.md'], clone);
  await w.git(key.file, ['commit', '--quiet', '-m', 'a page over ssh'], clone);
  const pushed = await w.git(key.file, ['push', 'origin', 'master'], clone);
  t.is(pushed.code, 0, pushed.stderr);
  const head = (await w.git(key.file, ['rev-parse', 'HEAD'], clone)).stdout.toString().trim();
  const page = await w.hearth.call('GET', '/repos/alice/tool/wiki/page/Over-SSH');
  t.is(page.status, 200);
  t.like(page.body, { content_base64: b64('pushed over ssh\n'), last_commit: { sha: head } });
  t.is(await refOnServer(w.hearth, 'alice', 'tool', 'refs/heads/master'), null, 'the repository itself is untouched');

  const fresh = path.join(w.home, 'fresh');
  t.is((await w.git(key.file, ['init', '--quiet', '--initial-branch=master', fresh])).code, 0);
  writeFileSync(path.join(fresh, 'Home.md'), 'fresh\n');
  await w.git(key.file, ['add', 'Home.md'], fresh);
  await w.git(key.file, ['commit', '--quiet', '-m', 'first'], fresh);
  const first = await w.git(key.file, ['push', url(w, 'alice/blank.wiki'), 'master'], fresh);
  t.is(first.code, 0, first.stderr);
  t.like((await w.hearth.call('GET', '/repos/alice/blank/wiki/page/Home')).body, { content_base64: b64('fresh\n'), commit_count: 1 });
});

test('limits: login grace time, idle timeout, sessions per key and in all; a flood beyond the cap leaves a running fetch whole', async (t) => {
  const w = await sshWorld(t, {
    HEARTH__server__SSH_LOGIN_GRACE_TIME: '2', HEARTH__server__SSH_IDLE_TIMEOUT: '2',
    HEARTH__server__SSH_MAX_SESSIONS: '4', HEARTH__server__SSH_MAX_SESSIONS_PER_KEY: '2',
  });
  const alice = await w.hearth.createUser('alice');
  await build.repo(w.hearth, alice, { name: 'tools', autoInit: true });
  const head = await refOnServer(w.hearth, 'alice', 'tools', 'refs/heads/main');
  const key = w.newKey('alice-key');
  const other = w.newKey('alice-other');
  for (const pub of [key.pub, other.pub]) t.is((await w.hearth.call('POST', '/user/keys', { auth: alice.basic, body: { title: pub.slice(-9), key: pub } })).status, 201);

  // a connection that never authenticates is closed after the grace time
  const silent = await silentSocket(w.port);
  t.true(silent >= 1500 && silent < 6000, `closed after ${silent} ms`);

  // an authenticated connection with nothing running is closed after the idle timeout
  const idleStarted = Date.now();
  const idle = await ssh(w, key.file, ['-N']);
  t.not(idle.code, 0);
  t.true(Date.now() - idleStarted >= 1500, 'not before the idle timeout');

  // two sessions of one key at once; the third is refused, another key is not
  const held = [await heldFetch(w, key.file, 'alice/tools'), await heldFetch(w, key.file, 'alice/tools.git')];
  const third = await w.git(key.file, ['ls-remote', url(w, 'alice/tools')]);
  t.not(third.code, 0);
  t.regex(third.stderr, /Permission denied \(publickey\)/);
  const otherKey = await w.git(other.file, ['ls-remote', url(w, 'alice/tools'), 'refs/heads/main']);
  t.is(otherKey.code, 0, otherKey.stderr);

  // a flood while two fetches run: the cap (4) holds, the rest are closed at once, the fetches finish
  const flood = Array.from({ length: 12 }, () => silentSocket(w.port));
  for (const deadline = Date.now() + 3000; Date.now() < deadline && w.server.load().connections < 4; ) await new Promise((resolve) => setTimeout(resolve, 20));
  t.is(w.server.load().connections, 4, 'the running fetches and two of the flood');
  const refused = await w.git(other.file, ['ls-remote', url(w, 'alice/tools')]);
  t.not(refused.code, 0, 'no room while the flood holds the cap');
  const kept = (await Promise.all(flood)).sort((a, b) => a - b);
  t.true(kept.slice(0, 10).every((ms) => ms < 1000), `refused at once: ${kept.join(', ')}`);
  t.true(kept.slice(10).every((ms) => ms >= 1500), `the two admitted waited for the grace time: ${kept.join(', ')}`);
  for (const fetch of held) {
    const done = await fetch.finish();
    t.is(done.code, 0);
    t.true(done.stdout.includes(`${head} HEAD`), 'the advertisement came whole');
  }
  // the server sees the clients' connections close a moment after the clients exit
  for (const deadline = Date.now() + 5000; Date.now() < deadline && (w.server.load().connections > 0 || w.server.load().transfers > 0); ) await new Promise((resolve) => setTimeout(resolve, 50));
  t.deepEqual(w.server.load(), { connections: 0, transfers: 0 });
  const cloned = await w.git(key.file, ['clone', '--quiet', url(w, 'alice/tools'), 'after']);
  t.is(cloned.code, 0, cloned.stderr);
});

/** Authentication with the ssh2 client by password or keyboard-interactive: the error it ends with. */
function authWithout(w: SshWorld, options: { password?: string; tryKeyboard?: boolean }): Promise<string> {
  return new Promise((resolve) => {
    const client = new ssh2.Client();
    client.on('keyboard-interactive', (_name, _instructions, _lang, prompts, finish) => finish(prompts.map(() => 'secret')));
    client.on('ready', () => {
      client.end();
      resolve('accepted');
    });
    client.on('error', (error) => resolve(error.message));
    client.connect({ host: '127.0.0.1', port: w.port, username: 'git', hostVerifier: () => true, ...options });
  });
}

test('passwords and keyboard-interactive are refused, so are keys of users who may not sign in; subsystems get the greeting; port forwarding is refused', async (t) => {
  const w = await sshWorld(t);
  const root = await w.hearth.createUser('root', { admin: true });
  const alice = await w.hearth.createUser('alice');
  await build.repo(w.hearth, alice, { name: 'tools', autoInit: true });
  const key = w.newKey('alice-key');
  t.is((await w.hearth.call('POST', '/user/keys', { auth: alice.basic, body: { title: 'laptop', key: key.pub } })).status, 201);

  t.regex(await authWithout(w, { password: 'alice-password' }), /All configured authentication methods failed/);
  t.regex(await authWithout(w, { tryKeyboard: true }), /All configured authentication methods failed/);
  const subsystem = await ssh(w, key.file, ['-s', 'sftp']);
  t.is(subsystem.code, 1);
  t.regex(subsystem.stderr, /Hi there, alice! You've successfully authenticated, but Hearth does not provide shell access\./);
  const forward = await ssh(w, key.file, ['-N', '-o', 'ExitOnForwardFailure=yes', '-R', `127.0.0.1:${await freePort()}:127.0.0.1:${w.port}`]);
  t.not(forward.code, 0, 'port forwarding is refused');
  t.regex(forward.stderr, /remote port forwarding failed/);

  t.is((await w.git(key.file, ['ls-remote', url(w, 'alice/tools')])).code, 0);
  for (const change of [{ prohibit_login: true }, { prohibit_login: false, active: false }]) {
    t.is((await w.hearth.call('PATCH', '/admin/users/alice', { auth: root.basic, body: { login_name: 'alice', source_id: 0, ...change } })).status, 200);
    const refused = await w.git(key.file, ['ls-remote', url(w, 'alice/tools')]);
    t.not(refused.code, 0, JSON.stringify(change));
    t.regex(refused.stderr, /Permission denied \(publickey\)/);
  }
});

test('ssh_url: git@host:owner/repo.git on port 22, empty when SSH is disabled', async (t) => {
  const on22 = await startHearth(t, { HEARTH__server__SSH_PORT: '22', HEARTH__server__SSH_DOMAIN: 'git.example.com' });
  const alice = await on22.createUser('alice');
  await build.repo(on22, alice, { name: 'tools' });
  t.is((await on22.call('GET', '/repos/alice/tools')).body.ssh_url, 'git@git.example.com:alice/tools.git');
  const off = await startHearth(t, { HEARTH__server__DISABLE_SSH: 'true' });
  const bob = await off.createUser('bob');
  await build.repo(off, bob, { name: 'tools' });
  t.is((await off.call('GET', '/repos/bob/tools')).body.ssh_url, '');
});
