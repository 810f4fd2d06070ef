import test from 'ava';
import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import { startHearth, type TestHearth, type TestUser } from '../helpers/hearth.js';
import { pullFixture } from './review-setup.js';

async function protect(hearth: TestHearth, alice: TestUser, rule: Record<string, unknown>) {
  const made = await hearth.call('POST', '/repos/alice/proj/branch_protections', { auth: alice.bearer, body: { rule_name: 'main', ...rule } });
  if (made.status !== 201) throw new Error(`protection: ${made.status} ${JSON.stringify(made.body)}`);
}

const merge = (hearth: TestHearth, user: TestUser, index: number, extra: Record<string, unknown> = {}) =>
  hearth.call('POST', `/repos/alice/proj/pulls/${index}/merge`, { auth: user.bearer, body: { Do: 'merge', ...extra } });

test('a protected base refuses the merge until the required statuses succeed and official approvals suffice, without rejections', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const carol = await hearth.createUser('carol');
  const dave = await hearth.createUser('dave');
  const { headSha } = await pullFixture(hearth, alice, bob, 'proj');
  t.is((await hearth.call('PUT', '/repos/alice/proj/collaborators/dave', { auth: alice.bearer, body: { permission: 'write' } })).status, 204);
  await protect(hearth, alice, { required_approvals: 1, enable_status_check: true, status_check_contexts: ['ci/*'], block_on_rejected_reviews: true });

  const refusedWith = async (reason: string) => {
    const answer = await merge(hearth, alice, 1);
    t.is(answer.status, 405, JSON.stringify(answer.body));
    t.is(answer.body.message, `not allowed to merge [reason: ${reason}]`);
  };
  await refusedWith('Not all required status checks successful');
  const status = (state: string, context: string) =>
    hearth.call('POST', `/repos/alice/proj/statuses/${headSha}`, { auth: alice.bearer, body: { state, context } });
  t.is((await status('pending', 'ci/build')).status, 201);
  await refusedWith('Not all required status checks successful');
  t.is((await status('success', 'lint')).status, 201);
  await refusedWith('Not all required status checks successful');
  t.is((await status('success', 'ci/build')).status, 201);
  await refusedWith('Does not have enough approvals');

  const approve = (user: TestUser) => hearth.call('POST', '/repos/alice/proj/pulls/1/reviews', { auth: user.bearer, body: { event: 'APPROVED' } });
  const unofficial = await approve(carol);
  t.is(unofficial.status, 200);
  t.false(unofficial.body.official, 'a reader’s approval does not count');
  await refusedWith('Does not have enough approvals');
  t.true((await approve(bob)).body.official);
  const rejection = await hearth.call('POST', '/repos/alice/proj/pulls/1/reviews', { auth: dave.bearer, body: { event: 'REQUEST_CHANGES', body: 'no' } });
  t.is(rejection.status, 200);
  await refusedWith('There are requested changes');
  t.is((await hearth.call('POST', `/repos/alice/proj/pulls/1/reviews/${rejection.body.id}/dismissals`, { auth: alice.bearer, body: { message: 'ok' } })).status, 200);
  t.is((await hearth.call('GET', '/repos/alice/proj/pulls/1/merge')).status, 404);

  const merged = await merge(hearth, alice, 1);
  t.is(merged.status, 200, JSON.stringify(merged.body));
  t.is((await hearth.call('GET', '/repos/alice/proj/pulls/1/merge')).status, 204);
});

