import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../db/process/embedded.js';
import { freePort } from '../../db/process/startup.js';
import { createDataSource, migrate } from '../../db/data-source.js';
import { createQueue, startQueue } from '../../jobs/queue.js';

/**
 * The migrated template database the tests (and the drills) clone: Hearth's schema, pg-boss and its queues, made once
 * on the server at `adminUrl` as `template`.
 */
export async function createTemplateDatabase(admin: pg.Client, adminUrl: string, template: string): Promise<void> {
  await admin.query(`CREATE DATABASE ${template}`);
  const url = new URL(adminUrl);
  url.pathname = `/${template}`;
  const templateUrl = url.toString();
  const ds = createDataSource(templateUrl, 'hearth-test-template');
  await ds.initialize();
  await migrate(ds);
  await ds.destroy();
  const boss = createQueue({ connectionString: templateUrl, role: 'web' });
  await startQueue(boss, templateUrl);
  await boss.stop({ graceful: false, wait: true });
}

/** Drops the template and every clone of it (`hearth_t_<pid>_…`) left on a server that outlives the run. */
export async function dropTemplateDatabases(admin: pg.Client, template: string): Promise<void> {
  const clones = `${template.replace('hearth_tpl_', 'hearth_t_')}\\_%`;
  const leftovers = await admin.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1 OR datname = $2', [clones, template]);
  for (const { datname } of leftovers.rows) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
}

/**
 * Runs `work` with a migrated template database: on DATABASE_URL's server, or on a throwaway embedded cluster in a
 * fresh folder under `scratchBase` (nothing in it must survive a crash, so it never waits for the disk;
 * synchronous_commit keeps its default, which tests of Hearth's own commit settings read). Afterwards the cluster goes
 * whole with its folder, and a server of the developer's keeps nothing of the run's.
 */
export async function withTemplateDatabase<T>(scratchBase: string, work: (database: { adminUrl: string; template: string }) => Promise<T>): Promise<T> {
  let embedded: EmbeddedDatabase | undefined;
  let scratch: string | undefined;
  let admin: pg.Client | undefined;
  const template = `hearth_tpl_${process.pid}`;
  try {
    let adminUrl = process.env.DATABASE_URL;
    if (!adminUrl) {
      scratch = mkdtempSync(path.join(scratchBase, 'hearth-test-'));
      chmodSync(scratch, 0o755);
      embedded = await startEmbeddedPostgres({ dir: path.join(scratch, 'db'), port: await freePort(), settings: { fsync: 'off', full_page_writes: 'off' } });
      adminUrl = embedded.url;
    }
    admin = new pg.Client({ connectionString: adminUrl });
    // a cluster stopped by Ctrl-C drops this idle connection; the run still has its cleaning up to do
    admin.on('error', () => undefined);
    await admin.connect();
    await createTemplateDatabase(admin, adminUrl, template);
    return await work({ adminUrl, template });
  } finally {
    if (!embedded && admin) await dropTemplateDatabases(admin, template).catch(() => undefined);
    await admin?.end().catch(() => undefined);
    if (embedded) await embedded.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}

/** Runs a command line's `main` and exits with its code (1, with the error printed, when it throws). */
export function exitWith(main: () => Promise<number>): void {
  main().then(
    (code) => process.exit(code),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
