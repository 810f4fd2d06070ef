import test, { type ExecutionContext } from 'ava';
import pg from 'pg';
import { pino } from 'pino';
import { schedulePlanner } from '../../actors/schedule-planner.js';
import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import { actorDeps } from '../../workers/subscribe.js';
import { enqueueDuePlans, startActionsClock } from '../../workers/actions-clock.js';
import type { TestHearth } from '../helpers/hearth.js';
import type { RepoRow } from '../../db/models/repos/repo-row.js';
import { killAll, launch, type Launcher } from '../helpers/processes.js';
import { actionsHearth, definitionChecker, push, runsOf } from './run-helpers.js';

const nightly = (cron: string): string => `on:
  schedule:
    - cron: "${cron}"
jobs:
  n:
    runs-on: ubuntu-latest
    steps: [{run: echo nightly}]
`;

const plansOf = (h: TestHearth, repo: RepoRow) =>
  h.store.db.query<{ id: string; workflow_path: string; specs: string[] }>('SELECT id, workflow_path, specs FROM action_schedule WHERE repo_id = $1 ORDER BY id', [repo.id]);

/** Makes every plan of the repository due now and lets the clock and the planner fire them. */
async function fireDue(h: TestHearth, repo: RepoRow): Promise<void> {
  await h.store.db.query(`UPDATE action_schedule SET next_run = date_trunc('minute', now()) - interval '1 minute' WHERE repo_id = $1`, [repo.id]);
  await enqueueDuePlans(h.store);
  await drain(h, 'schedule-planner');
}

test('plans follow the default branch: made by a push there, replaced when the cron changes, none from another branch', async (t) => {
  const h = await actionsHearth(t);
  const alice = await h.createUser('alice');
  const repo = await build.repo(h, alice, { name: 'app', autoInit: true, defaultBranch: 'main' });
  await push(h, repo, { '.gitea/workflows/nightly.yml': nightly('0 3 * * *'), '.gitea/workflows/ci.yml': 'on: push\njobs:\n  a:\n    runs-on: x\n    steps: [{run: echo}]\n' });
  const listed = await h.call('GET', '/repos/alice/app/actions/schedules', { auth: alice.bearer });
  t.is(listed.status, 200);
  t.is(listed.body.length, 1);
  t.like(listed.body[0], { workflow_id: 'nightly.yml', workflow_path: '.gitea/workflows/nightly.yml', specs: ['0 3 * * *'], ref: 'refs/heads/main' });
  t.regex(listed.body[0].next_run, /T03:00:00Z$/);
  t.deepEqual((await definitionChecker(h))('ActionScheduleList', listed.body), []);
  t.false((await runsOf(h, repo)).some((r) => r.workflow_path.endsWith('nightly.yml')), 'a schedule workflow does not run on push');

  const first = listed.body[0].id;
  await push(h, repo, { 'README.md': 'unrelated\n' });
  t.is((await h.call('GET', '/repos/alice/app/actions/schedules', { auth: alice.bearer })).body[0].id, first, 'the same cron keeps its plan');

  await push(h, repo, { '.gitea/workflows/nightly.yml': nightly('30 4 * * 1') });
  const changed = (await h.call('GET', '/repos/alice/app/actions/schedules', { auth: alice.bearer })).body;
  t.is(changed.length, 1);
  t.not(changed[0].id, first);
  t.deepEqual(changed[0].specs, ['30 4 * * 1']);

  await push(h, repo, { '.gitea/workflows/weekly.yml': nightly('0 0 * * 0') }, { newBranch: 'side' });
  t.deepEqual((await plansOf(h, repo)).map((p) => p.workflow_path), ['.gitea/workflows/nightly.yml']);

  await push(h, repo, { '.gitea/workflows/bad-cron.yml': nightly('not a cron') });
  t.deepEqual((await plansOf(h, repo)).map((p) => p.workflow_path), ['.gitea/workflows/nightly.yml'], 'an invalid cron makes no plan');
});

