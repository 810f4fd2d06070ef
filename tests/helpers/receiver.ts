import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { ExecutionContext } from 'ava';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The body as JSON (a form body's `payload` field for form hooks). */
  json: any;
  at: number;
}

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** How the next requests are answered; by default 200 "ok". Return null to leave the request hanging. */
  answer: (req: ReceivedRequest, res: ServerResponse) => { status: number; body?: string } | null;
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
}

/** A real HTTP server on loopback that keeps every request it receives. */
export async function startReceiver(t: ExecutionContext): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const waiters: Array<() => void> = [];
  const hanging: ServerResponse[] = [];
  const receiver: Receiver = {
    url: '',
    requests,
    answer: () => ({ status: 200, body: 'ok' }),
    async waitFor(count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (requests.length < count) {
        if (Date.now() > deadline) throw new Error(`received ${requests.length} of ${count} requests`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
      return requests.slice(0, count);
    },
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown = null;
      try {
        json = String(req.headers['content-type']).includes('form') ? JSON.parse(new URLSearchParams(body).get('payload') ?? 'null') : JSON.parse(body);
      } catch {
        json = null;
      }
      const received: ReceivedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, json, at: Date.now() };
      requests.push(received);
      waiters.splice(0).forEach((wake) => wake());
      const reply = receiver.answer(received, res);
      if (reply === null) {
        hanging.push(res);
        return;
      }
      res.writeHead(reply.status, { 'content-type': 'text/plain', 'x-receiver': 'test' });
      res.end(reply.body ?? '');
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
  t.teardown(async () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return receiver;
}
