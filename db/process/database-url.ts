import path from 'node:path';
import type { Config } from './config.js';
import { startEmbeddedPostgres } from './embedded.js';
import { assertClusterFree } from './postmaster.js';
import { freePort } from './startup.js';

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