test('the state table: disabling the unit removes plans and cancels scheduled runs, enabling recreates them, a default-branch change replans', async (t) => {
  const h = await actionsHearth(t);
  const alice = await h.createUser('alice');
  const repo = await build.repo(h, alice, { name: 'app', autoInit: true, defaultBranch: 'main' });
  await push(h, repo, { '.gitea/workflows/nightly.yml': nightly('0 3 * * *') });
  t.is((await plansOf(h, repo)).length, 1);
  await fireDue(h, repo);
  t.deepEqual((await runsOf(h, repo)).map((r) => [r.event, r.status, r.is_scheduled]), [['schedule', 'waiting', true]]);

  // row 1: schedule plans present → unit disabled → plans removed, waiting and running scheduled runs cancelled
  t.is((await h.call('PATCH', '/repos/alice/app', { auth: alice.bearer, body: { has_actions: false } })).status, 200);
  t.is((await plansOf(h, repo)).length, 0);
  t.deepEqual((await runsOf(h, repo)).map((r) => r.status), ['cancelled']);
  t.is((await h.call('GET', '/repos/alice/app/actions/schedules', { auth: alice.bearer })).status, 404);

  // row 2: schedule plans removed → unit enabled again → plans present
  t.is((await h.call('PATCH', '/repos/alice/app', { auth: alice.bearer, body: { has_actions: true } })).status, 200);
  const again = await h.call('GET', '/repos/alice/app/actions/schedules', { auth: alice.bearer });
  t.deepEqual(again.body.map((p: { workflow_path: string }) => p.workflow_path), ['.gitea/workflows/nightly.yml']);
  const runs = await h.call('GET', '/repos/alice/app/actions/runs', { auth: alice.bearer });
  t.like(runs.body.workflow_runs[0], { event: 'schedule', status: 'completed', conclusion: 'cancelled' });

  // row 3: schedule plans present → default branch changes → plans removed (from the new branch's workflows), scheduled runs cancelled
  await fireDue(h, repo);
  await h.store.db.query(`UPDATE action_run SET status = 'running' WHERE repo_id = $1 AND status = 'waiting'`, [repo.id]);
  await push(h, repo, { '.gitea/workflows/other.yml': nightly('15 1 * * *') }, { newBranch: 'release' });
  await h.store.db.query('DELETE FROM action_run WHERE repo_id = $1 AND event = $2', [repo.id, 'push']);
  t.is((await h.call('PATCH', '/repos/alice/app', { auth: alice.bearer, body: { default_branch: 'release' } })).status, 200);
  await drain(h);
  t.deepEqual((await runsOf(h, repo)).map((r) => r.status), ['cancelled', 'cancelled']);
  const replanned = (await h.call('GET', '/repos/alice/app/actions/schedules', { auth: alice.bearer })).body;
  t.deepEqual(replanned.map((p: { workflow_path: string; ref: string }) => [p.workflow_path, p.ref]), [
    ['.gitea/workflows/nightly.yml', 'refs/heads/release'], ['.gitea/workflows/other.yml', 'refs/heads/release'],
  ]);

  // actions disabled globally: a worker starting with [actions] ENABLED off removes every plan and cancels scheduled runs
  await fireDue(h, repo);
  t.is((await runsOf(h, repo)).filter((r) => r.status === 'waiting').length, 2);
  const clock = await startActionsClock(h.store, { ...h.config, actions: { enabled: false } }, pino({ level: 'silent' }));
  t.false(clock);
  t.is((await plansOf(h, repo)).length, 0);
  t.false((await runsOf(h, repo)).some((r) => r.status === 'waiting'));

  // enabled globally again: the next worker to start makes the plans anew from the default branch; later starts queue nothing
  t.true(await startActionsClock(h.store, h.config, pino({ level: 'silent' })));
  t.deepEqual((await drain(h, 'actions-replan')).map((job) => job.outcome), ['done']);
  t.deepEqual((await plansOf(h, repo)).map((p) => p.workflow_path), ['.gitea/workflows/nightly.yml', '.gitea/workflows/other.yml']);
  await startActionsClock(h.store, h.config, pino({ level: 'silent' }));
  t.deepEqual(await drain(h, 'actions-replan'), []);
  t.is((await plansOf(h, repo)).length, 2);
});

test('two firings of one plan slot at once, from two clocks, make one run', async (t) => {
  const h = await actionsHearth(t);
  const alice = await h.createUser('alice');
  const repo = await build.repo(h, alice, { name: 'app', autoInit: true, defaultBranch: 'main' });
  await push(h, repo, { '.gitea/workflows/nightly.yml': nightly('* * * * *') });
  const [plan] = await plansOf(h, repo);
  await h.store.db.query(`UPDATE action_schedule SET next_run = date_trunc('minute', now()) - interval '1 minute' WHERE id = $1`, [plan.id]);
  const [{ next_run: slot }] = await h.store.db.query<{ next_run: Date }>('SELECT next_run FROM action_schedule WHERE id = $1', [plan.id]);
  // two clocks tick at the same moment: each queues the due plan (or finds it queued)
  const queued = await Promise.all([enqueueDuePlans(h.store), enqueueDuePlans(h.store)]);
  t.deepEqual(queued, [1, 1]);
  // two handlers take the same firing at once
  const deps = actorDeps(h.store, h.config, pino({ level: 'silent' }));
  const payload = { planId: Number(plan.id), slot: slot.toISOString() };
  const outcomes = await Promise.all([schedulePlanner.handle(payload, deps), schedulePlanner.handle(payload, deps)]);
  t.deepEqual(outcomes.sort(), ['done', 'skipped']);
  await drain(h, 'schedule-planner');
  const runs = await h.store.db.query<{ schedule_slot: Date }>('SELECT schedule_slot FROM action_run WHERE repo_id = $1 AND event = $2', [repo.id, 'schedule']);
  t.is(runs.length, 1);
  t.is(runs[0].schedule_slot.toISOString(), slot.toISOString());
  const [{ next_run: next }] = await h.store.db.query<{ next_run: Date }>('SELECT next_run FROM action_schedule WHERE id = $1', [plan.id]);
  t.true(next > slot, 'the plan moved past the fired slot');
});

