import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import pg from 'pg';
import { nodeBundle } from '../scripts/node-bundle.mjs';
import { createDataSource, migrate } from '../db/data-source.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../db/process/embedded.js';
import { createQueue, startQueue } from '../jobs/queue.js';

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

/** A source path of the command line (`tests/x/y.test.ts`, `tests/x`) as its bundled path; pick tests with `--match`. */
const bundledArg = (arg: string): string => (/^(\.\/)?tests\//.test(arg) ? path.join(compiled, arg.replace(/\.ts$/, '.js')) : arg);

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

async function main(): Promise<number> {
  let embedded: EmbeddedDatabase | undefined;
  let scratch: string | undefined;
  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    scratch = mkdtempSync(path.join(os.tmpdir(), 'hearth-test-'));
    chmodSync(scratch, 0o755);
    // A throwaway cluster: nothing in it must survive a crash, so it never waits for the disk. synchronous_commit
    // keeps its default, which tests of Hearth's own commit settings read.
    embedded = await startEmbeddedPostgres({
      dir: path.join(scratch, 'db'),
      port: await freePort(),
      settings: { fsync: 'off', full_page_writes: 'off' },
    });
    adminUrl = embedded.url;
  }
  const template = `hearth_tpl_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${template}`);
    const templateUrl = withDatabase(adminUrl, template);
    const ds = createDataSource(templateUrl, 'hearth-test-template');
    await ds.initialize();
    await migrate(ds);
    await ds.destroy();
    const boss = createQueue({ connectionString: templateUrl, role: 'web' });
    await startQueue(boss, templateUrl);
    await boss.stop({ graceful: false, wait: true });

    await bundleTests();
    const avaArgs = ['--config', path.join('tests', 'ava.config.mjs'), ...process.argv.slice(2).map(bundledArg)];
    const ava = spawn(process.execPath, [path.join('node_modules', 'ava', 'entrypoints', 'cli.mjs'), ...avaArgs], {
      stdio: 'inherit',
      env: { ...process.env, HEARTH_TEST_ADMIN_URL: adminUrl, HEARTH_TEST_TEMPLATE: template },
    });
    return await new Promise<number>((resolve) => ava.on('exit', (code) => resolve(code ?? 1)));
  } finally {
    // the embedded cluster goes whole with its directory; a server of the developer's keeps nothing of ours
    if (!embedded) {
      const leftovers = await admin.query<{ datname: string }>(
        `SELECT datname FROM pg_database WHERE datname LIKE $1 OR datname = $2`,
        [`hearth_t_${process.pid}\\_%`, template],
      );
      for (const { datname } of leftovers.rows) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    }
    await admin.end();
    if (embedded) await embedded.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
