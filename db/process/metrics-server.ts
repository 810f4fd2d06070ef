import { createServer, type Server } from 'node:http';
import type { Logger } from 'pino';
import { metricsCallerAllowed, processRegistry, startProcessMetrics } from './metrics.js';

/**
 * A process's own figures at http://host:PORT/metrics, behind the same bearer token as the web process's: a worker's
 * (`[metrics] WORKER_PORT`: jobs it ran by name and outcome with their run times) and the ssh process's
 * (`[metrics] SSH_PORT`: git transfers over SSH), each with Node's process figures; null without a port.
 * Queue-wide figures are the web process's /metrics, read from the database.
 */
export async function serveProcessMetrics(port: number | undefined, token: string | undefined, log: Logger): Promise<Server | null> {
  if (!port) return null;
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
        log.warn({ error: String(error) }, 'process metrics failed');
        res.writeHead(500).end();
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, resolve);
  });
  log.info({ port }, 'process metrics listening');
  return server;
}
