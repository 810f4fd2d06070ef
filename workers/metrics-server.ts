import { createServer, type Server } from 'node:http';
import type { Logger } from 'pino';
import type { Config } from '../db/process/config.js';
import { metricsCallerAllowed, processRegistry, startProcessMetrics } from '../db/process/metrics.js';

/**
 * A worker's own figures (jobs it ran by name and outcome with their run times, Node's process figures) at
 * http://host:WORKER_PORT/metrics, behind the same bearer token as the web process's; null when WORKER_PORT is unset.
 * Queue-wide figures are the web process's /metrics, read from the database.
 */
export async function startWorkerMetrics(config: Config, log: Logger): Promise<Server | null> {
  const { workerPort, token } = config.metrics;
  if (!workerPort) return null;
  startProcessMetrics();
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    if (!metricsCallerAllowed(req.headers.authorization, token || undefined)) {
      res.writeHead(401, { 'WWW-Authenticate': 'Bearer' }).end('Unauthorized');
      return;
    }
    void processRegistry.metrics().then(
      (text) => res.writeHead(200, { 'Content-Type': processRegistry.contentType }).end(text),
      (error: unknown) => {
        log.warn({ error: String(error) }, 'worker metrics failed');
        res.writeHead(500).end();
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(workerPort, resolve);
  });
  log.info({ port: workerPort }, 'worker metrics listening');
  return server;
}
