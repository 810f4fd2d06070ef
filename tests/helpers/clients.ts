import { spawn, spawnSync } from 'node:child_process';

export interface ClientRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a package client (npm, cargo, mvn, ...) with its own environment and no input; never throws on failure. */
export function runClient(command: string, args: string[], options: { cwd: string; env: Record<string, string>; timeoutMs?: number }): Promise<ClientRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: { PATH: process.env.PATH ?? '', ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

/** Whether a client is installed: a test without it is skipped with the reason printed (a raw-HTTP test covers the protocol). */
export function hasClient(command: string, versionArgs: string[] = ['--version']): boolean {
  try {
    return spawnSync(command, versionArgs, { stdio: 'ignore', timeout: 30_000 }).status === 0;
  } catch {
    return false;
  }
}
