import test from 'ava';
import { encryptSecret } from '../../db/crypto.js';
import { decodeBinary, encodeBinary, type Plain } from '../../api/actions/proto.js';
import { build } from '../helpers/build.js';
import type { TestHearth } from '../helpers/hearth.js';
import { actionsHearth, definitionChecker, json, push, type Runner } from './run-helpers.js';

/** The same call in binary protobuf: the request encoded as `input`, the answer decoded as `output` (or a Connect error in JSON). */
async function proto(h: TestHearth, procedure: string, input: string | Uint8Array, message: Plain, output: string, runner?: Runner): Promise<{ status: number; body: any }> {
  const bytes = typeof input === 'string' ? encodeBinary(input, message) : input;
  const response = await fetch(`${h.rootUrl}api/actions/${procedure}`, {
    method: 'POST',
    headers: { 'content-type': 'application/proto', ...(runner ? { 'x-runner-uuid': runner.uuid, 'x-runner-token': runner.token } : {}) },
    body: Buffer.from(bytes),
  });
  const raw = Buffer.from(await response.arrayBuffer());
  if (response.status !== 200) return { status: response.status, body: JSON.parse(raw.toString('utf8')) };
  t_contentType = response.headers.get('content-type') ?? '';
  return { status: 200, body: decodeBinary(output, raw) };
}
let t_contentType = '';

const workflow = `name: CI
on: push
jobs:
  build:
    runs-on: ubuntu-latest
    outputs:
      version: \${{ steps.v.outputs.version }}
    steps:
      - name: Checkout
        uses: actions/checkout@v4
      - id: v
        run: echo "version=1.2.3" >> $GITHUB_OUTPUT
  test:
    needs: build
    runs-on: ubuntu-latest
    steps:
      - run: make test
`;

async function setUp(t: Parameters<typeof actionsHearth>[0]) {
  const h = await actionsHearth(t);
  const alice = await h.createUser('alice');
  const repo = await build.repo(h, alice, { name: 'app', autoInit: true });
  const issued = await h.call('GET', '/repos/alice/app/runners/registration-token', { auth: alice.bearer });
  const registration: string = issued.body.token;
  if (issued.status !== 200 || !registration) throw new Error(`no registration token: ${issued.status}`);
  await h.store.db.query('INSERT INTO secret (repo_id, name, data_sealed) VALUES ($1, $2, $3)', [repo.id, 'DEPLOY_KEY', encryptSecret(h.config.security.secretKey, 's3cret')]);
  await h.store.db.query('INSERT INTO action_variable (owner_id, name, data) VALUES ($1, $2, $3)', [alice.user.id, 'REGION', 'eu']);
  return { h, alice, repo, registration };
}

