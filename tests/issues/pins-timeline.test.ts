import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';

const pinOrders = async (hearth: TestHearth, repoId: number) =>
  (await hearth.store.db.query<{ index: number; pin_order: number }>('SELECT index, pin_order FROM issue WHERE repo_id = $1 AND pin_order > 0 ORDER BY pin_order', [repoId]))
    .map((r) => r.index);

test('pins: repository admins pin up to MAX_PINNED, unpin, move; lists and new_pin_allowed follow', async (t) => {
  const hearth = await startHearth(t, { 'HEARTH__repository.issue__MAX_PINNED': '2' });
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const repo = await build.repo(hearth, alice, { name: 'tool' });
  for (let i = 0; i < 3; i++) await build.issue(hearth, repo);
  t.deepEqual((await hearth.call('GET', '/repos/alice/tool/new_pin_allowed')).body, { issues: true, pull_requests: true });
  t.is((await hearth.call('POST', '/repos/alice/tool/issues/1/pin', { auth: bob.bearer })).status, 403);
  t.is((await hearth.call('POST', '/repos/alice/tool/issues/1/pin', { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('POST', '/repos/alice/tool/issues/1/pin', { auth: alice.bearer })).status, 204, 'pinning twice changes nothing');
  t.is((await hearth.call('POST', '/repos/alice/tool/issues/2/pin', { auth: alice.bearer })).status, 204);
  t.deepEqual((await hearth.call('GET', '/repos/alice/tool/new_pin_allowed')).body, { issues: false, pull_requests: true });
  t.is((await hearth.call('POST', '/repos/alice/tool/issues/3/pin', { auth: alice.bearer })).status, 422);
  t.deepEqual(await pinOrders(hearth, repo.id), [1, 2]);
  t.is((await hearth.call('PATCH', '/repos/alice/tool/issues/2/pin/1', { auth: alice.bearer })).status, 204);
  t.deepEqual(await pinOrders(hearth, repo.id), [2, 1]);
  const pinned = await hearth.call('GET', '/repos/alice/tool/issues/pinned');
  t.deepEqual(pinned.body.map((i: { number: number; pin_order: number }) => [i.number, i.pin_order]), [[2, 1], [1, 2]]);
  t.is((await hearth.call('DELETE', '/repos/alice/tool/issues/2/pin', { auth: alice.bearer })).status, 204);
  t.deepEqual(await pinOrders(hearth, repo.id), [1]);
  t.is((await hearth.call('GET', '/repos/alice/tool/issues/1')).body.pin_order, 1);
});

test('the timeline lists comments and events with Gitea\'s type names and what they name', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const repo = await build.repo(hearth, alice, { name: 'tool' });
  const bug = (await hearth.call('POST', '/repos/alice/tool/labels', { auth: alice.bearer, body: { name: 'bug', color: 'f00' } })).body.id;
  const v1 = (await hearth.call('POST', '/repos/alice/tool/milestones', { auth: alice.bearer, body: { title: 'v1' } })).body.id;
  await build.issue(hearth, repo, { title: 'T' });
  await hearth.call('POST', '/repos/alice/tool/issues/1/labels', { auth: alice.bearer, body: { labels: [bug] } });
  await hearth.call('PATCH', '/repos/alice/tool/issues/1', { auth: alice.bearer, body: { milestone: v1, assignees: ['alice'], title: 'T2' } });
  await hearth.call('POST', '/repos/alice/tool/issues/1/comments', { auth: alice.bearer, body: { body: 'note' } });
  await hearth.call('PATCH', '/repos/alice/tool/issues/1', { auth: alice.bearer, body: { state: 'closed' } });
  await hearth.call('PATCH', '/repos/alice/tool/issues/1', { auth: alice.bearer, body: { state: 'open' } });
  await hearth.call('POST', '/repos/alice/tool/issues/1/deadline', { auth: alice.bearer, body: { due_date: '2030-01-01T00:00:00Z' } });
  const answer = await hearth.call('GET', '/repos/alice/tool/issues/1/timeline');
  t.is(answer.status, 200);
  const types = answer.body.map((c: { type: string }) => c.type);
  t.deepEqual(types, ['label', 'change_title', 'assignees', 'milestone', 'comment', 'close', 'reopen', 'added_deadline']);
  const byType = (type: string) => answer.body.find((c: { type: string }) => c.type === type);
  t.is(byType('label').label.id, bug);
  t.is(byType('label').body, '1');
  t.like(byType('change_title'), { old_title: 'T', new_title: 'T2' });
  t.is(byType('assignees').assignee.login, 'alice');
  t.is(byType('milestone').milestone.id, v1);
  t.is(byType('comment').body, 'note');
  t.is(byType('added_deadline').body, '2030-01-01');
  t.is(answer.headers.get('x-total-count'), '8');
  const page = await hearth.call('GET', '/repos/alice/tool/issues/1/timeline?limit=3&page=2');
  t.deepEqual(page.body.map((c: { type: string }) => c.type), ['milestone', 'comment', 'close']);
});
