import { connect } from 'node:net';

export interface RawExchange {
  /** Everything the server sent, responses one after the other. */
  text: string;
  /** A socket error (a reset while sending, say), or null when the server answered and closed cleanly. */
  error: NodeJS.ErrnoException | null;
}

/**
 * Sends a request with a body of `bodyBytes` bytes in full over a raw socket, as a client that reads nothing before it
 * has sent everything does (Python's requests, say), then a second request on the same connection that asks the
 * server to close. A server that cut the first body short shows as a reset here, and the answers lost with it.
 */
export function rawExchange(rootUrl: string, head: string, bodyBytes: number, then: string): Promise<RawExchange> {
  const { hostname, port } = new URL(rootUrl);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    const received: Buffer[] = [];
    let error: NodeJS.ErrnoException | null = null;
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', (failure: NodeJS.ErrnoException) => {
      error = failure;
    });
    socket.on('close', () => resolve({ text: Buffer.concat(received).toString('latin1'), error }));
    socket.on('connect', async () => {
      const chunk = Buffer.alloc(256 * 1024, 1);
      const write = (data: Buffer | string): Promise<void> => new Promise((done) => {
        if (socket.write(data)) done();
        else socket.once('drain', done);
      });
      await write(head);
      for (let left = bodyBytes; left > 0 && !error; left -= chunk.length) await write(chunk.subarray(0, Math.min(chunk.length, left)));
      // not end(): Node's server drops a request whose client half-closed; the second request asks it to close instead
      if (!error) socket.write(then);
    });
  });
}