test('a scripted runner in JSON: ping, register, declare, fetch, steps and logs, outputs to the next job, finish; the run reads back', async (t) => {
  const { h, alice, repo, registration } = await setUp(t);

  t.deepEqual((await json(h, 'ping.v1.PingService/Ping', { data: 'runner' })).body, { data: 'Hello, runner!' });
  const refused = await json(h, 'runner.v1.RunnerService/Register', { name: 'r1', token: 'not-a-token', labels: ['ubuntu-latest'] });
  t.is(refused.status, 401);
  t.is(refused.body.code, 'unauthenticated');
  t.is((await json(h, 'runner.v1.RunnerService/Register', { name: 'r1', token: registration, labels: ['bad:label:scheme'] })).body.code, 'invalid_argument');
  t.is(await h.store.db.query('SELECT 1 FROM action_runner').then((r) => r.length), 0, 'nothing half-created');

  const registered = await json(h, 'runner.v1.RunnerService/Register', { name: 'r1', token: registration, version: 'v0.2.11', labels: ['self-hosted'] });
  t.is(registered.status, 200);
  const runner: Runner = { uuid: registered.body.runner.uuid, token: registered.body.runner.token };
  t.like(registered.body.runner, { name: 'r1', version: 'v0.2.11', labels: ['self-hosted'] });
  t.is(typeof registered.body.runner.id, 'string', 'int64 travels as a string in JSON');

  t.is((await json(h, 'runner.v1.RunnerService/Declare', { version: 'v0.2.11', labels: [] }, { ...runner, token: 'wrong' })).body.code, 'unauthenticated');
  const declared = await json(h, 'runner.v1.RunnerService/Declare', { version: 'v0.2.12', labels: ['ubuntu-latest:docker://node:20-bookworm'] }, runner);
  t.deepEqual(declared.body.runner.labels, ['ubuntu-latest:docker://node:20-bookworm']);

  t.deepEqual((await json(h, 'runner.v1.RunnerService/FetchTask', { tasksVersion: '0' }, runner)).body.task, undefined, 'nothing waits yet');
  const sha = await push(h, repo, { '.gitea/workflows/ci.yml': workflow });

  const fetched = await json(h, 'runner.v1.RunnerService/FetchTask', { tasksVersion: '0' }, runner);
  t.is(fetched.status, 200);
  const task = fetched.body.task;
  const payload = Buffer.from(task.workflowPayload, 'base64').toString('utf8');
  t.regex(payload, /build:/);
  t.notRegex(payload, /make test/, 'the payload holds the one job');
  t.like(task.context, { repository: 'alice/app', sha, ref: 'refs/heads/main', event_name: 'push', actor: 'alice', job: 'build' });
  t.like(task.secrets, { DEPLOY_KEY: 's3cret' });
  t.is(task.secrets.GITEA_TOKEN, task.context.token);
  t.deepEqual(task.vars, { REGION: 'eu' });
  t.is((await json(h, 'runner.v1.RunnerService/FetchTask', {}, runner)).body.task, undefined, 'test waits for build');

  const runId = (await h.call('GET', '/repos/alice/app/actions/runs', { auth: alice.bearer })).body.workflow_runs[0].id;
  t.like((await h.call('GET', `/repos/alice/app/actions/runs/${runId}`, { auth: alice.bearer })).body, { status: 'in_progress' });

  // logs: rows from an index, repeated rows skipped, a gap refused by answering what is stored
  const rows = ['checking out', 'version=1.2.3', 'done'].map((content, i) => ({ time: new Date(Date.UTC(2026, 10, 24, 10, 0, i)).toISOString(), content }));
  t.deepEqual((await json(h, 'runner.v1.RunnerService/UpdateLog', { taskId: task.id, index: '0', rows: rows.slice(0, 2) }, runner)).body, { ackIndex: '2' });
  t.deepEqual((await json(h, 'runner.v1.RunnerService/UpdateLog', { taskId: task.id, index: '0', rows, noMore: true }, runner)).body, { ackIndex: '3' });
  t.deepEqual((await json(h, 'runner.v1.RunnerService/UpdateLog', { taskId: task.id, index: '7', rows }, runner)).body, { ackIndex: '3' });
  const logs = await h.store.db.query<{ index: string; content: string }>('SELECT index, content FROM action_task_log WHERE task_id = $1 ORDER BY index', [task.id]);
  t.deepEqual(logs.map((l) => l.content), ['checking out', 'version=1.2.3', 'done']);

  const steps = [
    { id: 0, result: 'RESULT_SUCCESS', startedAt: '2026-11-24T10:00:00Z', stoppedAt: '2026-11-24T10:00:01Z', logIndex: 0, logLength: 1 },
    { id: 1, result: 'RESULT_UNSPECIFIED', startedAt: '2026-11-24T10:00:01Z', logIndex: 1, logLength: 1 },
  ];
  const running = await json(h, 'runner.v1.RunnerService/UpdateTask', { state: { id: task.id, startedAt: '2026-11-24T10:00:00Z', steps } }, runner);
  t.is(running.body.state.result, 'RESULT_UNSPECIFIED');
  const jobsMid = (await h.call('GET', `/repos/alice/app/actions/runs/${runId}/jobs`, { auth: alice.bearer })).body.jobs;
  t.like(jobsMid[0], { name: 'build', status: 'in_progress', runner_name: 'r1' });
  t.deepEqual(jobsMid[0].steps.map((s: { name: string; status: string; conclusion: string | null }) => [s.name, s.status, s.conclusion]), [
    ['Checkout', 'completed', 'success'], ['Run echo "version=1.2.3" >> $GITHUB_OUTPUT', 'in_progress', null],
  ]);

  steps[1].result = 'RESULT_SUCCESS';
  const done = await json(h, 'runner.v1.RunnerService/UpdateTask', {
    state: { id: task.id, result: 'RESULT_SUCCESS', stoppedAt: '2026-11-24T10:00:03Z', steps }, outputs: { version: '1.2.3' },
  }, runner);
  t.deepEqual(done.body, { state: { id: String(task.id), result: 'RESULT_SUCCESS', steps: [] }, sentOutputs: ['version'] });

  const next = (await json(h, 'runner.v1.RunnerService/FetchTask', {}, runner)).body.task;
  t.is(next.context.job, 'test');
  t.deepEqual(next.needs, { build: { outputs: { version: '1.2.3' }, result: 'RESULT_SUCCESS' } });
  await json(h, 'runner.v1.RunnerService/UpdateTask', { state: { id: next.id, result: 'RESULT_FAILURE', steps: [{ id: 0, result: 'RESULT_FAILURE' }] } }, runner);

  const run = (await h.call('GET', `/repos/alice/app/actions/runs/${runId}`, { auth: alice.bearer })).body;
  t.like(run, { status: 'completed', conclusion: 'failure' });
  const check = await definitionChecker(h);
  t.deepEqual(check('ActionWorkflowRun', run), []);
  t.deepEqual(check('ActionWorkflowRunsResponse', (await h.call('GET', '/repos/alice/app/actions/runs', { auth: alice.bearer })).body), []);
  t.deepEqual(check('ActionWorkflowJobsResponse', (await h.call('GET', `/repos/alice/app/actions/runs/${runId}/jobs`, { auth: alice.bearer })).body), []);
  t.deepEqual(check('ActionRunnersResponse', (await h.call('GET', '/repos/alice/app/actions/runners', { auth: alice.bearer })).body), []);
  t.deepEqual(check('ActionRunnersResponse', { runners: [{ id: 1 }], total_count: 1 }).length > 0, true, 'the check can fail');
  t.truthy(run.started_at);
  t.truthy(run.completed_at);
  const jobs = (await h.call('GET', `/repos/alice/app/actions/runs/${runId}/jobs`, { auth: alice.bearer })).body.jobs;
  t.deepEqual(jobs.map((j: { name: string; conclusion: string; run_attempt: number }) => [j.name, j.conclusion, j.run_attempt]), [['build', 'success', 1], ['test', 'failure', 1]]);

  // a finished task stays finished; a task is another runner's business
  const late = await json(h, 'runner.v1.RunnerService/UpdateTask', { state: { id: task.id, result: 'RESULT_FAILURE' } }, runner);
  t.is(late.body.state.result, 'RESULT_SUCCESS');
  const other = await json(h, 'runner.v1.RunnerService/Register', { name: 'r2', token: registration, labels: ['ubuntu-latest'] });
  const otherRunner = { uuid: other.body.runner.uuid, token: other.body.runner.token };
  t.is((await json(h, 'runner.v1.RunnerService/UpdateTask', { state: { id: task.id, result: 'RESULT_FAILURE' } }, otherRunner)).body.code, 'permission_denied');
  t.is((await json(h, 'runner.v1.RunnerService/UpdateLog', { taskId: '999999', index: '0', rows }, otherRunner)).body.code, 'not_found');
  t.is((await json(h, 'runner.v1.RunnerService/UpdateTask', { state: { id: 'x' } }, otherRunner)).body.code, 'invalid_argument');
  t.is((await json(h, 'runner.v1.RunnerService/Nope', {}, otherRunner)).status, 404);

  // runner lists at the repository level
  const listed = await h.call('GET', '/repos/alice/app/actions/runners', { auth: alice.bearer });
  t.is(listed.body.total_count, 2);
  t.deepEqual(listed.body.runners.map((r: { name: string; status: string }) => [r.name, r.status]), [['r1', 'idle'], ['r2', 'idle']]);
  t.is((await h.call('DELETE', `/repos/alice/app/actions/runners/${other.body.runner.id}`, { auth: alice.bearer })).status, 204);
  t.is((await h.call('DELETE', `/repos/alice/app/actions/runners/${other.body.runner.id}`, { auth: alice.bearer })).status, 404);
  t.is((await json(h, 'runner.v1.RunnerService/FetchTask', {}, otherRunner)).body.code, 'unauthenticated');
});