/** A worker process (`workers/worker.ts`, as its Procfile line runs it) over the test's database, running `actors`. */
function startWorkerProcess(t: ExecutionContext, h: TestHearth, actors: string): Launcher {
  const worker = launch({
    PATH: process.env.PATH,
    DATABASE_URL: h.databaseUrl,
    HEARTH_DATA_DIR: h.config.dataDir,
    HEARTH__security__SECRET_KEY: h.config.security.secretKey,
    HEARTH__actions__ENABLED: 'true',
    HEARTH_ACTORS: actors,
    LOG_LEVEL: 'info',
  }, { command: [process.execPath, '--import', 'tsx', 'workers/worker.ts'] });
  t.teardown(() => killAll([worker.child.pid!]));
  return worker;
}

/** The worker's log lines (pino's JSON) once it logged `message`. */
async function logOnce(worker: Launcher, message: string): Promise<Array<Record<string, unknown>>> {
  const lines = (): Array<Record<string, unknown>> => worker.output.join('').split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
  for (const deadline = Date.now() + 90_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 100))) {
    if (worker.child.exitCode !== null) throw new Error(`the worker exited with ${worker.child.exitCode}:\n${worker.output.join('')}`);
    if (lines().some((line) => line.msg === message)) return lines();
  }
  throw new Error(`the worker never logged "${message}":\n${worker.output.join('')}`);
}

test('two worker processes, each with its clock, fire a due plan slot once', async (t) => {
  t.timeout(180_000);
  const h = await actionsHearth(t);
  const alice = await h.createUser('alice');
  const repo = await build.repo(h, alice, { name: 'app', autoInit: true, defaultBranch: 'main' });
  await push(h, repo, { '.gitea/workflows/nightly.yml': nightly('0 0 1 1 *') });
  await h.store.db.query(`UPDATE action_schedule SET next_run = date_trunc('minute', now()) - interval '1 minute' WHERE repo_id = $1`, [repo.id]);

  // both clocks tick as their workers start and each queues the due slot, while the test holds the plan's row so
  // that no firing ends before the later worker's clock has seen the slot due
  const holder = new pg.Client({ connectionString: h.databaseUrl });
  await holder.connect();
  t.teardown(() => holder.end());
  await holder.query('BEGIN');
  await holder.query('SELECT 1 FROM action_schedule WHERE repo_id = $1 FOR UPDATE', [repo.id]);
  const workers = [startWorkerProcess(t, h, 'schedule-planner'), startWorkerProcess(t, h, 'schedule-planner')];
  const logs = await Promise.all(workers.map((worker) => logOnce(worker, 'worker ready')));
  for (const log of logs) t.true(log.some((line) => line.msg === 'schedule plans due' && line.queued === 1), 'each clock queued the slot');
  await holder.query('COMMIT');

  const deadline = Date.now() + 60_000;
  for (;;) {
    const [{ open }] = await h.store.db.query<{ open: number }>(
      `SELECT count(*)::int AS open FROM pgboss.job WHERE name = 'schedule-planner' AND state IN ('created', 'retry', 'active')`,
    );
    if (open === 0 || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  t.deepEqual((await runsOf(h, repo)).map((r) => [r.event, r.is_scheduled]), [['schedule', true]]);
  const [{ next_run: next }] = await h.store.db.query<{ next_run: Date }>('SELECT next_run FROM action_schedule WHERE repo_id = $1', [repo.id]);
  t.true(next > new Date(), 'the plan moved on');

  for (const worker of workers) worker.child.kill('SIGTERM');
  t.deepEqual(await Promise.all(workers.map((worker) => worker.exited)), [0, 0]);
});
