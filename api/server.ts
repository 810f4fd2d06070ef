import { createServer } from 'node:http';
import { pino } from 'pino';
import { ensureBootAdmin, openStore, withSecretKey } from '../db/process/boot.js';
import { portError } from '../db/process/startup.js';
import { configForProcess, databaseUrlOf, onStopRequest, runProcess, tellLauncher } from '../db/process/supervised.js';
import { buildServices } from '../db/services.js';
import { createApp } from './app.js';
import { continueOnFirstRead } from './http/continue.js';

/** The web process: serves the API until asked to stop, then lets in-flight requests (and their git processes) finish. */
async function main(): Promise<void> {
  const config = withSecretKey(configForProcess());
  const log = pino({ level: config.log.level, base: { process: 'web' } });
  let stop = (): void => process.exit(0);
  onStopRequest((reason) => {
    log.info({ reason }, 'stopping');
    stop();
  });
  const databaseUrl = await databaseUrlOf(config);
  const store = await openStore(databaseUrl, 'web');
  await ensureBootAdmin(store, config, log);
  const services = buildServices(config, log);
  const { lifecycle } = services;
  // package uploads come here: their digest threads start now rather than with the first one
  services.digests.warm();
  const server = createServer(createApp({ ...store, ...services }));
  continueOnFirstRead(server);
  // Clients (undici's fetch keeps idle sockets 4 s, proxies longer) must not reuse a socket the server is closing at that moment.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      void store.close().finally(() => reject(portError(config.port, error)));
    });
    server.listen(config.port, resolve);
  });
  log.info({ port: config.port, rootUrl: config.rootUrl }, 'web ready');
  await tellLauncher({ hearth: 'ready' });
  stop = () => {
    if (lifecycle.draining) return;
    lifecycle.draining = true;
    // the health check answers 503 from now; requests are still served until the balancer has noticed
    setTimeout(() => {
      server.close(async () => {
        await store.close();
        process.exit(0);
      });
      server.closeIdleConnections();
    }, config.drainSeconds * 1000);
  };
}

runProcess('web', main);
