import test from 'ava';
import { drain } from '../helpers/drain.js';
import { startHearth } from '../helpers/hearth.js';
import { git, ok, refOnServer } from '../git/git-client.js';
import { repoWithFeature } from './pull-setup.js';
import { openPull } from './merge-helpers.js';

test('refusals: disabled style 405, moved head 409, conflict, closed, template message, delete_branch_after_merge, manually merged', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const auth = alice.bearer;
  const clone = await repoWithFeature(t, hearth, alice, 'rf');
  const index = await openPull(hearth, alice, 'rf');

  const edit = await hearth.call('PATCH', '/repos/alice/rf', { auth, body: { allow_squash_merge: false } });
  t.is(edit.status, 200);
  t.is((await hearth.call('POST', `/repos/alice/rf/pulls/${index}/merge`, { auth, body: { Do: 'squash' } })).status, 405);
  t.is((await hearth.call('POST', `/repos/alice/rf/pulls/${index}/merge`, { auth, body: { Do: 'manually-merged' } })).status, 405, 'off by default');
  t.is((await hearth.call('POST', `/repos/alice/rf/pulls/${index}/merge`, { auth, body: { Do: 'octopus' } })).status, 422);
  const stale = await hearth.call('POST', `/repos/alice/rf/pulls/${index}/merge`, { auth, body: { Do: 'merge', head_commit_id: 'a'.repeat(40) } });
  t.is(stale.status, 409);
  t.is(await refOnServer(hearth, 'alice', 'rf', 'refs/heads/main'), await clone.rev('origin/main'), 'nothing merged');

  // a merge message template on the default branch gives title and description
  await clone.checkout('main');
  await clone.run(['pull', '--quiet', clone.url, 'main']);
  await clone.run(['checkout', '--quiet', '-b', 'tmpl']);
  const { mkdirSync, writeFileSync } = await import('node:fs');
  mkdirSync(`${clone.dir}/.gitea/default_merge_message`, { recursive: true });
  writeFileSync(`${clone.dir}/.gitea/default_merge_message/MERGE_TEMPLATE.md`, 'Merge ${PullRequestTitle} (${PullRequestReference}) into $BaseBranch\n\nFrom ${HeadBranch} by ${PullRequestPosterName}\n');
  await clone.run(['add', '.gitea']);
  await clone.run(['commit', '--quiet', '-m', 'template']);
  await clone.run(['push', '--quiet', clone.url, 'tmpl:main']);
  await drain(hearth, 'branch-sync');
  const merged = await hearth.call('POST', `/repos/alice/rf/pulls/${index}/merge`, { auth, body: { Do: 'merge', delete_branch_after_merge: true } });
  t.is(merged.status, 200, JSON.stringify(merged.body));
  const message = await ok(git(clone.home, ['--git-dir', hearth.deps.git.pathOf('alice', 'rf'), 'log', '-1', '--format=%B', 'main']));
  t.is(message.trim(), `Merge Add feature (#${index}) into main\n\nFrom feature by alice`);
  t.is(await refOnServer(hearth, 'alice', 'rf', 'refs/heads/feature'), null, 'the head branch is deleted');
  t.truthy(await refOnServer(hearth, 'alice', 'rf', `refs/pull/${index}/head`), 'its head stays under refs/pull');

  // a conflict: both sides change the same file
  await clone.checkout('main');
  await clone.run(['pull', '--quiet', clone.url, 'main']);
  await clone.run(['checkout', '--quiet', '-b', 'left']);
  await clone.commit('README.md', 'left\n', 'left');
  await clone.push('left');
  await clone.checkout('main');
  await clone.commit('README.md', 'right\n', 'right');
  await clone.push('main');
  const conflicting = await hearth.call('POST', '/repos/alice/rf/pulls', { auth, body: { head: 'left', base: 'main', title: 'Conflicting' } });
  t.is(conflicting.status, 201);
  t.is(conflicting.body.mergeable, false);
  const [row] = await hearth.store.db.query<{ status: number; conflicted_files: string[] }>('SELECT status, conflicted_files FROM pull_request WHERE index = $1', [conflicting.body.number]);
  t.deepEqual(row, { status: 0, conflicted_files: ['README.md'] });
  const refused = await hearth.call('POST', `/repos/alice/rf/pulls/${conflicting.body.number}/merge`, { auth, body: { Do: 'merge' } });
  t.is(refused.status, 405);

  // closed: 404, as Gitea
  t.is((await hearth.call('PATCH', `/repos/alice/rf/issues/${conflicting.body.number}`, { auth, body: { state: 'closed' } })).status, 201);
  t.is((await hearth.call('POST', `/repos/alice/rf/pulls/${conflicting.body.number}/merge`, { auth, body: { Do: 'merge' } })).status, 404);

  // manually merged: the commit must be on the base branch
  t.is((await hearth.call('PATCH', '/repos/alice/rf', { auth, body: { allow_manual_merge: true } })).status, 200);
  await clone.run(['checkout', '--quiet', '-b', 'manual', 'main']);
  const manualSha = await clone.commit('manual.txt', 'm\n', 'manual');
  await clone.push('manual');
  const manual = await hearth.call('POST', '/repos/alice/rf/pulls', { auth, body: { head: 'manual', base: 'main', title: 'Manual' } });
  t.is((await hearth.call('POST', `/repos/alice/rf/pulls/${manual.body.number}/merge`, { auth, body: { Do: 'manually-merged', MergeCommitID: manualSha } })).status, 422);
  await clone.push('manual:main');
  const done = await hearth.call('POST', `/repos/alice/rf/pulls/${manual.body.number}/merge`, { auth, body: { Do: 'manually-merged', MergeCommitID: manualSha } });
  t.is(done.status, 200, JSON.stringify(done.body));
  const after = await hearth.call('GET', `/repos/alice/rf/pulls/${manual.body.number}`);
  t.is(after.body.merged, true);
  t.is(after.body.merge_commit_sha, manualSha);
  await drain(hearth);
});
