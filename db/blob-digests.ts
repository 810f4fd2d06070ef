import { Worker } from 'node:worker_threads';

/** The four digests Gitea keeps of every package file, in hex. */
export interface BlobDigests {
  md5: string;
  sha1: string;
  sha256: string;
  sha512: string;
}

type Algorithm = keyof BlobDigests;

/** The digests each thread computes: MD5 and SHA-512 cost the most, so they go to different threads. */
const threadAlgorithms: Algorithm[][] = [['md5', 'sha1'], ['sha512', 'sha256']];
/** Bytes of one stream that may wait in its ring for the threads: 64 chunks of a socket read. */
const ringSize = 4 * 1024 * 1024;
/** Rings kept for the next streams, so a busy registry does not allocate one per upload. */
const spareRings = 4;

type ToThread =
  | { kind: 'start'; id: number; ring: SharedArrayBuffer }
  | { kind: 'data'; id: number; start: number; end: number }
  | { kind: 'finish'; id: number }
  | { kind: 'abort'; id: number };
type FromThread = { kind: 'ack'; id: number; bytes: number } | { kind: 'digests'; id: number; hex: Record<string, string> };

/**
 * A thread's program. It is CommonJS handed over as text, so it runs the same under tsx, from dist and in tests:
 * for each stream it hashes the ranges of the stream's ring it is told about with its own algorithms
 * (`workerData`), and acknowledges each range so the ring space can be reused.
 */
const threadSource = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const streams = new Map();
parentPort.on('message', (m) => {
  if (m.kind === 'start') {
    streams.set(m.id, { ring: new Uint8Array(m.ring), hashes: workerData.map((name) => [name, createHash(name)]) });
  } else if (m.kind === 'data') {
    const stream = streams.get(m.id);
    const bytes = stream.ring.subarray(m.start, m.end);
    for (const [, hash] of stream.hashes) hash.update(bytes);
    parentPort.postMessage({ kind: 'ack', id: m.id, bytes: m.end - m.start });
  } else if (m.kind === 'finish') {
    const stream = streams.get(m.id);
    streams.delete(m.id);
    parentPort.postMessage({ kind: 'digests', id: m.id, hex: Object.fromEntries(stream.hashes.map(([name, hash]) => [name, hash.digest('hex')])) });
  } else {
    streams.delete(m.id);
  }
});
`;

/**
 * Hashes package files on two threads beside the main thread that receives and writes them: MD5, SHA-1, SHA-256
 * and SHA-512 together cost about two and a half times the CPU of receiving and writing the bytes, so done inline
 * they would be most of an upload's time. Each stream copies its chunks into a shared ring that both threads read,
 * and waits only when a thread is a ring behind. The threads start with the first stream and keep the process alive
 * only while they hash; if one dies, the streams fail and the next stream starts new threads.
 */
export class DigestThreads {
  private workers: Worker[] | null = null;
  private readonly streams = new Map<number, Digesting>();
  private readonly rings: SharedArrayBuffer[] = [];
  private nextId = 1;

  /** Starts the threads ahead of the first upload (the web process does, so its first upload does not wait for them). */
  warm(): void {
    this.workers ??= this.spawn();
  }

  /** Ends the threads; streams still hashing fail. */
  async close(): Promise<void> {
    const workers = this.workers;
    this.workers = null;
    for (const stream of [...this.streams.values()]) stream.fail(new Error('the digest threads were closed'));
    await Promise.all((workers ?? []).map((worker) => worker.terminate()));
  }

  start(): Digesting {
    const workers = this.workers ?? this.spawn();
    const id = this.nextId++;
    const ring = this.rings.pop() ?? new SharedArrayBuffer(ringSize);
    const post = (message: ToThread): void => {
      for (const worker of workers) worker.postMessage(message);
    };
    const stream = new Digesting(id, ring, workers.length, post, () => {
      this.streams.delete(id);
      if (this.streams.size === 0) for (const worker of workers) worker.unref();
      if (this.rings.length < spareRings) this.rings.push(ring);
    });
    // the threads hold the process while they hash, and only then
    if (this.streams.size === 0) for (const worker of workers) worker.ref();
    this.streams.set(id, stream);
    post({ kind: 'start', id, ring });
    return stream;
  }

  private spawn(): Worker[] {
    const workers = threadAlgorithms.map((algorithms) => new Worker(threadSource, { eval: true, workerData: algorithms }));
    const lost = (error: Error): void => {
      if (this.workers !== workers) return;
      this.workers = null;
      for (const worker of workers) void worker.terminate();
      for (const stream of [...this.streams.values()]) stream.fail(error);
    };
    for (const [thread, worker] of workers.entries()) {
      worker.on('message', (message: FromThread) => this.streams.get(message.id)?.receive(thread, message));
      worker.on('error', lost);
      worker.on('exit', (code) => lost(new Error(`a digest thread exited with ${code}`)));
      worker.unref();
    }
    this.workers = workers;
    return workers;
  }
}

/** One stream being hashed: `update` each chunk in order, then `finish`, or `abort` to let it go. */
export class Digesting {
  private position = 0;
  private written = 0;
  /** Bytes each thread has acknowledged; the ring space behind the slowest is free again. */
  private readonly acked: number[];
  private blocked: (() => void) | null = null;
  private failure: Error | null = null;
  private readonly hex: Record<string, string> = {};
  private answers = 0;
  private finished: { resolve: (digests: BlobDigests) => void; reject: (error: Error) => void } | null = null;
  private closed = false;
  private readonly ring: Uint8Array;

  constructor(
    private readonly id: number,
    ring: SharedArrayBuffer,
    private readonly threads: number,
    private readonly post: (message: ToThread) => void,
    private readonly release: () => void,
  ) {
    this.ring = new Uint8Array(ring);
    this.acked = new Array<number>(threads).fill(0);
  }

  /** Copies the chunk into the ring and calls `done` once it is all there: at once, unless a thread is a ring behind. */
  update(chunk: Uint8Array, done: (error?: Error) => void): void {
    let offset = 0;
    const copy = (): void => {
      if (this.failure) {
        done(this.failure);
        return;
      }
      while (offset < chunk.length) {
        const free = this.ring.length - (this.written - Math.min(...this.acked));
        const room = Math.min(free, this.ring.length - this.position);
        if (room === 0) {
          this.blocked = copy;
          return;
        }
        const n = Math.min(room, chunk.length - offset);
        this.ring.set(chunk.subarray(offset, offset + n), this.position);
        this.post({ kind: 'data', id: this.id, start: this.position, end: this.position + n });
        this.written += n;
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

  /** Drops the stream (a failed upload); the threads forget it. */
  abort(): void {
    if (this.closed) return;
    this.post({ kind: 'abort', id: this.id });
    this.close();
  }

  /** A message from one of the threads, by its index. */
  receive(thread: number, message: FromThread): void {
    if (message.kind === 'ack') {
      this.acked[thread] += message.bytes;
      const blocked = this.blocked;
      this.blocked = null;
      blocked?.();
      return;
    }
    Object.assign(this.hex, message.hex);
    if (++this.answers < this.threads) return;
    this.close();
    this.finished?.resolve(this.hex as unknown as BlobDigests);
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
