import { pino } from 'pino';
import { allActors } from '../actors/index.js';
import { withSecretKey, openStore, ensureBootAdmin } from '../db/process/boot.js';
import { loadConfig } from '../db/process/config.js';
import { installSchedules } from '../jobs/queue.js';
import { actorDeps, chooseActors, subscribe } from './subscribe.js';

/** The worker process: runs the actors until SIGTERM/SIGINT, then finishes the jobs in hand and exits. */
async function main(): Promise<void> {
  const config = withSecretKey(loadConfig());
  const log = pino({ level: config.log.level, base: { process: 'worker' } });
  if (!config.databaseUrl) throw new Error('DATABASE_URL is not set (npm start sets it for the embedded database)');
  const actors = chooseActors(allActors, config.worker.actors);
  const store = await openStore(config.databaseUrl, 'worker');
  await ensureBootAdmin(store, config, log);
  await installSchedules(store.boss);
  const subscription = await subscribe(actors, actorDeps(store, config, log), config.databaseUrl);
  log.info({ actors: actors.map((a) => a.name) }, 'worker ready');
  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'draining');
    await subscription.drain();
    await store.close();
    log.info('worker stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
