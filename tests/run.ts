import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, rmSync, statfsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { nodeBundle } from '../scripts/node-bundle.mjs';
import { exitWith, withTemplateDatabase } from './helpers/template-db.js';

/**
 * `npm test`: a real PostgreSQL (embedded unless DATABASE_URL is set), one migrated template database
 * (schema, pg-boss and its queues), then ava. Each test file clones the template in milliseconds.
 * Ava runs the test files bundled by esbuild (each with what it imports, Hearth's modules shared between them as
 * chunks, packages left to node_modules): a process then loads a few files instead of some 500 modules through tsx's
 * loader, which had been most of each test file's cost. Paths given on the command line (`tests/hooks`,
 * `tests/jobs/batch.test.ts`) name the sources; the processes tests start still run the sources under tsx.
 */
const compiled = path.join('tests', '.compiled');

async function bundleTests(): Promise<void> {
  const testFiles = (readdirSync('tests', { recursive: true }) as string[])
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => path.join('tests', file));
  rmSync(compiled, { recursive: true, force: true });
  await build({
    entryPoints: testFiles,
    outdir: compiled,
    outbase: '.',
    ...nodeBundle,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
  });
}

/**
 * Where the throwaway cluster goes: memory (/dev/shm) when it has room for it, else the temporary directory. The
 * suite's clones come to some 4 GB, and removing them from a disk took half a minute after the last test.
 */
function scratchBase(): string {
  try {
    const shm = statfsSync('/dev/shm');
    if (shm.bavail * shm.bsize > 12 * 2 ** 30) return '/dev/shm';
  } catch {
    // no /dev/shm on this system
  }
  return os.tmpdir();
}

/** A source path of the command line (`tests/x/y.test.ts`, `tests/x`) as its bundled path; pick tests with `--match`. */
const bundledArg = (arg: string): string => (/^(\.\/)?tests\//.test(arg) ? path.join(compiled, arg.replace(/\.ts$/, '.js')) : arg);

/**
 * Ctrl-C and SIGTERM end the run rather than this process: ava is told (a terminal's Ctrl-C reaches it anyway), and the
 * cluster and its directory, in memory when /dev/shm took it, still go.
 */
let interrupted = false;
let ava: ChildProcess | undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    interrupted = true;
    ava?.kill(signal);
  });
}

async function main(): Promise<number> {
  return withTemplateDatabase(scratchBase(), async ({ adminUrl, template }) => {
    await bundleTests();
    if (interrupted) return 130;
    const avaArgs = ['--config', path.join('tests', 'ava.config.mjs'), ...process.argv.slice(2).map(bundledArg)];
    const child = spawn(process.execPath, [path.join('node_modules', 'ava', 'entrypoints', 'cli.mjs'), ...avaArgs], {
      stdio: 'inherit',
      env: { ...process.env, HEARTH_TEST_ADMIN_URL: adminUrl, HEARTH_TEST_TEMPLATE: template },
    });
    ava = child;
    return new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? (interrupted ? 130 : 1))));
  });
}

exitWith(main);
