import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import type { Config } from './config.js';
import { startEmbeddedPostgres } from './embedded.js';

/** The database a process works on: DATABASE_URL, or the embedded PostgreSQL it started (and stops). */
export interface Database {
  url: string;
  stop(): Promise<void>;
}

export interface DatabaseOptions {
  /** Called once, before an embedded cluster starts, with its directory. */
  onEmbeddedStart?: (dir: string) => void;
  /** PostgreSQL's own output lines. */
  log?: (line: string) => void;
}

/**
 * DATABASE_URL when set; otherwise the embedded PostgreSQL under $HEARTH_DATA_DIR/db on a free port.
 * Refuses, with a message naming the way out, when another process already runs that cluster.
 */
export async function openDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir'>,
  options: DatabaseOptions = {},
): Promise<Database> {
  if (config.databaseUrl) return { url: config.databaseUrl, stop: async () => undefined };
  const dir = path.join(config.dataDir, 'db');
  assertClusterFree(dir);
  options.onEmbeddedStart?.(dir);
  const database = await startEmbeddedPostgres({ dir, port: await freePort(), log: options.log });
  return { url: database.url, stop: () => database.stop() };
}

export class EmbeddedDatabaseBusy extends Error {}

/** PostgreSQL leaves postmaster.pid behind after a crash; only a live postmaster means the cluster is taken. */
function assertClusterFree(dir: string): void {
  const pidFile = path.join(dir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const [pidLine, , , portLine] = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(pidLine);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  const port = Number(portLine);
  throw new EmbeddedDatabaseBusy(
    `the embedded PostgreSQL under ${dir} is already running (pid ${pid}, port ${port}), probably under \`npm start\`; ` +
      `a second instance cannot open the same directory. Use the running one by setting DATABASE_URL, e.g. ` +
      `DATABASE_URL=postgres://hearth:hearth@127.0.0.1:${port}/hearth, or stop it first.`,
  );
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user (the postgres user, when we run as root).
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
