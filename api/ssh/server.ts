import { pino } from 'pino';
import { openStore, withSecretKey } from '../../db/process/boot.js';
import { portError } from '../../db/process/startup.js';
import { configForProcess, databaseUrlOf, onStopRequest, runProcess, tellLauncher } from '../../db/process/supervised.js';
import { buildServices } from '../../db/services.js';
import { recordGitTransfer } from '../../db/process/metrics.js';
import { serveProcessMetrics } from '../../db/process/metrics-server.js';
import { createSshServer } from './ssh-server.js';

/** The ssh process: serves git over SSH until asked to stop, then lets running transfers finish. */
async function main(): Promise<void> {
  const config = withSecretKey(configForProcess());
  const log = pino({ level: config.log.level, base: { process: 'ssh' } });
  let stop = (): void => process.exit(0);
  onStopRequest((reason) => {
    log.info({ reason }, 'stopping');
    stop();
  });
  if (!config.ssh.start) {
    log.info('the built-in SSH server is off ([server] START_SSH_SERVER or DISABLE_SSH)');
    await tellLauncher({ hearth: 'ready' });
    return;
  }
  const store = await openStore(await databaseUrlOf(config), 'web');
  const server = createSshServer({ ...store, ...buildServices(config, log) }, { onTransfer: recordGitTransfer });
  const metrics = await serveProcessMetrics(config.metrics.sshPort, config.metrics.token || undefined, log);
  const port = await server.listen().catch(async (error: NodeJS.ErrnoException) => {
    await store.close();
    throw portError(config.ssh.listenPort, error, '[server] SSH_LISTEN_PORT');
  });
  log.info({ port, host: config.ssh.listenHost }, 'ssh ready');
  await tellLauncher({ hearth: 'ready' });
  stop = () => {
    void server.drain().then(async () => {
      metrics?.close();
      await store.close();
      process.exit(0);
    });
  };
}

runProcess('ssh', main);
