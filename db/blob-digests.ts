import { Worker } from 'node:worker_threads';

/** The four digests Gitea keeps of every package file, in hex. */
export interface BlobDigests {
  md5: string;
  sha1: string;
  sha256: string;
  sha512: string;
}

/** Bytes of one stream that may wait in its ring for the thread: 64 chunks of a socket read. */
const ringSize = 4 * 1024 * 1024;
/** Rings kept for the next streams, so a busy registry does not allocate one per upload. */
const spareRings = 4;

type ToThread =
  | { kind: 'start'; id: number; ring: SharedArrayBuffer }
  | { kind: 'data'; id: number; start: number; end: number }
  | { kind: 'finish'; id: number }
  | { kind: 'abort'; id: number };
type FromThread = { kind: 'ack'; id: number; bytes: number } | { kind: 'digests'; id: number; hex: string[] };

/**
 * The thread's program. It is CommonJS handed over as text, so it runs the same under tsx, from dist and in tests:
 * it hashes the ranges of each stream's ring it is told about and acknowledges each one, so the ring space is reused.
 */
const threadSource = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const streams = new Map();
parentPort.on('message', (m) => {
  if (m.kind === 'start') {
    streams.set(m.id, { ring: new Uint8Array(m.ring), hashes: ['md5', 'sha1', 'sha256', 'sha512'].map((name) => createHash(name)) });
  } else if (m.kind === 'data') {
    const stream = streams.get(m.id);
    const bytes = stream.ring.subarray(m.start, m.end);
    for (const hash of stream.hashes) hash.update(bytes);
    parentPort.postMessage({ kind: 'ack', id: m.id, bytes: m.end - m.start });
  } else if (m.kind === 'finish') {
    const stream = streams.get(m.id);
    streams.delete(m.id);
    parentPort.postMessage({ kind: 'digests', id: m.id, hex: stream.hashes.map((hash) => hash.digest('hex')) });
  } else {
    streams.delete(m.id);
  }
});
`;

/**
 * Hashes package files on a thread of its own, beside the main thread that receives and writes them: MD5, SHA-1,
 * SHA-256 and SHA-512 cost about twice as much CPU as receiving and writing the bytes, so done inline they halve an
 * upload's speed. Each stream copies its chunks into a shared ring and waits only when the thread is a ring behind.
 * The thread starts with the first stream and keeps the process alive only while it hashes; if it dies, its streams
 * fail and the next stream starts another.
 */
export class DigestThread {
  private worker: Worker | null = null;
  private readonly streams = new Map<number, Digesting>();
  private readonly rings: SharedArrayBuffer[] = [];
  private nextId = 1;

  start(): Digesting {
    const worker = this.worker ?? this.spawn();
    const id = this.nextId++;
    const ring = this.rings.pop() ?? new SharedArrayBuffer(ringSize);
    const stream = new Digesting(id, ring, (message) => worker.postMessage(message), () => {
      this.streams.delete(id);
      if (this.streams.size === 0) worker.unref();
      if (this.rings.length < spareRings) this.rings.push(ring);
    });
    // the thread holds the process while it hashes, and only then
    if (this.streams.size === 0) worker.ref();
    this.streams.set(id, stream);
    worker.postMessage({ kind: 'start', id, ring } satisfies ToThread);
    return stream;
  }

  private spawn(): Worker {
    const worker = new Worker(threadSource, { eval: true });
    worker.on('message', (message: FromThread) => this.streams.get(message.id)?.receive(message));
    const lost = (error: Error): void => {
      if (this.worker !== worker) return;
      this.worker = null;
      for (const stream of [...this.streams.values()]) stream.fail(error);
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`the digest thread exited with ${code}`)));
    this.worker = worker;
    return worker;
  }
}

/** One stream being hashed: `update` each chunk in order, then `finish`, or `abort` to let it go. */
export class Digesting {
  private position = 0;
  private inFlight = 0;
  private blocked: (() => void) | null = null;
  private failure: Error | null = null;
  private finished: { resolve: (digests: BlobDigests) => void; reject: (error: Error) => void } | null = null;
  private closed = false;
  private readonly ring: Uint8Array;

  constructor(
    private readonly id: number,
    ring: SharedArrayBuffer,
    private readonly post: (message: ToThread) => void,
    private readonly release: () => void,
  ) {
    this.ring = new Uint8Array(ring);
  }

  /** Copies the chunk into the ring and calls `done` once it is all there: at once, unless the thread is a ring behind. */
  update(chunk: Uint8Array, done: (error?: Error) => void): void {
    let offset = 0;
    const copy = (): void => {
      if (this.failure) {
        done(this.failure);
        return;
      }
      while (offset < chunk.length) {
        const room = Math.min(this.ring.length - this.inFlight, this.ring.length - this.position);
        if (room === 0) {
          this.blocked = copy;
          return;
        }
        const n = Math.min(room, chunk.length - offset);
        this.ring.set(chunk.subarray(offset, offset + n), this.position);
        this.post({ kind: 'data', id: this.id, start: this.position, end: this.position + n });
        this.inFlight += n;
        this.position = (this.position + n) % this.ring.length;
        offset += n;
      }
      done();
    };
    copy();
  }

  /** The digests of everything updated; the stream is released. */
  finish(): Promise<BlobDigests> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.finished = { resolve, reject };
      this.post({ kind: 'finish', id: this.id });
    });
  }

  /** Drops the stream (a failed upload); the thread forgets it. */
  abort(): void {
    if (this.closed) return;
    this.post({ kind: 'abort', id: this.id });
    this.close();
  }

  receive(message: FromThread): void {
    if (message.kind === 'ack') {
      this.inFlight -= message.bytes;
      const blocked = this.blocked;
      this.blocked = null;
      blocked?.();
      return;
    }
    const [md5, sha1, sha256, sha512] = message.hex;
    this.close();
    this.finished?.resolve({ md5, sha1, sha256, sha512 });
  }

  fail(error: Error): void {
    this.failure = error;
    this.close();
    const blocked = this.blocked;
    this.blocked = null;
    blocked?.();
    this.finished?.reject(error);
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.release();
  }
}
