import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Helpers for tests that run Hearth's real processes: the launcher, its children, signals. */

export { freePort } from '../../db/process/startup.js';

/** The checkout: the nearest directory above this module holding package.json (tests run bundled, from tests/.compiled). */
export const root = ((): string => {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
  }
  throw new Error('no package.json above the tests');
})();

export interface Launcher {
  child: ChildProcess;
  output: string[];
  stderr: string[];
  exited: Promise<number | null>;
}

/**
 * `npm start` without the build step: the launcher with its embedded database, web and worker processes.
 * `group`: in a process group of its own, as a terminal's foreground job is, so that `kill(-pid)` is Ctrl-C.
 */
export function launch(env: NodeJS.ProcessEnv, options: { group?: boolean; command?: string[] } = {}): Launcher {
  const command = options.command ?? [process.execPath, '--import', 'tsx', 'workers/start.ts'];
  // launchers running side by side would all bind SSH's default port: a test that wants the ssh process names a free one
  const sshNamed = Object.keys(env).some((name) => /^HEARTH__server__SSH_LISTEN_PORT$/i.test(name));
  const withSsh = sshNamed ? env : { HEARTH__server__START_SSH_SERVER: 'false', ...env };
  const child = spawn(command[0], command.slice(1), { cwd: root, env: withSsh, stdio: ['ignore', 'pipe', 'pipe'], detached: options.group ?? false });
  const output: string[] = [];
  const stderr: string[] = [];
  child.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => {
    output.push(chunk.toString());
    stderr.push(chunk.toString());
  });
  // 'close', not 'exit': the last lines a process wrote may still be in its pipes when 'exit' fires
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, output, stderr, exited };
}

export interface ProcessRow {
  pid: number;
  ppid: number;
  pgid: number;
  args: string;
}

export function processRows(): ProcessRow[] {
  const lines = execFileSync('ps', ['-eo', 'pid=,ppid=,pgid=,args='], { encoding: 'utf8' }).trim().split('\n');
  return lines.map((line) => {
    const [pid, ppid, pgid, ...args] = line.trim().split(/\s+/);
    return { pid: Number(pid), ppid: Number(ppid), pgid: Number(pgid), args: args.join(' ') };
  });
}

/** Every process as `pid args`, and the pids descending from `ancestor`. */
export function processTable(ancestor: number): { lines: string[]; descendants: number[] } {
  const rows = processRows();
  const descendants: number[] = [];
  for (let frontier = [ancestor]; frontier.length > 0; ) {
    frontier = rows.filter((row) => frontier.includes(row.ppid)).map((row) => row.pid);
    descendants.push(...frontier);
  }
  return { lines: rows.map((row) => `${row.pid} ${row.args}`), descendants };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function waitHealthy(baseUrl: string, launcher: Launcher, ms = 90_000): Promise<number> {
  const started = Date.now();
  for (const deadline = started + ms; Date.now() < deadline; ) {
    if (launcher.child.exitCode !== null) throw new Error(`the launcher exited with ${launcher.child.exitCode}:\n${launcher.output.join('')}`);
    const status = await fetch(`${baseUrl}/api/healthz`).then((response) => response.status, () => 0);
    if (status === 200) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no 200 from /api/healthz within ${ms / 1000} s:\n${launcher.output.join('')}`);
}

export async function within<T>(ms: number, promise: Promise<T>): Promise<T | 'timeout'> {
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

/** The pids still alive after `ms`, for processes that stop in their own time (a helper exiting on its parent's EOF). */
export async function survivors(pids: number[], ms = 2_000): Promise<number[]> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; ) {
    if (!pids.some(isAlive)) return [];
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return pids.filter(isAlive);
}

/** Kills whatever a test left running (after a failed assertion). */
export function killAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
