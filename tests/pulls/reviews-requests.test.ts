import test from 'ava';
import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import { startHearth } from '../helpers/hearth.js';
import { pullFixture } from './review-setup.js';

test('review requests of users: added once, refused for the poster and unknown users, answered by a review, removed', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const carol = await hearth.createUser('carol');
  const { repo } = await pullFixture(hearth, alice, bob, 'proj');
  await build.hook(hearth, { repoId: repo.id }, { url: 'http://127.0.0.1:9/hook', events: ['pull_request_review_request'] });
  const path = '/repos/alice/proj/pulls/1/requested_reviewers';

  const asked = await hearth.call('POST', path, { auth: alice.bearer, body: { reviewers: ['bob'] } });
  t.is(asked.status, 201, JSON.stringify(asked.body));
  t.is(asked.body.length, 1);
  t.like(asked.body[0], { state: 'REQUEST_REVIEW', official: true, team: null });
  t.is(asked.body[0].user.login, 'bob');
  t.deepEqual((await hearth.call('POST', path, { auth: alice.bearer, body: { reviewers: ['bob'] } })).body, [], 'asked once');

  const poster = await hearth.call('POST', path, { auth: alice.bearer, body: { reviewers: ['alice'] } });
  t.is(poster.status, 422);
  t.is(poster.body.message, "poster of pr can't be reviewer");
  t.is((await hearth.call('POST', path, { auth: alice.bearer, body: { reviewers: ['nobody'] } })).status, 404);
  const stranger = await hearth.call('POST', path, { auth: carol.bearer, body: { reviewers: ['bob'] } });
  t.is(stranger.status, 422, 'carol may read but not choose reviewers');
  t.is(stranger.body.message, "Doer can't choose reviewer");

  const timeline = (await hearth.call('GET', '/repos/alice/proj/issues/1/timeline')).body;
  const entry = timeline.find((c: { type: string }) => c.type === 'review_request');
  t.like(entry, { removed_assignee: false });
  t.is(entry.assignee.login, 'bob');
  const [event] = await hearth.store.db.query<{ payload: { reviewer_id: number } }>(`SELECT payload FROM domain_event WHERE kind = 'pull_review.requested'`);
  t.is(event.payload.reviewer_id, bob.user.id);
  await drain(hearth, 'notify');
  const [thread] = await hearth.store.db.query<{ user_id: number }>('SELECT user_id FROM notification WHERE user_id = $1', [bob.user.id]);
  t.truthy(thread, 'the requested reviewer is notified');
  const [task] = await hearth.store.db.query<{ event_type: string; payload: string }>('SELECT event_type, payload FROM hook_task');
  t.is(task.event_type, 'pull_request_review_request');
  const payload = JSON.parse(task.payload);
  t.is(payload.action, 'review_requested');
  t.is(payload.requested_reviewer.login, 'bob');
  t.deepEqual(payload.pull_request.requested_reviewers.map((u: { login: string }) => u.login), ['bob']);

  // bob's review answers the request
  const review = await hearth.call('POST', '/repos/alice/proj/pulls/1/reviews', { auth: bob.bearer, body: { event: 'COMMENT', body: 'looks fine' } });
  t.is(review.status, 200);
  t.deepEqual((await hearth.call('GET', '/repos/alice/proj/pulls/1/reviews')).body.map((r: { state: string }) => r.state), ['COMMENT']);

  // asked again, then the request is withdrawn
  t.is((await hearth.call('POST', path, { auth: alice.bearer, body: { reviewers: ['bob'] } })).body.length, 1);
  t.is((await hearth.call('DELETE', path, { auth: alice.bearer, body: { reviewers: ['bob'] } })).status, 204);
  t.deepEqual((await hearth.call('GET', '/repos/alice/proj/pulls/1/reviews')).body.map((r: { state: string }) => r.state), ['COMMENT']);
  const removed = (await hearth.call('GET', '/repos/alice/proj/issues/1/timeline')).body.filter((c: { type: string }) => c.type === 'review_request');
  t.deepEqual(removed.map((c: { removed_assignee: boolean }) => c.removed_assignee), [false, false, true]);
});

test('review requests of teams of the owning organization', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  await build.org(hearth, alice, { name: 'acme' });
  const repo = await build.repo(hearth, 'acme', { name: 'proj', autoInit: true });
  await build.team(hearth, 'acme', { name: 'reviewers', unitsMap: { 'repo.code': 'write', 'repo.pulls': 'write' }, members: [bob], repos: [repo] });
  await build.commit(hearth, repo, { files: { 'a.txt': 'a\n' }, newBranch: 'feature' });
  await drain(hearth, 'branch-sync');
  t.is((await hearth.call('POST', '/repos/acme/proj/pulls', { auth: alice.bearer, body: { head: 'feature', base: 'main', title: 'A' } })).status, 201);
  const path = '/repos/acme/proj/pulls/1/requested_reviewers';

  const asked = await hearth.call('POST', path, { auth: alice.bearer, body: { team_reviewers: ['reviewers'] } });
  t.is(asked.status, 201, JSON.stringify(asked.body));
  t.is(asked.body.length, 1);
  t.is(asked.body[0].user, null);
  t.is(asked.body[0].team.name, 'reviewers');
  t.is(asked.body[0].state, 'REQUEST_REVIEW');
  t.is((await hearth.call('POST', path, { auth: alice.bearer, body: { team_reviewers: ['nope'] } })).status, 404);
  const reached = await hearth.store.db.query<{ payload: { reviewer_id: number; team_id: number } }>(
    `SELECT payload FROM domain_event WHERE kind = 'pull_review.requested'`);
  t.deepEqual(reached.map((e) => [e.payload.reviewer_id, e.payload.team_id]), [[bob.user.id, asked.body[0].team.id]], 'each member but the poster');
  await drain(hearth, 'notify');
  t.is((await hearth.store.db.query('SELECT id FROM notification WHERE user_id = $1', [bob.user.id])).length, 1);
  const entry = (await hearth.call('GET', '/repos/acme/proj/issues/1/timeline')).body.find((c: { type: string }) => c.type === 'review_request');
  t.is(entry.assignee_team.name, 'reviewers');
  t.is(entry.assignee, null);

  // a member's approval answers the team's request
  const approval = await hearth.call('POST', '/repos/acme/proj/pulls/1/reviews', { auth: bob.bearer, body: { event: 'APPROVED' } });
  t.is(approval.status, 200, JSON.stringify(approval.body));
  t.deepEqual((await hearth.call('GET', '/repos/acme/proj/pulls/1/reviews')).body.map((r: { state: string }) => r.state), ['APPROVED']);

  t.is((await hearth.call('POST', path, { auth: alice.bearer, body: { team_reviewers: ['reviewers'] } })).body.length, 1);
  t.is((await hearth.call('DELETE', path, { auth: alice.bearer, body: { team_reviewers: ['reviewers'] } })).status, 204);
  t.deepEqual(await hearth.store.db.query('SELECT id FROM review WHERE reviewer_team_id IS NOT NULL'), []);
});
