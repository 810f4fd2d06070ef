import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from 'pino';
import { createQueue, startQueue } from '../../jobs/queue.js';
import type { Config } from './config.js';
import { StartupError } from './startup.js';
import { HttpError } from '../errors.js';
import { createDataSource, createPlanOncePool, inTx, migrate, poolReader, type Store } from '../data-source.js';
import { createUser, findUserByName } from '../models/users/users.js';

// bigint ids and counts fit in a double; read them as numbers everywhere.
pg.types.setTypeParser(20, (value) => Number(value));

/** Completes the configuration with what lives in the data directory: the secret key for data at rest. */
export function withSecretKey(config: Config): Config {
  if (config.security.secretKey) return config;
  const file = path.join(config.dataDir, 'secret.key');
  mkdirSync(config.dataDir, { recursive: true });
  try {
    writeFileSync(file, randomBytes(32).toString('hex'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return { ...config, security: { ...config.security, secretKey: readFileSync(file, 'utf8').trim() } };
}

export interface OpenStore extends Store {
  close(): Promise<void>;
}

/** Connects, applies migrations, starts pg-boss. Used by the web process, the worker process and the command line. */
export async function openStore(databaseUrl: string, role: 'web' | 'worker'): Promise<OpenStore> {
  const ds = createDataSource(databaseUrl, `hearth-${role}`);
  await ds.initialize();
  await migrate(ds);
  const boss = createQueue({ connectionString: databaseUrl, role });
  boss.on('error', () => undefined);
  await startQueue(boss, databaseUrl);
  const planOnce = createPlanOncePool(databaseUrl, `hearth-${role}`);
  planOnce.on('error', () => undefined);
  return {
    ds,
    db: poolReader(ds, planOnce),
    boss,
    close: async () => {
      await boss.stop({ graceful: true, wait: true, timeout: 15_000 }).catch(() => undefined);
      await planOnce.end().catch(() => undefined);
      await ds.destroy().catch(() => undefined);
    },
  };
}

/** HEARTH_ADMIN_*: create that administrator once, if the user does not exist yet. */
export async function ensureBootAdmin(store: Store, config: Config, log: Logger): Promise<void> {
  const admin = config.bootAdmin;
  if (!admin) return;
  if (await findUserByName(store.db, admin.username)) return;
  try {
    await inTx(store, (tx) =>
      createUser(tx, { ...admin, is_admin: true }, { passwordAlgo: config.security.passwordHashAlgo }),
    );
    log.info({ username: admin.username }, 'created the boot administrator');
  } catch (error) {
    // Web and worker may race to create it; the loser sees "already exists".
    if (await findUserByName(store.db, admin.username)) return;
    if (error instanceof HttpError) throw new StartupError(`HEARTH_ADMIN_USERNAME=${admin.username}: the boot administrator is refused: ${error.message}`);
    throw error;
  }
}
