import { createServer as createHttpServer, request as httpRequest } from 'node:http';
import net from 'node:net';

/** A TCP listener of the drill's: how many connections it took, how many are still open. */
export interface Listener {
  port: number;
  accepted: number;
  open: number;
  close(): Promise<void>;
}

function track(server: net.Server, listener: Listener, sockets: Set<net.Socket>): void {
  server.on('connection', (socket) => {
    listener.accepted++;
    listener.open++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      listener.open--;
      sockets.delete(socket);
    });
  });
}

async function listenAll(servers: Array<{ server: net.Server; host: string }>, port = 0): Promise<number> {
  let chosen = port;
  for (const { server, host } of servers) {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port: chosen, host, ipv6Only: host.includes(':') }, resolve);
    });
    chosen = (server.address() as net.AddressInfo).port;
  }
  return chosen;
}

function closer(servers: net.Server[], sockets: Set<net.Socket>): () => Promise<void> {
  return async () => {
    for (const socket of sockets) socket.destroy();
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  };
}

/**
 * A TCP relay to `targetPort` on 127.0.0.1, listening on 127.0.0.1 and [::1] at one port (and reached through 0.0.0.0
 * too): every spelling of loopback reaches Hearth's git and HTTP through it, and it counts the connections.
 */
export async function startRelay(targetPort: number): Promise<Listener & { hangUp(): void }> {
  const sockets = new Set<net.Socket>();
  const listener: Listener & { hangUp(): void } = {
    port: 0, accepted: 0, open: 0, close: async () => undefined,
    // ends every connection it holds: a client's next request must connect anew
    hangUp: () => sockets.forEach((socket) => socket.destroy()),
  };
  const relay = (client: net.Socket): void => {
    const upstream = net.connect(targetPort, '127.0.0.1');
    client.pipe(upstream).pipe(client);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  };
  const servers = [net.createServer(relay), net.createServer(relay)];
  servers.forEach((server) => track(server, listener, sockets));
  listener.port = await listenAll([{ server: servers[0], host: '127.0.0.1' }, { server: servers[1], host: '::1' }]);
  listener.close = closer(servers, sockets);
  return listener;
}

/** A listener that must never be reached: it accepts, counts and hangs up. */
export async function startTrap(host: string, port: number): Promise<Listener> {
  const sockets = new Set<net.Socket>();
  const listener: Listener = { port, accepted: 0, open: 0, close: async () => undefined };
  const server = net.createServer((socket) => socket.destroy());
  track(server, listener, sockets);
  await listenAll([{ server, host }], port);
  listener.close = closer([server], sockets);
  return listener;
}

/** An HTTP server on 127.0.0.1 that answers every request with a 302 to `location` + the path asked for. */
export async function startRedirector(location: string): Promise<Listener> {
  const sockets = new Set<net.Socket>();
  const listener: Listener = { port: 0, accepted: 0, open: 0, close: async () => undefined };
  const server = createHttpServer((req, res) => {
    res.writeHead(302, { Location: `${location}${req.url ?? '/'}` });
    res.end();
  });
  track(server, listener, sockets);
  listener.port = await listenAll([{ server, host: '127.0.0.1' }]);
  listener.close = closer([server], sockets);
  return listener;
}

/**
 * A remote that accepts the connection and then never answers (`silent`), or answers an HTTP status line and headers
 * one byte a second and never finishes (`trickle`). Connections closed by the other side are counted as closed.
 */
export async function startHungRemote(kind: 'silent' | 'trickle'): Promise<Listener> {
  const sockets = new Set<net.Socket>();
  const listener: Listener = { port: 0, accepted: 0, open: 0, close: async () => undefined };
  const server = net.createServer((socket) => {
    // the request is read (and dropped), so that the other side's close is seen
    socket.resume();
    if (kind === 'silent') return;
    const text = 'HTTP/1.1 200 OK\r\nContent-Type: application/x-git-upload-pack-advertisement\r\nX-Drill: ' + 'x'.repeat(100_000);
    let at = 0;
    const timer = setInterval(() => {
      if (socket.destroyed) return clearInterval(timer);
      socket.write(text[at++ % text.length]);
    }, 1000);
    socket.on('close', () => clearInterval(timer));
  });
  track(server, listener, sockets);
  listener.port = await listenAll([{ server, host: '127.0.0.1' }]);
  listener.close = closer([server], sockets);
  return listener;
}

/**
 * An HTTP relay to Hearth on 127.0.0.1:`targetPort` that serves git (every path outside `/api/`) and takes requests to
 * the API without ever answering them: a source whose clone works and whose API hangs.
 */
export async function startApiHangingRelay(targetPort: number): Promise<Listener & { apiOpen: () => number }> {
  const sockets = new Set<net.Socket>();
  const apiSockets = new Set<net.Socket>();
  const listener: Listener & { apiOpen: () => number } = { port: 0, accepted: 0, open: 0, close: async () => undefined, apiOpen: () => apiSockets.size };
  const server = createHttpServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    if (req.url?.startsWith('/api/')) {
      apiSockets.add(req.socket);
      req.socket.on('close', () => apiSockets.delete(req.socket));
      req.resume();
      return;
    }
    const upstream = httpRequest({ host: '127.0.0.1', port: targetPort, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  track(server, listener, sockets);
  listener.port = await listenAll([{ server, host: '127.0.0.1' }]);
  listener.close = closer([server], sockets);
  return listener;
}
