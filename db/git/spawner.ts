import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';

/** One buffered command for the helper: what `spawn` takes, with everything git reads on standard input. */
export interface SpawnRequest {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  input: Buffer;
  timeoutMs: number;
}

export interface SpawnResult {
  stdout: Buffer;
  stderr: string;
  /** The exit code; 1 for a process ended by a signal (a timeout), as `runGit` reports it. */
  code: number;
}

/**
 * The helper's whole program, run by `node -e` (no TypeScript loader, so it starts in some 40 ms). It reads request
 * frames on standard input, runs each command (any number at once), and answers one frame per command on standard
 * output; it exits when its parent closes standard input (the parent ended), not on SIGTERM or SIGINT.
 * A frame is a u32 length and a JSON header, then a u32 length and the bytes of standard input or output.
 */
const helperSource = `
const { spawn } = require('node:child_process');
const chunks = [];
let buffered = 0;
function take(n) {
  const all = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
  chunks.length = 0;
  if (all.length > n) chunks.push(all.subarray(n));
  buffered = all.length - n;
  return all.subarray(0, n);
}
function peek(at) {
  if (chunks[0].length < at + 4) chunks.splice(0, chunks.length, Buffer.concat(chunks));
  return chunks[0].readUInt32LE(at);
}
function reply(id, header, body) {
  const head = Buffer.from(JSON.stringify({ id, ...header }));
  const frame = Buffer.allocUnsafe(8 + head.length);
  frame.writeUInt32LE(head.length, 0);
  head.copy(frame, 4);
  frame.writeUInt32LE(body.length, 4 + head.length);
  process.stdout.write(frame);
  if (body.length) process.stdout.write(body);
}
function run(request, input) {
  let answered = false;
  const answer = (header, body) => { if (!answered) { answered = true; reply(request.id, header, body); } };
  let child;
  try {
    child = spawn(request.command, request.args, { cwd: request.cwd, env: request.env, timeout: request.timeoutMs });
  } catch (error) {
    return answer({ error: { message: error.message, code: error.code } }, Buffer.alloc(0));
  }
  const out = [];
  const err = [];
  child.stdout.on('data', (chunk) => out.push(chunk));
  child.stderr.on('data', (chunk) => err.push(chunk));
  child.on('error', (error) => answer({ error: { message: error.message, code: error.code } }, Buffer.alloc(0)));
  child.on('close', (code) => answer({ code: code ?? 1, stderr: Buffer.concat(err).toString('utf8') }, Buffer.concat(out)));
  child.stdin.on('error', () => undefined);
  child.stdin.end(input);
}
process.stdin.on('data', (chunk) => {
  chunks.push(chunk);
  buffered += chunk.length;
  for (;;) {
    if (buffered < 4) return;
    const headLength = peek(0);
    if (buffered < 8 + headLength) return;
    const inputLength = peek(4 + headLength);
    if (buffered < 8 + headLength + inputLength) return;
    const frame = take(8 + headLength + inputLength);
    run(JSON.parse(frame.toString('utf8', 4, 4 + headLength)), frame.subarray(8 + headLength));
  }
});
process.stdin.on('end', () => process.exit(0));
// a stop signal to the process group is for the parent, which lets its requests (and so these commands) finish first
process.on('SIGTERM', () => undefined);
process.on('SIGINT', () => undefined);
process.stdout.write('R');
`;

/** The reply frames of the helper, parsed as their bytes arrive. */
class ReplyReader {
  private chunks: Buffer[] = [];
  private buffered = 0;

  push(chunk: Buffer, each: (header: ReplyHeader, body: Buffer) => void): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    for (;;) {
      if (this.buffered < 4) return;
      const headLength = this.u32(0);
      if (this.buffered < 8 + headLength) return;
      const bodyLength = this.u32(4 + headLength);
      if (this.buffered < 8 + headLength + bodyLength) return;
      const frame = this.take(8 + headLength + bodyLength);
      each(JSON.parse(frame.toString('utf8', 4, 4 + headLength)) as ReplyHeader, frame.subarray(8 + headLength));
    }
  }

  private u32(at: number): number {
    if (this.chunks[0].length < at + 4) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0].readUInt32LE(at);
  }

  private take(n: number): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
    this.chunks = all.length > n ? [all.subarray(n)] : [];
    this.buffered = all.length - n;
    return all.subarray(0, n);
  }
}

