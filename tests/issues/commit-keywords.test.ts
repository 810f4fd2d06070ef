import { randomUUID } from 'node:crypto';
import test from 'ava';
import { pino } from 'pino';
import { branchSync } from '../../actors/branch-sync.js';
import type { BranchSyncPayload } from '../../jobs/catalogue.js';
import { actorDeps } from '../../workers/subscribe.js';
import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';
import { startReceiver } from '../helpers/receiver.js';
import { cloneOf, repoWithFeature } from '../pulls/pull-setup.js';

interface Entry {
  type: string;
  ref_commit_sha: string;
  body: string;
  user: { login: string };
}

const timeline = async (hearth: TestHearth, repo: string, index: number, auth: string): Promise<Entry[]> => {
  const answer = await hearth.call('GET', `/repos/${repo}/issues/${index}/timeline`, { auth });
  if (answer.status !== 200) throw new Error(`timeline: ${answer.status}`);
  return answer.body;
};

const kinds = (entries: Entry[]): Array<[string, string]> =>
  entries.filter((e) => ['commit_ref', 'close', 'reopen'].includes(e.type)).map((e) => [e.type, e.ref_commit_sha]);

const state = async (hearth: TestHearth, repo: string, index: number, auth: string): Promise<string> =>
  (await hearth.call('GET', `/repos/${repo}/issues/${index}`, { auth })).body.state;

test('a pushed "fixes #1" on the default branch closes #1 as the pusher with the commit; a reopen keyword reopens; other branches only reference', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const auth = alice.bearer;
  const clone = await repoWithFeature(t, hearth, alice, 'kw');
  for (const title of ['one', 'two', 'three']) t.is((await hearth.call('POST', '/repos/alice/kw/issues', { auth, body: { title } })).status, 201);
  t.is((await hearth.call('POST', '/repos/alice/kw/issues', { auth, body: { title: 'four', ref: 'refs/heads/feature' } })).status, 201);

  // a feature branch: references only, whatever the keyword, except for an issue that names that branch as its ref
  await clone.checkout('feature');
  const onFeature = await clone.commit('f2.txt', 'x\n', 'Fixes #2, see #3, closes #4');
  await clone.push('feature');
  t.is(await state(hearth, 'alice/kw', 2, auth), 'open', 'a close keyword on a non-default branch closes nothing');
  t.deepEqual(kinds(await timeline(hearth, 'alice/kw', 2, auth)), [['commit_ref', onFeature]]);
  t.deepEqual(kinds(await timeline(hearth, 'alice/kw', 3, auth)), [['commit_ref', onFeature]]);
  t.is(await state(hearth, 'alice/kw', 4, auth), 'closed', 'the issue\'s own branch closes it');
  t.deepEqual(kinds(await timeline(hearth, 'alice/kw', 4, auth)), [['commit_ref', onFeature], ['close', onFeature]]);

  // the default branch: closes, as the pusher, with the commit
  await clone.checkout('main');
  const fix = await clone.commit('fix.txt', 'fix\n', 'fixes #1\n\nA longer body.');
  await clone.push('main');
  t.is(await state(hearth, 'alice/kw', 1, auth), 'closed');
  const entries = await timeline(hearth, 'alice/kw', 1, auth);
  t.deepEqual(kinds(entries), [['commit_ref', fix], ['close', fix]]);
  const ref = entries.find((e) => e.type === 'commit_ref')!;
  t.is(ref.user.login, 'alice');
  t.is(ref.body, `<a href="/alice/kw/commit/${fix}">fixes #1</a>`);
  const closedEvents = await hearth.store.db.query<{ payload: { commit_id?: string; index: number } }>(
    `SELECT payload FROM domain_event WHERE kind = 'issue.closed' ORDER BY id`,
  );
  t.deepEqual(closedEvents.map((e) => [e.payload.index, e.payload.commit_id]), [[4, onFeature], [1, fix]], 'the issues event names the commit');
  t.is((await hearth.call('GET', '/repos/alice/kw')).body.open_issues_count, 2);

  // re-running the branch-sync, with the same push or as a new push of the same range, changes nothing
  const [job] = await hearth.store.db.query<{ data: BranchSyncPayload }>(
    `SELECT data FROM pgboss.job WHERE name = 'branch-sync' AND data->'updates'->0->>'newSha' = $1`, [fix],
  );
  t.truthy(job);
  const deps = actorDeps(hearth.store, hearth.config, pino({ level: 'silent' }));
  const snapshot = () => hearth.store.db.query('SELECT id, issue_id, type, commit_sha FROM comment ORDER BY id');
  const before = await snapshot();
  t.is(await branchSync.handle(job.data, deps), 'done');
  t.is(await branchSync.handle({ ...job.data, pushId: randomUUID() }, deps), 'done');
  t.deepEqual(await snapshot(), before);

  // a manual reopen, then the same range again: the commit closed the issue once and does not close it again
  t.is((await hearth.call('PATCH', '/repos/alice/kw/issues/1', { auth, body: { state: 'open' } })).status, 201);
  t.is(await branchSync.handle({ ...job.data, pushId: randomUUID() }, deps), 'done');
  t.is(await state(hearth, 'alice/kw', 1, auth), 'open');
  t.is((await snapshot()).length, before.length + 1, 'only the manual reopen was added');

  // merging the feature branch brings its commit to the default branch: now it closes #2 (its reference is not repeated)
  await clone.run(['merge', '--quiet', '--no-edit', 'feature']);
  await clone.push('main');
  t.is(await state(hearth, 'alice/kw', 2, auth), 'closed');
  t.deepEqual(kinds(await timeline(hearth, 'alice/kw', 2, auth)), [['commit_ref', onFeature], ['close', onFeature]]);

  // a reopen keyword reopens
  await hearth.call('PATCH', '/repos/alice/kw/issues/2', { auth, body: { state: 'closed' } });
  const reopen = await clone.commit('again.txt', 'again\n', 'Reopens #2: not quite');
  await clone.push('main');
  t.is(await state(hearth, 'alice/kw', 2, auth), 'open');
  t.deepEqual(kinds(await timeline(hearth, 'alice/kw', 2, auth)).at(-1), ['reopen', reopen]);
  await drain(hearth);
});

