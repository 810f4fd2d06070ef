import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { ExecutionContext } from 'ava';
import { root } from './processes.js';

export interface Slapd {
  port: number;
  suffix: string;
  adminDn: string;
  adminPassword: string;
}

const suffix = 'dc=example,dc=org';
const slapdBinary = ['/usr/sbin/slapd', 'slapd'];

/**
 * A real OpenLDAP server (Debian's `slapd`, installed with apt when missing) on a loopback port with a temporary
 * database holding `ldif`. Null, with the reason, when slapd cannot be installed or started.
 */
export async function startSlapd(t: ExecutionContext, ldif: string): Promise<Slapd | string> {
  const ensured = spawnSync('bash', [path.join(root, 'tests', 'helpers', 'ensure-client.sh'), 'slapd', 'slapd'], { encoding: 'utf8', timeout: 300_000, env: { ...process.env, PATH: `${process.env.PATH}:/usr/sbin` } });
  if (ensured.status !== 0) return `slapd is not available: ${ensured.stderr.trim()}`;
  const binary = slapdBinary.find((b) => spawnSync(b, ['-VV'], { encoding: 'utf8' }).error === undefined) ?? 'slapd';
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hearth-slapd-'));
  mkdirSync(path.join(dir, 'db'));
  const adminPassword = 'admin-secret';
  const conf = path.join(dir, 'slapd.conf');
  writeFileSync(conf, [
    ...['core', 'cosine', 'inetorgperson', 'nis'].map((s) => `include /etc/ldap/schema/${s}.schema`),
    'modulepath /usr/lib/ldap', 'moduleload back_mdb', `pidfile ${dir}/slapd.pid`,
    'database mdb', `suffix "${suffix}"`, `rootdn "cn=admin,${suffix}"`, `rootpw ${adminPassword}`, `directory ${dir}/db`, 'maxsize 10485760',
    'access to attrs=userPassword by self read by anonymous auth by * none', 'access to * by * read', '',
  ].join('\n'));
  writeFileSync(path.join(dir, 'data.ldif'), ldif);
  const loaded = spawnSync(binary.replace(/slapd$/, 'slapadd'), ['-f', conf, '-l', path.join(dir, 'data.ldif')], { encoding: 'utf8' });
  if (loaded.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return `slapadd failed: ${loaded.stderr.trim().slice(-300)}`;
  }
  const port = await freePort();
  const child = spawn(binary, ['-f', conf, '-h', `ldap://127.0.0.1:${port}/`, '-d', '0'], { stdio: 'ignore' });
  t.teardown(async () => {
    child.kill('SIGTERM');
    await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(null)));
    rmSync(dir, { recursive: true, force: true });
  });
  for (let i = 0; i < 100; i++) {
    if (await accepts(port)) return { port, suffix, adminDn: `cn=admin,${suffix}`, adminPassword };
    if (child.exitCode !== null) return `slapd exited with ${child.exitCode}`;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return 'slapd did not listen within 5 s';
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    }).on('error', reject);
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    }).on('error', () => resolve(false));
  });
}
