import { readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { knownPgBossSchema } from '../../workers/job-runner.js';
import { startHearth } from '../helpers/hearth.js';
import { root } from '../helpers/processes.js';

test('the pg-boss schema in the database is the one the job runner reads its tables by, and pg-boss is pinned exactly', async (t) => {
  const hearth = await startHearth(t);
  const [row] = await hearth.store.db.query<{ version: number }>('SELECT version FROM pgboss.version');
  t.is(row.version, knownPgBossSchema, 'pg-boss migrated its tables to a schema workers/job-runner.ts does not know: see docs/fast-paths.md');
  const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  t.regex(manifest.dependencies['pg-boss'], /^\d+\.\d+\.\d+$/, 'an exact version, no range');
});
