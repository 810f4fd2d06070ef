import test from 'ava';
import { inTx } from '../../db/data-source.js';
import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import { startHearth } from '../helpers/hearth.js';
import { actionsHearth, fetchTask, finishTask, push, registerRunner, runsOf } from './run-helpers.js';

const ci = `name: CI
on:
  push:
    branches: [main]
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - run: echo build
  test:
    needs: build
    runs-on: [ubuntu-latest]
    steps:
      - name: Test
        run: echo test
`;

test('a push runs the workflows whose push filters match; the runs and jobs read back in Gitea\'s later shapes', async (t) => {
  const h = await actionsHearth(t);
  const alice = await h.createUser('alice');
  const repo = await build.repo(h, alice, { name: 'app', autoInit: true, defaultBranch: 'main' });
  const sha = await push(h, repo, {
    '.gitea/workflows/ci.yml': ci,
    '.gitea/workflows/release.yml': 'on:\n  push:\n    tags: ["v*"]\njobs:\n  r:\n    runs-on: ubuntu-latest\n    steps: [{run: echo}]\n',
    '.gitea/workflows/docs.yaml': 'on:\n  push:\n    paths: ["docs/**"]\njobs:\n  d:\n    runs-on: ubuntu-latest\n    steps: [{run: echo}]\n',
    '.gitea/workflows/manual.yml': 'on: workflow_dispatch\njobs:\n  m:\n    runs-on: ubuntu-latest\n    steps: [{run: echo}]\n',
  });
  t.deepEqual((await runsOf(h, repo)).map((r) => r.workflow_path), ['.gitea/workflows/ci.yml']);

  const list = await h.call('GET', '/repos/alice/app/actions/runs', { auth: alice.bearer });
  t.is(list.status, 200);
  t.is(list.body.total_count, 1);
  const [run] = list.body.workflow_runs;
  t.like(run, {
    path: 'ci.yml@refs/heads/main', workflow_id: 'ci.yml', event: 'push', run_number: 1, head_sha: sha, head_branch: 'main',
    status: 'queued', conclusion: null, error: null, repository_id: repo.id,
  });
  t.is(run.actor.login, 'alice');
  t.regex(run.display_title, /^Add /);
  t.is(run.url, `${h.rootUrl}api/v1/repos/alice/app/actions/runs/${run.id}`);

  const jobs = await h.call('GET', `/repos/alice/app/actions/runs/${run.id}/jobs`, { auth: alice.bearer });
  t.is(jobs.status, 200);
  t.is(jobs.body.total_count, 2);
  t.deepEqual(jobs.body.jobs.map((j: { name: string; labels: string[]; needs: string[]; status: string }) => [j.name, j.labels, j.needs, j.status]), [
    ['build', ['ubuntu-latest'], [], 'queued'],
    ['test', ['ubuntu-latest'], ['build'], 'queued'],
  ]);
  t.is((await h.call('GET', `/repos/alice/app/actions/runs/${run.id}`, { auth: alice.bearer })).body.id, run.id);
  t.is((await h.call('GET', '/repos/alice/app/actions/runs/999999', { auth: alice.bearer })).status, 404);

  // paths: only a push touching docs/ runs docs.yaml; a tag push runs release.yml only
  await push(h, repo, { 'docs/guide.md': '# guide\n' });
  t.deepEqual((await runsOf(h, repo)).map((r) => r.workflow_path), ['.gitea/workflows/ci.yml', '.gitea/workflows/ci.yml', '.gitea/workflows/docs.yaml']);
  await build.branch(h, repo, { name: 'feature' });
  await drain(h);
  // ci.yml names only main; docs.yaml has no branch filter and the new branch's tip touched docs/
  t.deepEqual((await runsOf(h, repo)).slice(3).map((r) => r.workflow_path), ['.gitea/workflows/docs.yaml']);
  await inTx(h.deps, async (tx) => {
    const { recordRefUpdates } = await import('../../db/models/code/ref-updates.js');
    const git = h.deps.git.open(repo);
    await git.updateRef('refs/tags/v1.0', sha, null);
    await recordRefUpdates(tx, git, repo, alice.user, [{ ref: 'refs/tags/v1.0', oldSha: '0'.repeat(40), newSha: sha }]);
  });
  await drain(h);
  t.is((await runsOf(h, repo)).at(-1)?.workflow_path, '.gitea/workflows/release.yml');

  // filters on the list
  const filtered = await h.call('GET', '/repos/alice/app/actions/runs?event=push&branch=main&limit=1', { auth: alice.bearer });
  t.is(filtered.body.total_count, 3);
  t.is((await h.call('GET', '/repos/alice/app/actions/runs?branch=feature', { auth: alice.bearer })).body.total_count, 1);
  t.is(filtered.body.workflow_runs.length, 1);
  t.is((await h.call('GET', '/repos/alice/app/actions/runs?status=bogus', { auth: alice.bearer })).status, 422);

  // workflow_dispatch
  const dispatched = await h.call('POST', '/repos/alice/app/actions/workflows/manual.yml/dispatches', { auth: alice.bearer, body: { ref: 'main' } });
  t.is(dispatched.status, 204);
  t.like((await runsOf(h, repo)).at(-1), { workflow_path: '.gitea/workflows/manual.yml', event: 'workflow_dispatch' });
  t.is((await h.call('POST', '/repos/alice/app/actions/workflows/ci.yml/dispatches', { auth: alice.bearer, body: { ref: 'main' } })).status, 422);
  t.is((await h.call('POST', '/repos/alice/app/actions/workflows/none.yml/dispatches', { auth: alice.bearer, body: { ref: 'main' } })).status, 404);

  // cancelling a waiting run cancels its jobs
  const cancelled = await h.call('POST', `/repos/alice/app/actions/runs/${run.id}/cancel`, { auth: alice.bearer });
  t.like(cancelled.body, { status: 'completed', conclusion: 'cancelled' });
  const after = await h.call('GET', `/repos/alice/app/actions/runs/${run.id}/jobs`, { auth: alice.bearer });
  t.deepEqual(after.body.jobs.map((j: { conclusion: string }) => j.conclusion), ['cancelled', 'cancelled']);
});

