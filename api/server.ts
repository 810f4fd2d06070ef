import { pino } from 'pino';
import { ensureBootAdmin, openStore, withSecretKey } from '../db/process/boot.js';
import { loadConfig } from '../db/process/config.js';
import { createApp } from './app.js';
import { CommitFieldsCache } from '../db/git/commit-fields.js';
import { GitStore } from '../db/git/store.js';
import { FileBlobStore } from '../db/blob-store.js';
import path from 'node:path';

/** The web process: serves the API until SIGTERM/SIGINT, then lets in-flight requests finish. */
async function main(): Promise<void> {
  const config = withSecretKey(loadConfig());
  const log = pino({ level: config.log.level, base: { process: 'web' } });
  if (!config.databaseUrl) throw new Error('DATABASE_URL is not set (npm start sets it for the embedded database)');
  const store = await openStore(config.databaseUrl, 'web');
  await ensureBootAdmin(store, config, log);
  const blobs = new FileBlobStore(path.join(config.dataDir, 'blobs'));
  const server = createApp({ ...store, config, log, git: new GitStore(path.join(config.dataDir, 'git'), new CommitFieldsCache()), blobs }).listen(config.port, () => {
    log.info({ port: config.port, rootUrl: config.rootUrl }, 'web ready');
  });
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping');
    server.close(async () => {
      await store.close();
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
