import { invalid } from '../errors.js';
import { spawn } from 'node:child_process';

export interface GitResult {
  stdout: Buffer;
  stderr: string;
  code: number;
}

export interface GitOptions {
  cwd: string;
  input?: string | Buffer;
  env?: Record<string, string>;
  /** Kill git after this long; the default suits small plumbing commands. */
  timeoutMs?: number;
}

/** Git's environment for every command Hearth runs: no prompts, no user config, a fixed identity fallback. */
export const gitEnv: Record<string, string> = {
  GIT_TERMINAL_PROMPT: '0',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  HOME: '/nonexistent',
  LANG: 'C',
};

/** Linux refuses to start a program with one argument of 128 KiB or more (E2BIG); such a value is refused before. */
export const maxGitArgBytes = 128 * 1024 - 1;

/** Runs the git CLI and collects its output; never throws for a non-zero exit (see `gitOk`). */
export function runGit(args: string[], { cwd, input, env, timeoutMs = 60_000 }: GitOptions): Promise<GitResult> {
  if (args.some((arg) => Buffer.byteLength(arg) > maxGitArgBytes)) return Promise.reject(invalid('a value is too long to be handed to git'));
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...gitEnv, ...env }, timeout: timeoutMs });
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

/** Runs git and returns trimmed stdout; a non-zero exit throws with git's message. */
export async function gitOk(args: string[], options: GitOptions): Promise<string> {
  const result = await runGit(args, options);
  if (result.code !== 0) throw new Error(`git ${args[0]} failed (${result.code}): ${result.stderr.trim()}`);
  return result.stdout.toString('utf8').trim();
}
