import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ExecutionContext } from 'ava';
import type { TestHearth } from '../helpers/hearth.js';

export interface GitRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** A scratch directory for one test: a HOME for git and room for clones. */
export function scratch(t: ExecutionContext): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hearth-git-test-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function spawnGit(args: string[], cwd: string, env: Record<string, string>): Promise<{ code: number; stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', LANG: 'C', ...env } });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr).toString() }));
  });
}

/** The real git client, as a user runs it: no prompts, no user or system configuration, a fixed identity. */
export async function git(home: string, args: string[], cwd = home): Promise<GitRun> {
  const run = await spawnGit(args, cwd, {
    HOME: home,
    GIT_AUTHOR_NAME: 'Tester', GIT_AUTHOR_EMAIL: 'tester@example.com',
    GIT_COMMITTER_NAME: 'Tester', GIT_COMMITTER_EMAIL: 'tester@example.com',
  });
  return { ...run, stdout: run.stdout.toString() };
}

export interface DiskRun {
  code: number;
  stdout: Buffer;
  stderr: string;
}

/**
 * Git straight on the server's disk, as an administrator on the machine would run it: no user or system
 * configuration, no identity unless `env` gives one, the output as bytes.
 */
export function gitOnDisk(args: string[], cwd: string, env: Record<string, string> = {}): Promise<DiskRun> {
  return spawnGit(args, cwd, { HOME: '/nonexistent', GIT_CONFIG_GLOBAL: '/dev/null', ...env });
}

/** `gitOnDisk` that insists on success: its output, trimmed. */
export async function okOnDisk(args: string[], cwd: string, env?: Record<string, string>): Promise<string> {
  const result = await gitOnDisk(args, cwd, env);
  if (result.code !== 0) throw new Error(`git ${args[0]} failed (${result.code}): ${result.stderr.trim()}`);
  return result.stdout.toString('utf8').trim();
}

/** http://[user:secret@]127.0.0.1:PORT/owner/repo.git */
export function remote(hearth: TestHearth, owner: string, repo: string, credentials?: { user: string; secret: string }): string {
  const url = new URL(`${owner}/${repo}.git`, hearth.rootUrl);
  if (credentials) {
    url.username = credentials.user;
    url.password = credentials.secret;
  }
  return url.toString();
}

/** A fresh local repository on `branch` with one commit per file given. */
export async function localRepo(home: string, name: string, branch: string, files: Record<string, string>): Promise<string> {
  const dir = path.join(home, name);
  await ok(git(home, ['init', '--quiet', `--initial-branch=${branch}`, dir]));
  for (const [file, content] of Object.entries(files)) await commitFile(home, dir, file, content);
  return dir;
}

export async function commitFile(home: string, dir: string, file: string, content: string, message = `add ${file}`): Promise<string> {
  writeFileSync(path.join(dir, file), content);
  await ok(git(home, ['add', file], dir));
  await ok(git(home, ['commit', '--quiet', '-m', message], dir));
  return (await ok(git(home, ['rev-parse', 'HEAD'], dir))).trim();
}

/** Runs git and insists that it succeeded, returning its stdout. */
export async function ok(run: Promise<GitRun>): Promise<string> {
  const result = await run;
  if (result.code !== 0) throw new Error(`git failed (${result.code}): ${result.stderr}`);
  return result.stdout;
}

/** A ref's value in a bare repository on the server, or null. */
export async function refOnServer(hearth: TestHearth, owner: string, repo: string, ref: string): Promise<string | null> {
  const dir = hearth.deps.git.pathOf(owner, repo);
  const result = await git(os.tmpdir(), ['--git-dir', dir, 'rev-parse', '--verify', '--quiet', ref]);
  return result.code === 0 ? result.stdout.trim() : null;
}