test('a workflow file that does not parse is recorded on a failed run and shown, never a 500', async (t) => {
  const h = await actionsHearth(t);
  const alice = await h.createUser('alice');
  const repo = await build.repo(h, alice, { name: 'broken', autoInit: true });
  await push(h, repo, { '.github/workflows/bad.yml': 'on: [push\njobs: {' });
  const [run] = (await h.call('GET', '/repos/alice/broken/actions/runs', { auth: alice.bearer })).body.workflow_runs;
  t.like(run, { workflow_id: 'bad.yml', status: 'completed', conclusion: 'failure' });
  t.true(typeof run.error === 'string' && run.error.length > 0);
  const jobs = await h.call('GET', `/repos/alice/broken/actions/runs/${run.id}/jobs`, { auth: alice.bearer });
  t.is(jobs.status, 200);
  t.is(jobs.body.total_count, 0);
  await push(h, repo, { '.github/workflows/nojobs.yml': 'on: push\n' });
  t.true((await runsOf(h, repo)).some((r) => r.workflow_path === '.github/workflows/nojobs.yml' && r.parse_error === 'the workflow has no jobs'));
});

test('with actions off, pushes start nothing and the routes answer 404; the repository unit switches them too', async (t) => {
  const h = await startHearth(t);
  const alice = await h.createUser('alice');
  const repo = await build.repo(h, alice, { name: 'app', autoInit: true });
  await push(h, repo, { '.gitea/workflows/ci.yml': 'on: push\njobs:\n  a:\n    runs-on: x\n    steps: [{run: echo}]\n' });
  t.is((await runsOf(h, repo)).length, 0);
  t.is((await h.call('GET', '/repos/alice/app/actions/runs', { auth: alice.bearer })).status, 404);
  t.is((await h.call('POST', '/api/actions/ping.v1.PingService/Ping', { body: { data: 'x' } })).status, 404);

  const on = await actionsHearth(t);
  const bob = await on.createUser('bob');
  const other = await build.repo(on, bob, { name: 'app', autoInit: true });
  t.is((await on.call('PATCH', '/repos/bob/app', { auth: bob.bearer, body: { has_actions: false } })).status, 200);
  await push(on, other, { '.gitea/workflows/ci.yml': 'on: push\njobs:\n  a:\n    runs-on: x\n    steps: [{run: echo}]\n' });
  t.is((await runsOf(on, other)).length, 0);
  t.is((await on.call('GET', '/repos/bob/app/actions/runs', { auth: bob.bearer })).status, 404);
});

test("a team without the actions unit cannot see a private repository's runs; one with it can", async (t) => {
  const h = await actionsHearth(t);
  const alice = await h.createUser('alice');
  const bob = await h.createUser('bob');
  const carol = await h.createUser('carol');
  const org = await build.org(h, alice, { name: 'acme' });
  const repo = await build.repo(h, org, { name: 'app', autoInit: true, private: true, by: alice.user });
  await build.team(h, org, { name: 'coders', permission: 'read', units: ['repo.code'], members: [bob], repos: [repo] });
  await build.team(h, org, { name: 'ci', unitsMap: { 'repo.code': 'read', 'repo.actions': 'read' }, members: [carol], repos: [repo] });
  await push(h, repo, { '.gitea/workflows/ci.yml': 'on: push\njobs:\n  a:\n    runs-on: x\n    steps: [{run: echo}]\n' }, { by: alice.user });
  t.is((await h.call('GET', '/repos/acme/app/actions/runs', { auth: bob.bearer })).status, 403);
  const seen = await h.call('GET', '/repos/acme/app/actions/runs', { auth: carol.bearer });
  t.is(seen.status, 200);
  t.is(seen.body.total_count, 1);
  t.is((await h.call('POST', '/repos/acme/app/actions/workflows/ci.yml/dispatches', { auth: carol.bearer, body: { ref: 'main' } })).status, 403, 'reading is not writing');
});

test('a job whose needs failed is skipped, and so are the jobs that need it; the run fails', async (t) => {
  const h = await actionsHearth(t);
  const alice = await h.createUser('alice');
  const repo = await build.repo(h, alice, { name: 'app', autoInit: true });
  const runner = await registerRunner(h, alice.bearer, 'alice', 'app');
  await push(h, repo, { '.gitea/workflows/ci.yml': ci.replace('on:\n  push:\n    branches: [main]', 'on: push') + '  deploy:\n    needs: test\n    runs-on: ubuntu-latest\n    steps: [{run: echo}]\n' });
  const build1 = await fetchTask(h, runner);
  t.is(build1.context.job, 'build');
  await finishTask(h, runner, build1.id, 'RESULT_FAILURE');
  t.is(await fetchTask(h, runner), null, 'nothing left to run');
  const [run] = (await h.call('GET', '/repos/alice/app/actions/runs', { auth: alice.bearer })).body.workflow_runs;
  t.like(run, { status: 'completed', conclusion: 'failure' });
  const jobs = (await h.call('GET', `/repos/alice/app/actions/runs/${run.id}/jobs`, { auth: alice.bearer })).body.jobs;
  t.deepEqual(jobs.map((j: { name: string; conclusion: string }) => [j.name, j.conclusion]), [['build', 'failure'], ['test', 'skipped'], ['deploy', 'skipped']]);
});
