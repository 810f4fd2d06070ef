import path from 'node:path';
import test from 'ava';
import { actionsBotId } from '../../db/models/actions/bot.js';
import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import { commitFile, git, ok, remote, scratch } from '../git/git-client.js';
import { actionsHearth, fetchTask, finishTask, push, registerRunner, runsOf } from './run-helpers.js';

const ci = 'on: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps: [{run: echo}]\n';
const nightly = 'on:\n  schedule:\n    - cron: "0 3 * * *"\njobs:\n  n:\n    runs-on: ubuntu-latest\n    steps: [{run: echo}]\n';

test('a task token is the bot in git and the API: write in its run\'s repository only, while the task runs; what the bot does triggers nothing', async (t) => {
  const h = await actionsHearth(t);
  const alice = await h.createUser('alice');
  const repo = await build.repo(h, alice, { name: 'app', autoInit: true, private: true, defaultBranch: 'main' });
  await build.repo(h, alice, { name: 'public', autoInit: true });
  await build.repo(h, alice, { name: 'hidden', autoInit: true, private: true });
  const runner = await registerRunner(h, alice.bearer, 'alice', 'app');
  await push(h, repo, { '.gitea/workflows/ci.yml': ci });
  t.is((await runsOf(h, repo)).length, 1);
  const task = await fetchTask(h, runner);
  const token: string = task.secrets.GITEA_TOKEN;
  t.regex(token, /^[0-9a-f]{40}$/);
  const auth = `token ${token}`;

  // the API: the bot, with write access to the run's repository and nothing elsewhere (404, as Gitea's repoAssignment)
  t.like((await h.call('GET', '/user', { auth })).body, { login: 'hearth-actions', id: actionsBotId });
  t.like((await h.call('GET', '/repos/alice/app', { auth })).body.permissions, { admin: false, push: true, pull: true });
  t.is((await h.call('GET', '/repos/alice/hidden', { auth })).status, 404);
  t.is((await h.call('GET', '/repos/alice/public', { auth })).status, 404);
  t.is((await h.call('POST', '/user/repos', { auth, body: { name: 'mine' } })).status, 403, 'a task token cannot make repositories');
  const created = await h.call('POST', '/repos/alice/app/contents/by-api.txt', {
    auth, body: { content: Buffer.from('written by a workflow\n').toString('base64'), message: 'from a workflow' },
  });
  t.is(created.status, 201, JSON.stringify(created.body));
  t.is(created.body.commit.author.name, 'Hearth Actions');
  t.is((await h.call('PUT', '/repos/alice/public/contents/x.txt', { auth, body: { content: 'eA==' } })).status, 404);
  await drain(h);
  const doers = async () => (await h.store.db.query<{ doer_id: string }>(`SELECT doer_id FROM domain_event WHERE kind = 'push' ORDER BY id`)).map((e) => Number(e.doer_id));
  t.is((await doers()).at(-1), actionsBotId, 'the API change is the bot\'s push');
  t.is((await runsOf(h, repo)).length, 1, 'the bot\'s API change triggers nothing');

  // git over HTTP with the token as the password: clone, then a push that is the bot's and triggers nothing
  const home = scratch(t);
  const url = remote(h, 'alice', 'app', { user: 'x-access-token', secret: token });
  await ok(git(home, ['clone', '--quiet', url, 'work']));
  const dir = path.join(home, 'work');
  const pushed = await commitFile(home, dir, 'by-git.txt', 'pushed by a workflow\n');
  await ok(git(home, ['push', '--quiet', url, 'HEAD:main'], dir));
  await drain(h);
  t.is((await h.call('GET', '/repos/alice/app/branches/main', { auth: alice.bearer })).body.commit.id, pushed);
  t.is((await doers()).at(-1), actionsBotId);
  t.is((await runsOf(h, repo)).length, 1, 'the bot\'s own push triggers nothing');
  const elsewhere = await git(home, ['push', '--quiet', remote(h, 'alice', 'hidden', { user: 'x-access-token', secret: token }), 'HEAD:main'], dir);
  t.not(elsewhere.code, 0, 'no push to another repository');

  // a bot push to the default branch still moves the schedule plans (Gitea's notify: plans cannot trigger cyclically)
  await commitFile(home, dir, '.gitea/workflows/nightly.yml', nightly);
  await ok(git(home, ['push', '--quiet', url, 'HEAD:main'], dir));
  await drain(h);
  t.deepEqual((await h.call('GET', '/repos/alice/app/actions/schedules', { auth: alice.bearer })).body.map((p: { workflow_id: string }) => p.workflow_id), ['nightly.yml']);
  t.is((await runsOf(h, repo)).length, 1);

  // a push by alice still runs, so the counts above could have grown
  await push(h, repo, { 'by-alice.txt': 'alice\n' });
  t.is((await runsOf(h, repo)).length, 2);

  // once the task has ended, the token is nobody
  await finishTask(h, runner, task.id);
  t.is((await h.call('GET', '/user', { auth })).status, 401);
  t.not((await git(home, ['ls-remote', url], dir)).code, 0);
});
