import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../db/process/startup.js';

export interface StartFigure {
  /** `npm start` on an empty data directory: the cluster is initialised, migrations run. */
  firstMs: number;
  /** `npm start` again, nothing rebuilt: what an operator waits for after a restart. */
  secondMs: number;
}

/**
 * Time from `npm start` to the first 200 from /api/healthz, twice on one fresh data directory with the embedded
 * PostgreSQL; each run is stopped with SIGTERM to npm, as a service manager would.
 */
export async function measureStart(root: string): Promise<StartFigure> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'hearth-bench-start-'));
  chmodSync(dataDir, 0o755);
  try {
    await startOnce(root, dataDir); // a build, when sources changed, is not part of either figure
    const firstMs = await startOnce(root, dataDir, true);
    const secondMs = await startOnce(root, dataDir);
    return { firstMs, secondMs };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function startOnce(root: string, dataDir: string, fresh = false): Promise<number> {
  if (fresh) rmSync(path.join(dataDir, 'db'), { recursive: true, force: true });
  const port = await freePort();
  const { DATABASE_URL: _embedded, ...env } = process.env;
  const started = Date.now();
  const npm = spawn('npm', ['start', '--silent'], { cwd: root, env: { ...env, PORT: String(port), HEARTH_DATA_DIR: dataDir, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise<void>((resolve) => npm.once('exit', () => resolve()));
  try {
    for (const deadline = started + 180_000; Date.now() < deadline; ) {
      if (npm.exitCode !== null) throw new Error(`npm start exited with ${npm.exitCode}`);
      const status = await fetch(`http://127.0.0.1:${port}/api/healthz`).then((response) => response.status, () => 0);
      if (status === 200) return Date.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('no healthz 200 within 180 s');
  } finally {
    npm.kill('SIGTERM');
    await exited;
  }
}
