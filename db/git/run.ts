import { invalid } from '../errors.js';
import { Spawner } from './spawner.js';

export interface GitResult {
  stdout: Buffer;
  stderr: string;
  code: number;
  /** Killed, with every process it started, when `timeoutMs` ran out. */
  timedOut?: boolean;
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

/**
 * Where this process's buffered git commands start: one helper process per process, so that starting git does not
 * fork this (large) process on its event loop. Module-wide on purpose: like libuv's own table of child processes, it
 * is how the process starts programs, not state a caller chooses or a test replaces.
 */
const spawner = new Spawner();

/** Runs the git CLI and collects its output; never throws for a non-zero exit (see `gitOk`). */
export function runGit(args: string[], { cwd, input, env, timeoutMs = 60_000 }: GitOptions): Promise<GitResult> {
  if (args.some((arg) => Buffer.byteLength(arg) > maxGitArgBytes)) return Promise.reject(invalid('a value is too long to be handed to git'));
  return spawner.run({
    command: 'git', args, cwd, timeoutMs,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...gitEnv, ...env },
    input: typeof input === 'string' ? Buffer.from(input) : (input ?? Buffer.alloc(0)),
  });
}

/** Runs git and returns trimmed stdout; a non-zero exit throws with git's message. */
export async function gitOk(args: string[], options: GitOptions): Promise<string> {
  const result = await runGit(args, options);
  if (result.code !== 0) throw new Error(`git ${args[0]} failed (${result.code}): ${result.stderr.trim()}`);
  return result.stdout.toString('utf8').trim();
}
