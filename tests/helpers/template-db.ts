import pg from 'pg';
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