test('another repository\'s issue: referenced where the pusher may read it, closed only where the pusher may write its issues', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  await build.repo(hearth, bob, { name: 'other' });
  await build.repo(hearth, bob, { name: 'secret', private: true });
  await build.repo(hearth, bob, { name: 'shared' });
  for (const name of ['other', 'secret', 'shared']) {
    t.is((await hearth.call('POST', `/repos/bob/${name}/issues`, { auth: bob.bearer, body: { title: 'x' } })).status, 201);
  }
  t.is((await hearth.call('PUT', '/repos/bob/shared/collaborators/alice', { auth: bob.bearer, body: { permission: 'write' } })).status, 204);
  await build.repo(hearth, alice, { name: 'mine', autoInit: true });
  const clone = await cloneOf(t, hearth, alice, 'alice', 'mine');
  const sha = await clone.commit('a.txt', 'a\n', 'Closes bob/other#1, closes bob/secret#1, fixes bob/shared#1');
  await clone.push('main');

  t.is(await state(hearth, 'bob/other', 1, bob.bearer), 'open', 'alice may not write bob/other');
  t.deepEqual(kinds(await timeline(hearth, 'bob/other', 1, bob.bearer)), [['commit_ref', sha]], 'but she may read it: the reference stays');
  t.deepEqual(kinds(await timeline(hearth, 'bob/secret', 1, bob.bearer)), [], 'a private repository alice cannot read gets nothing');
  t.is(await state(hearth, 'bob/shared', 1, bob.bearer), 'closed', 'a collaborator with write access closes');
  const shared = await timeline(hearth, 'bob/shared', 1, bob.bearer);
  t.deepEqual(kinds(shared), [['commit_ref', sha], ['close', sha]]);
  t.is(shared[0].body, `<a href="/alice/mine/commit/${sha}">Closes bob/other#1, closes bob/secret#1, fixes bob/shared#1</a>`);
  await drain(hearth);
});

