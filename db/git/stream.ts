import { spawn } from 'node:child_process';
import { PassThrough, type Readable } from 'node:stream';
import { gitEnv } from './run.js';

export interface StreamOptions {
  cwd: string;
  env?: Record<string, string>;
  /** Kill git after this long; archives of large repositories take a while. */
  timeoutMs?: number;
}

/**
 * Runs git and hands its standard output over as a stream, never buffered whole. A non-zero exit turns into
 * a stream error, so a half-sent download is cut off rather than passed off as complete; closing the stream
 * early (the client went away) stops git.
 */
export function streamGit(args: string[], { cwd, env, timeoutMs = 10 * 60_000 }: StreamOptions): Readable {
  const child = spawn('git', args, {
    cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...gitEnv, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: timeoutMs,
  });
  const out = new PassThrough();
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderr.length < 4096) stderr += chunk.toString('utf8');
  });
  child.stdout.pipe(out, { end: false });
  child.on('error', (error) => out.destroy(error));
  child.on('close', (code) => {
    if (code === 0) out.end();
    else out.destroy(new Error(`git ${args[0]} failed (${code}): ${stderr.trim()}`));
  });
  out.on('close', () => {
    if (child.exitCode === null && child.signalCode === null) child.kill();
  });
  return out;
}
