import test from 'ava';
import pg from 'pg';
import { drain } from '../helpers/drain.js';
import { startHearth } from '../helpers/hearth.js';
import { Spawner } from '../../db/git/spawner.js';
import { repoWithFeature } from './pull-setup.js';
import { advanceMain, openPull } from './merge-helpers.js';

/**
 * The statements (each a round trip to PostgreSQL) and git processes one request costs, counted on the web process's
 * pg clients and git spawner while only that request runs (the tests run one at a time, after the queues are drained). Figures of docs/benchmarks.md; the bounds keep them there.
 */
interface Counted {
  statements: string[];
  gits: string[][];
}

async function counting<T>(work: () => Promise<T>): Promise<{ result: T } & Counted> {
  const counted: Counted = { statements: [], gits: [] };
  const query = pg.Client.prototype.query;
  const run = Spawner.prototype.run;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text?: string };
    counted.statements.push(typeof first === 'string' ? first : first?.text ?? '?');
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  Spawner.prototype.run = function (this: Spawner, request) {
    counted.gits.push(request.args);
    return run.call(this, request);
  };
  try {
    const result = await work();
    return { result, ...counted };
  } finally {
    pg.Client.prototype.query = query;
    Spawner.prototype.run = run;
  }
}

const show = (c: Counted): string => [...c.statements.map((s) => s.replace(/\s+/g, ' ').slice(0, 160)), ...c.gits.map((a) => `git ${a.join(' ')}`)].join('\n');

test.serial('a pull request merge: statements and git processes', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const clone = await repoWithFeature(t, hearth, alice, 'counted');
  await advanceMain(clone);
  const index = await openPull(hearth, alice, 'counted');
  await drain(hearth);
  // warm: the first request of a route prepares what later ones reuse
  await hearth.call('GET', `/repos/alice/counted/pulls/${index}`, { auth: alice.bearer });
  const merge = await counting(() => hearth.call('POST', `/repos/alice/counted/pulls/${index}/merge`, { auth: alice.bearer, body: { Do: 'merge' } }));
  t.is(merge.result.status, 200, JSON.stringify(merge.result.body));
  t.log(`merge: ${merge.statements.length} statements, ${merge.gits.length} git processes\n${show(merge)}`);
  // 17 statements before the rules were read once and the schedule, counter and close folded into their statements
  t.true(merge.statements.length <= 14, `${merge.statements.length} statements`);
  t.deepEqual(merge.gits.map((args) => args[0]), ['merge-tree', 'commit-tree', 'update-ref']);
});

test.serial('creating an issue: statements', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  await hearth.call('POST', '/user/repos', { auth: alice.bearer, body: { name: 'inbox' } });
  await hearth.call('POST', '/repos/alice/inbox/issues', { auth: alice.bearer, body: { title: 'first' } });
  await drain(hearth);
  const created = await counting(() => hearth.call('POST', '/repos/alice/inbox/issues', { auth: alice.bearer, body: { title: 'An issue', body: 'text' } }));
  t.is(created.result.status, 201);
  t.log(`issue: ${created.statements.length} statements, ${created.gits.length} git processes\n${show(created)}`);
  // 9 before the notify job was queued by the first statement
  t.true(created.statements.length <= 8, `${created.statements.length} statements`);
  t.is(created.gits.length, 0);
  const [{ jobs }] = await hearth.store.db.query<{ jobs: number }>(
    `SELECT count(*)::int AS jobs FROM pgboss.job j JOIN domain_event e ON e.id = (j.data->>'eventId')::bigint WHERE j.name = 'notify' AND e.kind = 'issue.opened' AND e.payload->>'index' = '2'`,
  );
  t.is(jobs, 1, 'the issue.opened event of the counted creation has its notify job');
});

test.serial("a pull request's commits and a page of its files: statements and git processes", async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const clone = await repoWithFeature(t, hearth, alice, 'listed');
  await clone.commit('second.txt', 'second\n', 'second');
  await clone.push('feature');
  const index = await openPull(hearth, alice, 'listed');
  await drain(hearth);
  const commits = await counting(() => hearth.call('GET', `/repos/alice/listed/pulls/${index}/commits`, { auth: alice.bearer }));
  t.is(commits.result.status, 200);
  t.log(`commits: ${commits.statements.length} statements, ${commits.gits.length} git processes\n${show(commits)}`);
  const files = await counting(() => hearth.call('GET', `/repos/alice/listed/pulls/${index}/files?limit=1&page=2`, { auth: alice.bearer }));
  t.is(files.result.status, 200);
  t.log(`files: ${files.statements.length} statements, ${files.gits.length} git processes\n${show(files)}`);
  t.true(commits.statements.length <= 4 && commits.gits.length === 1, show(commits));
  t.true(files.statements.length <= 3 && files.gits.length === 0, show(files));
});