test('force_merge lets repository administrators past unmet protection, not writers; protected files and requests block', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const { repo } = await pullFixture(hearth, alice, bob, 'proj');
  await protect(hearth, alice, { protected_file_patterns: 'docs/*;FEATURE.*', block_on_official_review_requests: true });

  const byWriter = await merge(hearth, bob, 1, { force_merge: true });
  t.is(byWriter.status, 405);
  t.is(byWriter.body.message, 'not allowed to merge [reason: Changed protected files]');
  t.is((await hearth.call('GET', '/repos/alice/proj/pulls/1/merge')).status, 404);
  const forced = await merge(hearth, alice, 1, { force_merge: true });
  t.is(forced.status, 200, JSON.stringify(forced.body));
  t.is((await hearth.call('GET', '/repos/alice/proj/pulls/1/merge')).status, 204);

  // a second pull request touches nothing protected, but waits for an official reviewer asked to review
  await build.commit(hearth, repo, { files: { 'other.txt': 'x\n' }, newBranch: 'other' });
  await drain(hearth, 'branch-sync');
  t.is((await hearth.call('POST', '/repos/alice/proj/pulls', { auth: alice.bearer, body: { head: 'other', base: 'main', title: 'Other' } })).status, 201);
  t.is((await hearth.call('POST', '/repos/alice/proj/pulls/2/requested_reviewers', { auth: alice.bearer, body: { reviewers: ['bob'] } })).status, 201);
  const waiting = await merge(hearth, alice, 2);
  t.is(waiting.status, 405);
  t.is(waiting.body.message, 'not allowed to merge [reason: There are official review requests]');
  t.is((await hearth.call('POST', '/repos/alice/proj/pulls/2/reviews', { auth: bob.bearer, body: { event: 'COMMENT', body: 'fine' } })).status, 200);
  t.is((await merge(hearth, alice, 2)).status, 200);
});

test('a push to the head makes reviews stale and dismisses approvals when the rule says so', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const { repo } = await pullFixture(hearth, alice, bob, 'proj');
  await protect(hearth, alice, { required_approvals: 1, dismiss_stale_approvals: true });
  const approval = await hearth.call('POST', '/repos/alice/proj/pulls/1/reviews', { auth: bob.bearer, body: { event: 'APPROVED' } });
  t.is(approval.status, 200);

  await build.commit(hearth, repo, { files: { 'more.txt': 'more\n' }, branch: 'feature' });
  await drain(hearth);
  const review = (await hearth.call('GET', `/repos/alice/proj/pulls/1/reviews/${approval.body.id}`)).body;
  t.true(review.dismissed);
  t.true(review.stale);
  const timeline = (await hearth.call('GET', '/repos/alice/proj/issues/1/timeline')).body;
  t.truthy(timeline.find((c: { type: string; body: string }) => c.type === 'dismiss_review' && /New commits pushed/.test(c.body)));
  const refused = await merge(hearth, alice, 1);
  t.is(refused.status, 405);
  t.is(refused.body.message, 'not allowed to merge [reason: Does not have enough approvals]');
});

test('with an approvals whitelist only its users count; an outdated head blocks when the rule says so', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const carol = await hearth.createUser('carol');
  const { repo } = await pullFixture(hearth, alice, bob, 'proj');
  await build.commit(hearth, repo, { files: { 'base.txt': 'moved on\n' } });
  await drain(hearth);
  const pull = (await hearth.call('GET', '/repos/alice/proj/pulls/1')).body;
  t.true(pull.mergeable);
  await protect(hearth, alice, {
    required_approvals: 1, enable_approvals_whitelist: true, approvals_whitelist_username: ['carol'], block_on_outdated_branch: true,
  });

  const byBob = await hearth.call('POST', '/repos/alice/proj/pulls/1/reviews', { auth: bob.bearer, body: { event: 'APPROVED' } });
  t.false(byBob.body.official, 'a writer outside the whitelist');
  const refused = await merge(hearth, alice, 1);
  t.is(refused.status, 405);
  t.is(refused.body.message, 'not allowed to merge [reason: Does not have enough approvals]');
  const byCarol = await hearth.call('POST', '/repos/alice/proj/pulls/1/reviews', { auth: carol.bearer, body: { event: 'APPROVED' } });
  t.true(byCarol.body.official, 'a reader on the whitelist');
  const outdated = await merge(hearth, alice, 1);
  t.is(outdated.status, 405);
  t.is(outdated.body.message, 'not allowed to merge [reason: The head branch is behind the base branch]');
});
