import test from 'ava';
import { encryptSecret } from '../../db/crypto.js';
import { findRepoById } from '../../db/models/repos/repos.js';
import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import type { TestHearth } from '../helpers/hearth.js';
import type { RepoRow } from '../../db/models/repos/repo-row.js';
import { commitFile, git, remote, scratch } from '../git/git-client.js';
import { actionsHearth, fetchTask, push, registerRunner } from './run-helpers.js';

const workflow = (on: string): string => `on:\n${on}\njobs:\n  check:\n    runs-on: ubuntu-latest\n    steps: [{run: echo}]\n`;

const workflows = {
  '.gitea/workflows/any.yml': workflow('  pull_request:'),
  '.gitea/workflows/to-main.yml': workflow('  pull_request:\n    branches: [main]'),
  '.gitea/workflows/to-release.yml': workflow('  pull_request:\n    branches: [release]'),
  '.gitea/workflows/closed.yml': workflow('  pull_request:\n    types: [closed]'),
  '.gitea/workflows/docs.yml': workflow('  pull_request:\n    paths: ["docs/**"]'),
  '.gitea/workflows/push.yml': workflow('  push:\n    branches: [main]'),
};

interface PullRun {
  workflow_id: string;
  event: string;
  head_sha: string;
  path: string;
  display_title: string;
}

async function pullRuns(h: TestHearth, auth: string, owner: string, repo: string): Promise<PullRun[]> {
  const answer = await h.call('GET', `/repos/${owner}/${repo}/actions/runs?event=pull_request&limit=50`, { auth });
  return (answer.body.workflow_runs as PullRun[]).reverse();
}

const ids = (runs: PullRun[]): string[] => runs.map((r) => r.workflow_id).sort();

test('pull requests opened, pushed to, closed and reopened run their workflows on the head commit, with types and branch and path filters', async (t) => {
  const h = await actionsHearth(t);
  const alice = await h.createUser('alice');
  const repo = await build.repo(h, alice, { name: 'app', autoInit: true, defaultBranch: 'main' });
  await push(h, repo, workflows);
  const head = await push(h, repo, { 'src.txt': 'change\n' }, { newBranch: 'feature' });

  const opened = await h.call('POST', '/repos/alice/app/pulls', { auth: alice.bearer, body: { head: 'feature', base: 'main', title: 'A feature' } });
  t.is(opened.status, 201);
  await drain(h);
  const first = await pullRuns(h, alice.bearer, 'alice', 'app');
  t.deepEqual(ids(first), ['any.yml', 'to-main.yml'], 'opened: default types, the base branch filter, no docs/ change');
  for (const run of first) t.like(run, { event: 'pull_request', head_sha: head, display_title: 'A feature', path: `${run.workflow_id}@refs/pull/1/head` });
  const [stored] = await h.store.db.query<{ event_payload: { action: string; number: number; pull_request: { head: { sha: string } } }; is_fork_pull_request: boolean }>(
    `SELECT event_payload, is_fork_pull_request FROM action_run WHERE repo_id = $1 AND event = 'pull_request' ORDER BY id LIMIT 1`, [repo.id],
  );
  t.like(stored.event_payload, { action: 'opened', number: 1, pull_request: { head: { sha: head } } });
  t.false(stored.is_fork_pull_request);

  // synchronize: a push to the head branch, touching docs/ this time
  const moved = await push(h, repo, { 'docs/guide.md': '# guide\n' }, { branch: 'feature' });
  const second = (await pullRuns(h, alice.bearer, 'alice', 'app')).slice(first.length);
  t.deepEqual(ids(second), ['any.yml', 'docs.yml', 'to-main.yml']);
  t.true(second.every((run) => run.head_sha === moved));

  // closed: only the workflow that names the type; reopened: the default types again
  t.is((await h.call('PATCH', '/repos/alice/app/pulls/1', { auth: alice.bearer, body: { state: 'closed' } })).status, 201);
  await drain(h);
  const third = (await pullRuns(h, alice.bearer, 'alice', 'app')).slice(first.length + second.length);
  t.deepEqual(ids(third), ['closed.yml']);
  t.is((await h.call('PATCH', '/repos/alice/app/pulls/1', { auth: alice.bearer, body: { state: 'open' } })).status, 201);
  await drain(h);
  const fourth = (await pullRuns(h, alice.bearer, 'alice', 'app')).slice(first.length + second.length + third.length);
  t.deepEqual(ids(fourth), ['any.yml', 'docs.yml', 'to-main.yml']);

  // a pull request into another branch runs the workflows that filter on it; a comment on the pull request runs nothing
  await push(h, repo, { 'r.txt': 'r\n' }, { branch: 'main', newBranch: 'release' });
  const before = (await pullRuns(h, alice.bearer, 'alice', 'app')).length;
  t.is((await h.call('POST', '/repos/alice/app/pulls', { auth: alice.bearer, body: { head: 'feature', base: 'release', title: 'Backport' } })).status, 201);
  t.is((await h.call('POST', '/repos/alice/app/issues/1/comments', { auth: alice.bearer, body: { body: 'looks good' } })).status, 201);
  await drain(h);
  t.deepEqual(ids((await pullRuns(h, alice.bearer, 'alice', 'app')).slice(before)), ['any.yml', 'docs.yml', 'to-release.yml']);
  t.false((await h.call('GET', '/repos/alice/app/actions/runs?event=push&branch=feature', { auth: alice.bearer })).body.total_count > 0, 'push.yml filters main');
});

