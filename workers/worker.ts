import { pino } from 'pino';
import { allActors } from '../actors/index.js';
import { withSecretKey, openStore, ensureBootAdmin } from '../db/process/boot.js';
import { dropBossSchedules } from '../jobs/queue.js';
import { configForProcess, databaseUrlOf, onStopRequest, runProcess, tellLauncher } from '../db/process/supervised.js';
import { actorDeps, chooseActors, subscribe } from './subscribe.js';
import { startActionsClock } from './actions-clock.js';
import { startCronClock } from './cron-clock.js';
import { serveProcessMetrics } from '../db/process/metrics-server.js';

/** The worker process: runs the actors until asked to stop, then finishes the jobs in hand and exits. */
async function main(): Promise<void> {
  const config = withSecretKey(configForProcess());
  const log = pino({ level: config.log.level, base: { process: 'worker' } });
  let stop = (): void => process.exit(0);
  onStopRequest((reason) => {
    log.info({ reason }, 'draining');
    stop();
  });
  const actors = chooseActors(allActors, config.worker.actors);
  const databaseUrl = await databaseUrlOf(config);
  const store = await openStore(databaseUrl, 'worker');
  await ensureBootAdmin(store, config, log);
  await dropBossSchedules(store.boss);
  const subscription = await subscribe(actors, actorDeps(store, config, log), databaseUrl);
  await startActionsClock(store, config, log);
  const clock = startCronClock(store, config, log);
  const metricsServer = await serveProcessMetrics(config.metrics.workerPort, config.metrics.token || undefined, log);
  log.info({ actors: actors.map((a) => a.name), worker: subscription.workerId }, 'worker ready');
  await tellLauncher({ hearth: 'ready' });
  stop = () => {
    void (async () => {
      await clock.stop();
      metricsServer?.close();
      await subscription.drain();
      await store.close();
      log.info('worker stopped');
      process.exit(0);
    })();
  };
}

runProcess('worker', main);