test('a scripted runner in binary protobuf; a job fetched at once by two runners goes to one; a cancelled run tells its runner', async (t) => {
  const { h, alice, repo, registration } = await setUp(t);

  // a ping written byte by byte: field 1 (data), length-delimited
  const ping = await proto(h, 'ping.v1.PingService/Ping', Uint8Array.from([0x0a, 0x02, 0x68, 0x69]), {}, 'ping.v1.PingResponse');
  t.deepEqual(ping.body, { data: 'Hello, hi!' });
  t.regex(t_contentType, /^application\/proto/);

  const register = async (name: string): Promise<Runner & { id: number }> => {
    const answer = await proto(h, 'runner.v1.RunnerService/Register', 'runner.v1.RegisterRequest', { name, token: registration, version: 'v0.2.11', labels: ['ubuntu-latest'] }, 'runner.v1.RegisterResponse');
    t.is(answer.status, 200);
    return { uuid: answer.body.runner.uuid, token: answer.body.runner.token, id: answer.body.runner.id };
  };
  const [one, two] = [await register('one'), await register('two')];
  t.is(typeof one.id, 'number');
  const declared = await proto(h, 'runner.v1.RunnerService/Declare', 'runner.v1.DeclareRequest', { version: 'v0.2.12', labels: ['ubuntu-latest', 'gpu'] }, 'runner.v1.DeclareResponse', one);
  t.deepEqual(declared.body.runner.labels, ['ubuntu-latest', 'gpu']);
  t.is((await proto(h, 'runner.v1.RunnerService/Declare', Uint8Array.from([0xff, 0xff]), {}, 'x', one)).body.code, 'invalid_argument');

  await push(h, repo, { '.gitea/workflows/one.yml': 'on: push\njobs:\n  only:\n    runs-on: ubuntu-latest\n    steps: [{run: echo one}]\n' });
  const fetch = (runner: Runner) => proto(h, 'runner.v1.RunnerService/FetchTask', 'runner.v1.FetchTaskRequest', { tasks_version: 0 }, 'runner.v1.FetchTaskResponse', runner);
  const [a, b] = await Promise.all([fetch(one), fetch(two)]);
  const tasks = [a.body.task, b.body.task].filter(Boolean);
  t.is(tasks.length, 1, 'one job, one runner');
  const task = tasks[0];
  t.true(Buffer.isBuffer(task.workflow_payload));
  t.like(task.secrets, { DEPLOY_KEY: 's3cret' });
  const owner = a.body.task ? one : two;
  t.is((await h.store.db.query('SELECT 1 FROM action_task')).length, 1);

  const logged = await proto(h, 'runner.v1.RunnerService/UpdateLog', 'runner.v1.UpdateLogRequest', {
    task_id: task.id, index: 0, rows: [{ time: new Date(), content: 'hello' }, { time: new Date(), content: 'world' }], no_more: false,
  }, 'runner.v1.UpdateLogResponse', owner);
  t.is(logged.body.ack_index, 2);
  const update = (result: string) => proto(h, 'runner.v1.RunnerService/UpdateTask', 'runner.v1.UpdateTaskRequest', {
    state: { id: task.id, result, started_at: new Date(), stopped_at: null, steps: [{ id: 0, result, started_at: new Date(), stopped_at: null, log_index: 0, log_length: 2 }] },
    outputs: {},
  }, 'runner.v1.UpdateTaskResponse', owner);
  t.is((await update('RESULT_UNSPECIFIED')).body.state.result, 'RESULT_UNSPECIFIED');

  const runId = (await h.call('GET', '/repos/alice/app/actions/runs', { auth: alice.bearer })).body.workflow_runs[0].id;
  t.like((await h.call('POST', `/repos/alice/app/actions/runs/${runId}/cancel`, { auth: alice.bearer })).body, { conclusion: 'cancelled' });
  t.is((await update('RESULT_UNSPECIFIED')).body.state.result, 'RESULT_CANCELLED', 'the runner learns of the cancel');
  t.is((await update('RESULT_SUCCESS')).body.state.result, 'RESULT_CANCELLED', 'and cannot finish it otherwise');
  const jobs = (await h.call('GET', `/repos/alice/app/actions/runs/${runId}/jobs`, { auth: alice.bearer })).body.jobs;
  t.like(jobs[0], { status: 'completed', conclusion: 'cancelled' });
  t.is((await fetch(one)).body.task, null);
  t.is((await proto(h, 'runner.v1.RunnerService/FetchTask', 'runner.v1.FetchTaskRequest', {}, 'x', { uuid: one.uuid, token: 'bad' })).status, 401);
});