test("a fork's pull request runs in the base repository with a read-only token and no secrets; the task names head and base", async (t) => {
  const h = await actionsHearth(t);
  const alice = await h.createUser('alice');
  const bob = await h.createUser('bob');
  const repo = await build.repo(h, alice, { name: 'app', autoInit: true, defaultBranch: 'main' });
  await push(h, repo, { '.gitea/workflows/any.yml': workflows['.gitea/workflows/any.yml'] });
  await h.store.db.query('INSERT INTO secret (repo_id, name, data_sealed) VALUES ($1, $2, $3)', [repo.id, 'DEPLOY_KEY', encryptSecret(h.config.security.secretKey, 's3cret')]);
  const runner = await registerRunner(h, alice.bearer, 'alice', 'app');
  const forked = await h.call('POST', '/repos/alice/app/forks', { auth: bob.bearer, body: {} });
  t.is(forked.status, 202);
  await drain(h);
  const fork = (await findRepoById(h.store.db, forked.body.id)) as RepoRow;
  const head = await push(h, fork, { 'fix.txt': 'fix\n' }, { newBranch: 'fix', by: bob.user });

  t.is((await h.call('POST', '/repos/alice/app/pulls', { auth: bob.bearer, body: { head: 'bob:fix', base: 'main', title: 'Fix' } })).status, 201);
  await drain(h);
  const [run] = await pullRuns(h, alice.bearer, 'alice', 'app');
  t.like(run, { workflow_id: 'any.yml', head_sha: head });
  const task = await fetchTask(h, runner);
  t.like(task.context, { event_name: 'pull_request', head_ref: 'fix', base_ref: 'main', sha: head, ref: 'refs/pull/1/head', actor: 'bob' });
  t.is(task.secrets.DEPLOY_KEY, undefined, 'no secrets for a fork');
  t.is(task.secrets.GITEA_TOKEN, task.context.token);

  const auth = `token ${task.context.token}`;
  t.like((await h.call('GET', '/repos/alice/app', { auth })).body.permissions, { push: false, pull: true });
  t.is((await h.call('POST', '/repos/alice/app/contents/x.txt', { auth, body: { content: 'eA==' } })).status, 403);
  const home = scratch(t);
  const url = remote(h, 'alice', 'app', { user: 'x-access-token', secret: task.context.token });
  t.is((await git(home, ['clone', '--quiet', url, 'work'])).code, 0, 'the token reads');
  await commitFile(home, `${home}/work`, 'from-fork.txt', 'x\n');
  const refused = await git(home, ['push', '--quiet', url, 'HEAD:main'], `${home}/work`);
  t.not(refused.code, 0, 'and does not write');
  t.regex(refused.stderr, /403|permission/i);
});