test('a merged pull request closes the issues its title and description name with closing keywords, with the merge commit', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const auth = alice.bearer;
  await repoWithFeature(t, hearth, alice, 'pr');
  for (const title of ['one', 'two', 'three']) t.is((await hearth.call('POST', '/repos/alice/pr/issues', { auth, body: { title } })).status, 201);
  t.is((await hearth.call('PATCH', '/repos/alice/pr/issues/3', { auth, body: { state: 'closed' } })).status, 201);
  const created = await hearth.call('POST', '/repos/alice/pr/pulls', {
    auth, body: { head: 'feature', base: 'main', title: 'Feature', body: 'Closes #2\n\nMentions #1 and reopens #3.\n\n```\nfixes #1\n```' },
  });
  t.is(created.status, 201);
  const n = created.body.number;
  await drain(hearth);
  t.is(await state(hearth, 'alice/pr', 2, auth), 'open', 'opening the pull request closes nothing');

  t.is((await hearth.call('POST', `/repos/alice/pr/pulls/${n}/merge`, { auth, body: { Do: 'merge' } })).status, 200);
  await drain(hearth, 'branch-sync');
  const merged = (await hearth.call('GET', `/repos/alice/pr/pulls/${n}`)).body.merge_commit_sha;
  t.truthy(merged);
  t.is(await state(hearth, 'alice/pr', 2, auth), 'closed');
  t.deepEqual(kinds(await timeline(hearth, 'alice/pr', 2, auth)), [['close', merged]]);
  t.is(await state(hearth, 'alice/pr', 3, auth), 'open', 'a reopening keyword reopens');
  t.deepEqual(kinds(await timeline(hearth, 'alice/pr', 3, auth)).at(-1), ['reopen', merged]);
  t.is(await state(hearth, 'alice/pr', 1, auth), 'open', 'a mention, or a keyword in a code block, does nothing');
  const events = await hearth.store.db.query<{ payload: { commit_id?: string; index: number } }>(
    `SELECT payload FROM domain_event WHERE kind = 'issue.closed' AND payload->>'index' = '2'`,
  );
  t.deepEqual(events.map((e) => e.payload.commit_id), [merged]);
  await drain(hearth);
});

test('a pull mirror\'s sync references and closes nothing, as Gitea\'s mirror sync', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  await build.repo(hearth, alice, { name: 'up', autoInit: true });
  const clone = await cloneOf(t, hearth, alice, 'alice', 'up');
  const repo = await build.repo(hearth, alice, { name: 'mirrored' });
  t.is((await hearth.call('POST', '/repos/alice/mirrored/issues', { auth: alice.bearer, body: { title: 'x' } })).status, 201);
  const sha = await clone.commit('a.txt', 'a\n', 'fixes #1');
  const { inTx } = await import('../../db/data-source.js');
  const { recordRefUpdates } = await import('../../db/models/code/ref-updates.js');
  await hearth.store.db.query('UPDATE repository SET is_mirror = true WHERE id = $1', [repo.id]);
  const mirror = { ...repo, is_mirror: true, is_empty: false };
  // the mirror's git holds the commit (fetched from its source), and its sync records the refs
  const { git: runGit, ok } = await import('../git/git-client.js');
  await ok(runGit(clone.home, ['push', '--quiet', hearth.deps.git.pathOf('alice', 'mirrored'), 'HEAD:refs/heads/main'], clone.dir));
  await inTx(hearth.store, (tx) => recordRefUpdates(tx, hearth.deps.git.open(mirror), mirror, alice.user, [
    { ref: 'refs/heads/main', oldSha: '0'.repeat(40), newSha: sha },
  ], { mirrorSync: true }));
  await drain(hearth, 'branch-sync');
  t.is(await state(hearth, 'alice/mirrored', 1, alice.bearer), 'open');
  t.deepEqual(kinds(await timeline(hearth, 'alice/mirrored', 1, alice.bearer)), []);
  await drain(hearth);
});

test('a contents-API commit closes through the same path; the issues webhook names the commit as commit_id', async (t) => {
  const hearth = await startHearth(t, { HEARTH__webhook__ALLOWED_HOST_LIST: 'loopback' });
  const receiver = await startReceiver(t);
  const alice = await hearth.createUser('alice');
  const repo = await build.repo(hearth, alice, { name: 'hooked', autoInit: true });
  t.is((await hearth.call('POST', '/repos/alice/hooked/issues', { auth: alice.bearer, body: { title: 'x' } })).status, 201);
  await drain(hearth);
  await build.hook(hearth, { repoId: repo.id }, { url: receiver.url, events: ['issues'] });
  await drain(hearth);
  const written = await build.commit(hearth, repo, { files: { 'a.txt': 'a' }, message: 'Resolves #1' });
  await drain(hearth);
  const [request] = await receiver.waitFor(1);
  t.is(receiver.requests.length, 1);
  t.is(request.headers['x-gitea-event'], 'issues');
  t.like(request.json, { action: 'closed', number: 1, commit_id: written.commitId, sender: { login: 'alice' } });
  t.is(request.json.issue.state, 'closed');
  t.is(await state(hearth, 'alice/hooked', 1, alice.bearer), 'closed');
});
