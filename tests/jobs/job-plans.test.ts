import { createRequire } from 'node:module';
import test from 'ava';
import pg from 'pg';
import { recordAttemptsParams, recordAttemptsSql } from '../../db/models/hooks/hook-tasks.js';
import { fetchClaimed, fetchClaimedSql } from '../../jobs/lost-jobs.js';
import { withIdLookups } from '../../jobs/prepared-db.js';
import { completeJobs } from '../../jobs/queue.js';
import { startHearth } from '../helpers/hearth.js';

/** pg-boss's own statements, as its manager builds them for the `pgboss` schema. */
const bossPlans = createRequire(import.meta.url)('pg-boss/src/plans.js') as Record<'completeJobs' | 'failJobsById', (schema: string) => string>;

const queue = 'plans-test';
/** Where pg-boss's own completion, planned generically, hashed the whole queue rather than looking its ids up. */
const keptJobs = 1_100;

/** The plan PostgreSQL keeps for a prepared statement on a worker's job connection (force_generic_plan), as JSON text. */
async function genericPlan(client: pg.Client, name: string, sql: string, args: string): Promise<string> {
  await client.query(`PREPARE ${name} AS ${sql}`);
  const { rows } = await client.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) EXECUTE ${name}(${args})`);
  return JSON.stringify(rows[0]['QUERY PLAN']);
}

test('fetching, completing and failing jobs look up only the jobs they name, however many finished jobs the queue keeps', async (t) => {
  const hearth = await startHearth(t);
  const { boss } = hearth.store;
  await boss.createQueue(queue, { name: queue, retryLimit: 0 });
  await hearth.store.db.query(
    `INSERT INTO pgboss.job (name, data, state, started_on, completed_on)
     SELECT $1, jsonb_build_object('n', n), 'completed', now(), now() FROM generate_series(1, $2::int) n`,
    [queue, keptJobs],
  );
  await boss.insert([1, 2, 3].map((n) => ({ name: queue, data: { n } })));
  await hearth.store.db.query('ANALYZE pgboss.job');

  const client = new pg.Client({ connectionString: hearth.databaseUrl, options: '-c plan_cache_mode=force_generic_plan' });
  await client.connect();
  t.teardown(() => client.end());
  const plans = {
    fetch: await genericPlan(client, 'fetch_jobs', fetchClaimedSql, `'${queue}', 10, 1`),
    complete: await genericPlan(client, 'complete_jobs', withIdLookups(bossPlans.completeJobs('pgboss')), `'${queue}', ARRAY[gen_random_uuid()], '{}'`),
    fail: await genericPlan(client, 'fail_jobs', withIdLookups(bossPlans.failJobsById('pgboss')), `'${queue}', ARRAY[gen_random_uuid()], '{}'`),
  };
  for (const [statement, plan] of Object.entries(plans)) {
    t.false(plan.includes('"Seq Scan"'), `${statement} scans the queue: ${plan}`);
    t.true(plan.includes('"Index Scan"'), `${statement} uses no index: ${plan}`);
  }

  // and they still do their work: the three waiting jobs fetched and completed, the kept ones untouched
  const fetched = await fetchClaimed(boss, queue, 10, 7);
  t.is(fetched.length, 3);
  await completeJobs(boss, queue, fetched.map((job) => job.id), { value: 'done' });
  const states = await hearth.store.db.query<{ state: string; count: string }>(
    'SELECT state::text, count(*) FROM pgboss.job WHERE name = $1 GROUP BY state ORDER BY state', [queue],
  );
  t.deepEqual(states.map((row) => [row.state, Number(row.count)]), [['completed', keptJobs + 3]]);
  const outputs = await hearth.store.db.query<{ output: unknown }>('SELECT output FROM pgboss.job WHERE id = ANY($1::uuid[])', [fetched.map((job) => job.id)]);
  t.deepEqual(outputs.map((row) => row.output), [{ value: 'done' }, { value: 'done' }, { value: 'done' }]);
});

/** The relations a plan (EXPLAIN's JSON) reads with a sequential scan. */
function scannedWhole(plan: unknown): string[] {
  const node = plan as { 'Node Type'?: string; 'Relation Name'?: string; Plans?: unknown[]; Plan?: unknown };
  const own = node['Node Type'] === 'Seq Scan' && node['Relation Name'] ? [node['Relation Name']] : [];
  return [...own, ...[node.Plan, ...(node.Plans ?? [])].filter(Boolean).flatMap(scannedWhole)];
}

test("a delivery's record looks up only its task and its job, however many tasks and finished deliveries are kept", async (t) => {
  const hearth = await startHearth(t);
  const { db } = hearth.store;
  const [hook] = await db.query<{ id: number }>(
    `INSERT INTO webhook (is_system, type, url, content_type, is_active) VALUES (true, 'gitea', 'http://127.0.0.1:9/', 'json', true) RETURNING id::int`,
  );
  await db.query(
    `INSERT INTO hook_task (hook_id, uuid, event_type, payload, is_delivered, is_succeed) SELECT $1, gen_random_uuid(), 'push', '{}', true, true
       FROM generate_series(1, $2::int)`,
    [hook.id, keptJobs],
  );
  await db.query(
    `INSERT INTO pgboss.job (name, data, state, started_on, completed_on)
     SELECT 'webhook-delivery', jsonb_build_object('n', n), 'completed', now(), now() FROM generate_series(1, $1::int) n`,
    [keptJobs],
  );
  const [task] = await db.query<{ id: number }>(
    `INSERT INTO hook_task (hook_id, uuid, event_type, payload) VALUES ($1, gen_random_uuid(), 'push', '{}') RETURNING id::int`, [hook.id],
  );
  const [job] = await db.query<{ id: string }>(
    `INSERT INTO pgboss.job (name, data, state, started_on) VALUES ('webhook-delivery', jsonb_build_object('taskId', $1::int), 'active', now()) RETURNING id`,
    [task.id],
  );
  await db.query('ANALYZE pgboss.job');
  await db.query('ANALYZE hook_task');

  const attempt = {
    started: new Date().toISOString(), duration_ms: 3, request: { url: 'http://127.0.0.1:9/', method: 'POST', headers: {} },
    response: { status: 200, headers: {}, body: 'ok' }, error: null, success: true,
  };
  const params = recordAttemptsParams([{ taskId: task.id, attempt, final: true, refused: null, completes: { jobId: job.id, outcome: 'delivered' } }]);
  // planned as the worker's pooled connection plans it: with the parameters' values
  const [explained] = await db.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${recordAttemptsSql}`, params);
  const scanned = scannedWhole((explained['QUERY PLAN'] as unknown[])[0]);
  t.deepEqual(scanned.filter((relation) => relation === 'hook_task' || relation.startsWith('j')), [], JSON.stringify(explained['QUERY PLAN']));

  await db.query(recordAttemptsSql, params);
  const [recorded] = await db.query<{ is_delivered: boolean; is_succeed: boolean; attempts: unknown[] }>(
    'SELECT is_delivered, is_succeed, attempts FROM hook_task WHERE id = $1', [task.id],
  );
  t.deepEqual(recorded, { is_delivered: true, is_succeed: true, attempts: [attempt] });
  const [completed] = await db.query<{ state: string; output: unknown }>('SELECT state::text, output FROM pgboss.job WHERE id = $1', [job.id]);
  t.deepEqual(completed, { state: 'completed', output: { value: 'delivered' } });
  const [{ last_status }] = await db.query<{ last_status: number }>('SELECT last_status FROM webhook WHERE id = $1', [hook.id]);
  t.is(last_status, 1);
});
