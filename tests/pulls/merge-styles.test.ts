import test from 'ava';
import { drain } from '../helpers/drain.js';
import { startHearth } from '../helpers/hearth.js';
import { git, ok, refOnServer } from '../git/git-client.js';
import { repoWithFeature } from './pull-setup.js';
import { advanceMain, history, openPull } from './merge-helpers.js';

test('squash, rebase, rebase-merge and fast-forward-only in the git history; title and message fields', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const auth = alice.bearer;

  // squash: one commit on top of main, with the fields' message
  const squash = await repoWithFeature(t, hearth, alice, 'sq');
  await squash.commit('second.txt', '2\n', 'second');
  await squash.push('feature');
  const squashBase = await advanceMain(squash);
  const sqIndex = await openPull(hearth, alice, 'sq');
  const sq = await hearth.call('POST', `/repos/alice/sq/pulls/${sqIndex}/merge`, {
    auth, body: { Do: 'squash', MergeTitleField: 'Squashed title', MergeMessageField: 'The body' },
  });
  t.is(sq.status, 200, JSON.stringify(sq.body));
  const [sqTop] = await history(hearth, squash, 'sq', 'main', 1);
  t.is(sqTop.split('|')[1], squashBase, 'one parent: the old main');
  t.is(sqTop.split('|')[4], 'Squashed title');
  const body = await ok(git(squash.home, ['--git-dir', hearth.deps.git.pathOf('alice', 'sq'), 'log', '-1', '--format=%B', 'main']));
  t.is(body.trim(), 'Squashed title\n\nThe body');
  const tree = await ok(git(squash.home, ['--git-dir', hearth.deps.git.pathOf('alice', 'sq'), 'ls-tree', '--name-only', 'main']));
  t.deepEqual(tree.trim().split('\n').sort(), ['README.md', 'feature.txt', 'main.txt', 'second.txt']);

  // rebase: the feature's commits replayed on main, authors kept, no merge commit
  const rebase = await repoWithFeature(t, hearth, alice, 'rb');
  const rbBase = await advanceMain(rebase);
  const rbIndex = await openPull(hearth, alice, 'rb');
  t.is((await hearth.call('POST', `/repos/alice/rb/pulls/${rbIndex}/merge`, { auth, body: { Do: 'rebase' } })).status, 200);
  const [rbTop, rbNext] = await history(hearth, rebase, 'rb', 'main', 2);
  t.is(rbTop.split('|')[1], rbBase);
  t.is(rbTop.split('|')[4], 'add feature');
  t.is(rbTop.split('|')[2], 'Tester <tester@example.com>', 'the author is kept');
  t.is(rbTop.split('|')[3], 'Hearth', 'the server commits the replay');
  t.not(rbTop.split('|')[0], await rebase.rev('feature'));
  t.is(rbNext.split('|')[0], rbBase);

  // rebase-merge: replayed, then a merge commit whose second parent is the replayed tip
  const rm = await repoWithFeature(t, hearth, alice, 'rm');
  const rmBase = await advanceMain(rm);
  const rmIndex = await openPull(hearth, alice, 'rm');
  t.is((await hearth.call('POST', `/repos/alice/rm/pulls/${rmIndex}/merge`, { auth, body: { Do: 'rebase-merge' } })).status, 200);
  // the replayed tip is found by the merge's second parent, not by log order (commits of the same second tie)
  const [rmTop] = await history(hearth, rm, 'rm', 'main', 1);
  const [rmFirst, rmSecond] = rmTop.split('|')[1].split(' ');
  t.is(rmFirst, rmBase);
  t.not(rmSecond, await rm.rev('feature'), 'the feature is replayed, not merged as it is');
  const [rmReplayed] = await history(hearth, rm, 'rm', rmSecond, 1);
  t.is(rmReplayed.split('|')[1], rmBase);

  // fast-forward-only: refused while main has diverged (409), done once it has not
  const ff = await repoWithFeature(t, hearth, alice, 'ff');
  const ffIndex = await openPull(hearth, alice, 'ff');
  await advanceMain(ff);
  const diverged = await hearth.call('POST', `/repos/alice/ff/pulls/${ffIndex}/merge`, { auth, body: { Do: 'fast-forward-only' } });
  t.is(diverged.status, 409);
  const ff2 = await repoWithFeature(t, hearth, alice, 'ff2');
  const ff2Index = await openPull(hearth, alice, 'ff2');
  t.is((await hearth.call('POST', `/repos/alice/ff2/pulls/${ff2Index}/merge`, { auth, body: { Do: 'fast-forward-only' } })).status, 200);
  t.is(await refOnServer(hearth, 'alice', 'ff2', 'refs/heads/main'), await ff2.rev('feature'));
  await drain(hearth);
});