interface ReplyHeader {
  id: number;
  code?: number;
  stderr?: string;
  error?: { message: string; code?: string };
}

interface Pending {
  resolve: (result: SpawnResult) => void;
  reject: (error: Error) => void;
}

/**
 * Starts short, buffered commands from a small long-lived helper process instead of from this one. Node forks the
 * calling process to start a program, on its event loop: from a web process of 220 MiB that blocks every request for
 * 3 to 4 ms per git command, from the helper (some 40 MiB) below 1 ms, and not on this process's loop. The helper is
 * started on first use; until it says it is ready, and whenever it is gone, commands are started here as before.
 * It never keeps this process alive by itself, and ends with it.
 */
export class Spawner {
  private helper: ChildProcess | null = null;
  private ready = false;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  /** Runs `command` and collects its output; rejects only when it cannot be started (a missing directory, say). */
  run(request: SpawnRequest): Promise<SpawnResult> {
    this.start();
    if (!this.ready || !this.helper?.stdin?.writable) return spawnHere(request);
    const id = this.nextId++;
    const head = Buffer.from(JSON.stringify({ id, command: request.command, args: request.args, cwd: request.cwd, env: request.env, timeoutMs: request.timeoutMs }));
    const frame = Buffer.allocUnsafe(8 + head.length);
    frame.writeUInt32LE(head.length, 0);
    head.copy(frame, 4);
    frame.writeUInt32LE(request.input.length, 4 + head.length);
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) (this.helper!.stdout as Socket).ref();
      this.helper!.stdin!.write(frame);
      if (request.input.length) this.helper!.stdin!.write(request.input);
    });
  }

  /** Stops the helper at once (commands then start here); the next `run` starts a new one. */
  stop(): void {
    this.helper?.kill('SIGKILL');
  }

  /** The helper's process id, once started. */
  get pid(): number | undefined {
    return this.helper?.pid;
  }

  private start(): void {
    if (this.helper) return;
    // a plain node without this process's loaders and flags: nothing to compile, nothing inherited
    const helper = spawn(process.execPath, ['-e', helperSource], { stdio: ['pipe', 'pipe', 'inherit'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
    this.helper = helper;
    const replies = new ReplyReader();
    helper.stdout!.once('data', (first: Buffer) => {
      this.ready = true;
      if (first.length > 1) replies.push(first.subarray(1), (header, body) => this.answer(header, body));
      helper.stdout!.on('data', (chunk: Buffer) => replies.push(chunk, (header, body) => this.answer(header, body)));
    });
    helper.stdin!.on('error', () => undefined);
    helper.on('error', () => this.lost(helper));
    // 'close', not 'exit': answers still in the pipe when it exits are read first
    helper.on('close', () => this.lost(helper));
    helper.unref();
    (helper.stdin as Socket).unref();
    (helper.stdout as Socket).unref();
  }

  private answer(header: ReplyHeader, body: Buffer): void {
    const pending = this.pending.get(header.id);
    if (!pending) return;
    this.pending.delete(header.id);
    if (this.pending.size === 0) (this.helper?.stdout as Socket | undefined)?.unref();
    if (header.error) pending.reject(Object.assign(new Error(header.error.message), { code: header.error.code }));
    else pending.resolve({ stdout: body, stderr: header.stderr ?? '', code: header.code ?? 1 });
  }

  private lost(helper: ChildProcess): void {
    if (this.helper !== helper) return;
    this.helper = null;
    this.ready = false;
    const error = new Error('the process that starts git ended before git answered');
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
  }
}

/** The same command started from this process. */
export function spawnHere({ command, args, cwd, env, input, timeoutMs }: SpawnRequest): Promise<SpawnResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, timeout: timeoutMs });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8'), code: code ?? 1 }));
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  });
}
