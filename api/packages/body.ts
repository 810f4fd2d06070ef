import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { badRequest, tooLarge } from '../../db/errors.js';

/** How much of a refused body is read past, and for how long, before the connection is cut instead. */
const drainLimit = 64 * 1024 * 1024;
const drainTime = 30_000;

/** The body's size as the client declared it (Content-Length), or null when it streams in chunks. */
export function declaredLength(req: IncomingMessage): number | null {
  if (req.headers['transfer-encoding'] !== undefined) return null;
  const length = Number(req.headers['content-length']);
  return Number.isSafeInteger(length) && length >= 0 ? length : null;
}

/**
 * Reads the rest of a refused request's body and drops it, so a client still sending reads the answer instead of a
 * reset connection (Python's requests, for one, reads only once it has sent everything). Whatever was reading the
 * body is let go. Past 64 MiB or 30 seconds the connection is cut after all.
 */
export function drainRefused(req: IncomingMessage): void {
  if (req.complete || req.destroyed) return;
  req.unpipe();
  req.removeAllListeners('readable');
  req.removeAllListeners('data');
  let left = drainLimit;
  const cut = (): void => {
    req.socket?.destroy();
  };
  const timer = setTimeout(cut, drainTime);
  timer.unref();
  req.once('close', () => clearTimeout(timer));
  req.on('data', (chunk: Buffer) => {
    left -= chunk.length;
    if (left < 0) cut();
  });
  req.resume();
}

/** A request body read whole, refused with a 413 past `limit` bytes: for the small documents registries send. */
export async function readBody(req: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw tooLarge('the request body is too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export async function readJson(req: Readable, limit: number): Promise<unknown> {
  const text = (await readBody(req, limit)).toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest('the body is not valid JSON');
  }
}

/** Reads a body to its end, keeping nothing: for documents a registry need not look at. */
export async function discardBody(req: Readable, limit: number): Promise<void> {
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw tooLarge('the request body is too large');
  }
}

/**
 * A framed body read in order: fixed-size fields first (`read`), then one part streamed on as it arrives
 * (`stream`), which must end exactly where the body ends.
 */
export class BodyReader {
  private readonly source: AsyncIterator<Buffer>;
  private pending: Buffer[] = [];
  private pendingSize = 0;

  constructor(body: Readable) {
    this.source = (body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  }

  /** The next `n` bytes; a body ending before them is a 400 naming `what`. */
  async read(n: number, what: string): Promise<Buffer> {
    while (this.pendingSize < n) {
      const next = await this.source.next();
      if (next.done) throw badRequest(`${what} is truncated`);
      this.pending.push(next.value);
      this.pendingSize += next.value.length;
    }
    const all = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending);
    const rest = all.subarray(n);
    this.pending = rest.length > 0 ? [rest] : [];
    this.pendingSize = rest.length;
    return all.subarray(0, n);
  }

  /** The last `n` bytes of the body as a stream; fewer, or more after them, fail the stream with a 400 naming `what`. */
  stream(n: number, what: string): Readable {
    const reader = this;
    return Readable.from((async function* () {
      let left = n;
      const first = reader.pending;
      reader.pending = [];
      reader.pendingSize = 0;
      for (const chunk of first) {
        if (chunk.length > left) throw badRequest(`the body continues after ${what}`);
        left -= chunk.length;
        yield chunk;
      }
      for (;;) {
        const next = await reader.source.next();
        if (next.done) break;
        if (next.value.length > left) throw badRequest(`the body continues after ${what}`);
        left -= next.value.length;
        yield next.value;
      }
      if (left > 0) throw badRequest(`${what} is truncated`);
    })());
  }
}
