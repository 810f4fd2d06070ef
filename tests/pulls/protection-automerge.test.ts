import test from 'ava';
import { drain } from '../helpers/drain.js';
import { startHearth } from '../helpers/hearth.js';
import { pullFixture } from './review-setup.js';

test('a merge scheduled for when checks succeed is made by the worker once the required status succeeds', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const { headSha } = await pullFixture(hearth, alice, bob, 'proj');
  t.is((await hearth.call('POST', '/repos/alice/proj/branch_protections', {
    auth: alice.bearer, body: { rule_name: 'main', enable_status_check: true, status_check_contexts: ['ci/*'] },
  })).status, 201);

  const scheduled = await hearth.call('POST', '/repos/alice/proj/pulls/1/merge', { auth: alice.bearer, body: { Do: 'squash', merge_when_checks_succeed: true } });
  t.is(scheduled.status, 201, JSON.stringify(scheduled.body));
  const [row] = await hearth.store.db.query<{ merge_style: string; doer_id: number }>('SELECT merge_style, doer_id FROM pull_auto_merge');
  t.like(row, { merge_style: 'squash', doer_id: alice.user.id });
  const twice = await hearth.call('POST', '/repos/alice/proj/pulls/1/merge', { auth: alice.bearer, body: { Do: 'squash', merge_when_checks_succeed: true } });
  t.is(twice.status, 409);
  const timeline = (await hearth.call('GET', '/repos/alice/proj/issues/1/timeline')).body;
  t.truthy(timeline.find((c: { type: string }) => c.type === 'pull_scheduled_merge'));

  await drain(hearth);
  const status = (state: string) => hearth.call('POST', `/repos/alice/proj/statuses/${headSha}`, { auth: bob.bearer, body: { state, context: 'ci/test' } });
  t.is((await status('pending')).status, 201);
  await drain(hearth);
  t.is((await hearth.call('GET', '/repos/alice/proj/pulls/1/merge')).status, 404, 'not merged while the check is pending');

  t.is((await status('success')).status, 201);
  const ran = await drain(hearth);
  t.true(ran.some((job) => job.name === 'pull-auto-merge' && job.outcome === 'done'), JSON.stringify(ran));
  t.is((await hearth.call('GET', '/repos/alice/proj/pulls/1/merge')).status, 204);
  t.deepEqual(await hearth.store.db.query('SELECT id FROM pull_auto_merge'), []);
  const pull = (await hearth.call('GET', '/repos/alice/proj/pulls/1')).body;
  t.is(pull.merged_by.login, 'alice');
});

test('a scheduled merge is cancelled by who scheduled it or an administrator', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const { repo } = await pullFixture(hearth, alice, bob, 'proj');
  t.truthy(repo);
  t.is((await hearth.call('POST', '/repos/alice/proj/branch_protections', {
    auth: alice.bearer, body: { rule_name: 'main', required_approvals: 1 },
  })).status, 201);
  t.is((await hearth.call('DELETE', '/repos/alice/proj/pulls/1/merge', { auth: alice.bearer })).status, 404, 'nothing scheduled');
  t.is((await hearth.call('POST', '/repos/alice/proj/pulls/1/merge', { auth: alice.bearer, body: { Do: 'merge', merge_when_checks_succeed: true } })).status, 201);
  await drain(hearth);
  t.is((await hearth.call('GET', '/repos/alice/proj/pulls/1/merge')).status, 404, 'waits for an approval');

  const byBob = await hearth.call('DELETE', '/repos/alice/proj/pulls/1/merge', { auth: bob.bearer });
  t.is(byBob.status, 403);
  t.is((await hearth.call('DELETE', '/repos/alice/proj/pulls/1/merge', { auth: alice.bearer })).status, 204);
  t.deepEqual(await hearth.store.db.query('SELECT id FROM pull_auto_merge'), []);
  const timeline = (await hearth.call('GET', '/repos/alice/proj/issues/1/timeline')).body;
  t.truthy(timeline.find((c: { type: string }) => c.type === 'pull_cancel_scheduled_merge'));

  // an approval no longer merges it
  t.is((await hearth.call('POST', '/repos/alice/proj/pulls/1/reviews', { auth: bob.bearer, body: { event: 'APPROVED' } })).status, 200);
  await drain(hearth);
  t.is((await hearth.call('GET', '/repos/alice/proj/pulls/1/merge')).status, 404);
});

test('an approval that completes the protection triggers the scheduled merge', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  await pullFixture(hearth, alice, bob, 'proj');
  t.is((await hearth.call('POST', '/repos/alice/proj/branch_protections', {
    auth: alice.bearer, body: { rule_name: 'main', required_approvals: 1 },
  })).status, 201);
  t.is((await hearth.call('POST', '/repos/alice/proj/pulls/1/merge', { auth: alice.bearer, body: { Do: 'merge', merge_when_checks_succeed: true } })).status, 201);
  await drain(hearth);
  t.is((await hearth.call('GET', '/repos/alice/proj/pulls/1/merge')).status, 404);
  t.is((await hearth.call('POST', '/repos/alice/proj/pulls/1/reviews', { auth: bob.bearer, body: { event: 'APPROVED' } })).status, 200);
  await drain(hearth);
  t.is((await hearth.call('GET', '/repos/alice/proj/pulls/1/merge')).status, 204);
});
