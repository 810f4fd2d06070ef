import { spawn, type ChildProcess } from 'node:child_process';

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
  /** Killed (with every process it started) when its time ran out. */
  timedOut?: boolean;
}

/**
 * The helper's whole program, run by `node -e` (no TypeScript loader, so it starts in some 40 ms). It takes requests
 * on Node's IPC channel, runs each command (any number at once) and answers each with its output; it exits when its
 * parent is gone (the channel closes), not on SIGTERM or SIGINT.
 */
const helperSource = `
const { spawn } = require('node:child_process');
process.on('message', (request) => {
  let answered = false;
  const answer = (reply) => { if (!answered) { answered = true; process.send({ id: request.id, ...reply }); } };
  let child;
  try {
    child = spawn(request.command, request.args, { cwd: request.cwd, env: request.env, detached: true });
  } catch (error) {
    return answer({ error: { message: error.message, code: error.code } });
  }
  const out = [];
  const err = [];
  let timedOut = false;
  const killGroup = () => { try { process.kill(-child.pid, 'SIGKILL'); } catch {} };
  const timer = setTimeout(() => { timedOut = true; killGroup(); }, request.timeoutMs);
  child.stdout.on('data', (chunk) => out.push(chunk));
  child.stderr.on('data', (chunk) => err.push(chunk));
  child.on('error', (error) => { clearTimeout(timer); answer({ error: { message: error.message, code: error.code } }); });
  child.on('exit', () => { clearTimeout(timer); if (timedOut) killGroup(); });
  child.on('close', (code) => answer({ code: code ?? 1, stderr: Buffer.concat(err).toString('utf8'), stdout: Buffer.concat(out), timedOut }));
  child.stdin.on('error', () => undefined);
  child.stdin.end(Buffer.from(request.input));
});
process.on('disconnect', () => process.exit(0));
// a stop signal to the process group is for the parent, which lets its requests (and so these commands) finish first
process.on('SIGTERM', () => undefined);
process.on('SIGINT', () => undefined);
process.send({ ready: true });
`;

interface Reply {
  id?: number;
  ready?: true;
  code?: number;
  stderr?: string;
  /** A Buffer sent over the channel arrives as a plain Uint8Array. */
  stdout?: Uint8Array;
  error?: { message: string; code?: string };
  timedOut?: boolean;
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
    const helper = this.helper;
    if (!this.ready || !helper?.connected) return spawnHere(request);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) helper.channel?.ref();
      helper.send({ id, ...request });
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
    const helper = spawn(process.execPath, ['-e', helperSource], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      serialization: 'advanced',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    });
    this.helper = helper;
    helper.on('message', (reply: Reply) => {
      if (reply.ready) this.ready = true;
      else this.answer(reply);
    });
    helper.on('error', () => this.lost(helper));
    // 'close', not 'exit': answers still on the channel when it exits are read first
    helper.on('close', () => this.lost(helper));
    helper.unref();
    helper.channel?.unref();
  }

  private answer(reply: Reply): void {
    const pending = this.pending.get(reply.id!);
    if (!pending) return;
    this.pending.delete(reply.id!);
    if (this.pending.size === 0) this.helper?.channel?.unref();
    if (reply.error) pending.reject(Object.assign(new Error(reply.error.message), { code: reply.error.code }));
    else {
      const out = reply.stdout ?? new Uint8Array(0);
      pending.resolve({ stdout: Buffer.from(out.buffer, out.byteOffset, out.byteLength), stderr: reply.stderr ?? '', code: reply.code ?? 1, timedOut: reply.timedOut ?? false });
    }
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

/** Every process of a command's group: git and the helpers it started (git-remote-http holds the connection). */
function killGroup(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // the group is gone already
  }
}

/**
 * The same command started from this process. Each command runs in a process group of its own, and a timeout kills
 * the whole group: killing git alone left its `git-remote-http` child running, holding the remote's connection and
 * git's output pipes, so the command never ended (a migration from a silent remote held its connections for good).
 */
export function spawnHere({ command, args, cwd, env, input, timeoutMs }: SpawnRequest): Promise<SpawnResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, detached: true });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('exit', () => {
      clearTimeout(timer);
      if (timedOut) killGroup(child.pid);
    });
    child.on('close', (code) => resolve({ stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8'), code: code ?? 1, timedOut }));
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  });
}
