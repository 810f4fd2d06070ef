import test from 'ava';
import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import { startHearth } from '../helpers/hearth.js';
import { pullFixture } from './review-setup.js';

test('a pending review is invisible to others until submitted; comments join the started review', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const { headSha, repo } = await pullFixture(hearth, alice, bob, 'proj');
  const base = '/repos/alice/proj/pulls/1/reviews';
  await build.hook(hearth, { repoId: repo.id }, { url: 'http://127.0.0.1:9/hook', events: ['pull_request_review'] });

  const started = await hearth.call('POST', base, {
    auth: bob.bearer, body: { body: 'first look', event: 'PENDING', comments: [{ path: 'feature.txt', body: 'why two?', new_position: 2 }] },
  });
  t.is(started.status, 200, JSON.stringify(started.body));
  t.like(started.body, { state: 'PENDING', body: 'first look', comments_count: 1, commit_id: headSha, official: false, dismissed: false, html_url: '' });
  t.is(started.body.user.login, 'bob');
  t.is(started.body.pull_request_url, `${hearth.rootUrl}alice/proj/pulls/1`);
  const id = started.body.id;

  // others see nothing of it; the reviewer does
  const seenByAlice = await hearth.call('GET', base, { auth: alice.bearer });
  t.is(seenByAlice.status, 200);
  t.deepEqual(seenByAlice.body, []);
  t.is((await hearth.call('GET', `${base}/${id}`, { auth: alice.bearer })).status, 404);
  t.is((await hearth.call('GET', `${base}/${id}/comments`)).status, 404);
  t.deepEqual((await hearth.call('GET', base, { auth: bob.bearer })).body.map((r: { id: number }) => r.id), [id]);
  const timeline = await hearth.call('GET', '/repos/alice/proj/issues/1/timeline', { auth: alice.bearer });
  t.false(timeline.body.some((c: { type: string }) => c.type === 'review' || c.type === 'code'), 'nothing of a pending review in the timeline');

  // a second review with comments joins the started one
  const joined = await hearth.call('POST', base, {
    auth: bob.bearer, body: { body: 'more', event: 'PENDING', comments: [{ path: 'README.md', body: 'old line', old_position: 1 }] },
  });
  t.is(joined.status, 200, JSON.stringify(joined.body));
  t.is(joined.body.id, id);
  t.is(joined.body.comments_count, 2);
  t.is((await hearth.store.db.query('SELECT id FROM review WHERE issue_id = (SELECT issue_id FROM pull_request WHERE index = 1)')).length, 1);

  // submitting it: only its reviewer, not with PENDING again, then visible to all
  t.is((await hearth.call('POST', `${base}/${id}`, { auth: alice.bearer, body: { event: 'COMMENT', body: 'x' } })).status, 404);
  const stays = await hearth.call('POST', `${base}/${id}`, { auth: bob.bearer, body: { event: 'PENDING', body: 'x' } });
  t.is(stays.status, 422);
  t.is(stays.body.message, 'review stay pending');
  const submitted = await hearth.call('POST', `${base}/${id}`, { auth: bob.bearer, body: { event: 'APPROVED', body: 'just two nits' } });
  t.is(submitted.status, 200, JSON.stringify(submitted.body));
  t.like(submitted.body, { id, state: 'APPROVED', body: 'just two nits', comments_count: 2, official: true, stale: false });
  t.regex(submitted.body.html_url, /\/alice\/proj\/pulls\/1#issuecomment-\d+$/);
  const again = await hearth.call('POST', `${base}/${id}`, { auth: bob.bearer, body: { event: 'APPROVED' } });
  t.is(again.status, 422);
  t.is(again.body.message, 'only a pending review can be submitted');

  const listed = await hearth.call('GET', base);
  t.deepEqual(listed.body.map((r: { id: number; state: string }) => [r.id, r.state]), [[id, 'APPROVED']]);
  t.is(listed.headers.get('x-total-count'), '1');
  const comments = await hearth.call('GET', `${base}/${id}/comments`);
  t.is(comments.status, 200);
  t.deepEqual(
    comments.body.map((c: any) => [c.path, c.position, c.original_position, c.body, c.user.login, c.pull_request_review_id]),
    [['README.md', 0, 1, 'old line', 'bob', id], ['feature.txt', 2, 0, 'why two?', 'bob', id]],
  );
  t.regex(comments.body[0].html_url, /\/alice\/proj\/pulls\/1#issuecomment-\d+$/);
  t.is(comments.body[1].diff_hunk, '@@ -0,0 +1,2 @@\n+one\n+two', 'the diff up to the commented line');
  t.is(comments.body[1].commit_id, headSha);
  t.is(comments.body[0].diff_hunk, '', 'README.md is not changed by the pull request');
  const after = await hearth.call('GET', '/repos/alice/proj/issues/1/timeline');
  const entry = after.body.find((c: { type: string }) => c.type === 'review');
  t.truthy(entry);
  t.is(entry.review_id, id);
  t.is(entry.body, 'just two nits');
  const [event] = await hearth.store.db.query<{ payload: { review_id: number } }>(`SELECT payload FROM domain_event WHERE kind = 'pull_review.approved'`);
  t.is(event.payload.review_id, id);
  await drain(hearth, 'notify');
  const tasks = await hearth.store.db.query<{ event_type: string; payload: string }>('SELECT event_type, payload FROM hook_task');
  t.deepEqual(tasks.map((task) => task.event_type), ['pull_request_review_approved'], 'nothing was sent for the pending review');
  const payload = JSON.parse(tasks[0].payload);
  t.like(payload, { action: 'reviewed', number: 1, review: { type: 'pull_request_review_approved', content: 'just two nits' } });
  t.is(payload.sender.login, 'bob');
});

test("Gitea's refusals: own pull request, empty bodies, closed pull requests", async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  await pullFixture(hearth, alice, bob, 'proj');
  const base = '/repos/alice/proj/pulls/1/reviews';
  const refused = async (auth: string, body: unknown, message: string) => {
    const answer = await hearth.call('POST', base, { auth, body });
    t.is(answer.status, 422, JSON.stringify(body));
    t.is(answer.body.message, message);
  };
  await refused(alice.bearer, { event: 'APPROVED' }, 'approve your own pull is not allowed');
  await refused(alice.bearer, { event: 'REQUEST_CHANGES', body: 'no' }, 'reject your own pull is not allowed');
  await refused(bob.bearer, { event: 'REQUEST_CHANGES', body: '  ' }, 'review event REQUEST_CHANGES requires a body');
  await refused(bob.bearer, { event: 'COMMENT', body: '' }, 'review event COMMENT requires a body or a comment');
  await refused(bob.bearer, { event: 'PENDING' }, 'review event PENDING requires a body');
  t.is((await hearth.call('POST', base, { body: { event: 'COMMENT', body: 'x' } })).status, 401);
  t.is((await hearth.store.db.query('SELECT id FROM review')).length, 0);
  t.is((await hearth.store.db.query('SELECT id FROM comment WHERE type IN (21, 22)')).length, 0);

  // a comment review made of code comments alone has no body
  const codeOnly = await hearth.call('POST', base, { auth: bob.bearer, body: { event: 'COMMENT', comments: [{ path: 'feature.txt', body: 'nit', new_position: 1 }] } });
  t.is(codeOnly.status, 200, JSON.stringify(codeOnly.body));
  t.like(codeOnly.body, { state: 'COMMENT', body: '', comments_count: 1, official: false });

  t.is((await hearth.call('PATCH', '/repos/alice/proj/issues/1', { auth: alice.bearer, body: { state: 'closed' } })).status, 201);
  await refused(bob.bearer, { event: 'COMMENT', body: 'late' }, "can't submit review for a closed or merged PR");
  t.is((await hearth.store.db.query('SELECT id FROM review')).length, 1);
});

test('dismissal and undismissal by repository administrators; deletion by the reviewer', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const carol = await hearth.createUser('carol');
  await pullFixture(hearth, alice, bob, 'proj');
  const base = '/repos/alice/proj/pulls/1/reviews';
  const rejected = await hearth.call('POST', base, { auth: bob.bearer, body: { event: 'REQUEST_CHANGES', body: 'please rename' } });
  t.is(rejected.status, 200, JSON.stringify(rejected.body));
  t.like(rejected.body, { state: 'REQUEST_CHANGES', official: true });
  const id = rejected.body.id;

  t.is((await hearth.call('POST', `${base}/${id}/dismissals`, { auth: bob.bearer, body: { message: 'mine' } })).status, 403, 'a writer is no administrator');
  const dismissed = await hearth.call('POST', `${base}/${id}/dismissals`, { auth: alice.bearer, body: { message: 'out of date' } });
  t.is(dismissed.status, 200, JSON.stringify(dismissed.body));
  t.true(dismissed.body.dismissed);
  const timeline = (await hearth.call('GET', '/repos/alice/proj/issues/1/timeline')).body;
  const entry = timeline.find((c: { type: string }) => c.type === 'dismiss_review');
  t.like(entry, { body: 'out of date', review_id: id });
  t.is(entry.user.login, 'alice');
  const undismissed = await hearth.call('POST', `${base}/${id}/undismissals`, { auth: alice.bearer });
  t.is(undismissed.status, 200);
  t.false(undismissed.body.dismissed);

  const comment = await hearth.call('POST', base, { auth: carol.bearer, body: { event: 'COMMENT', body: 'drive-by' } });
  t.is(comment.status, 200, 'any reader of a public repository reviews');
  t.false(comment.body.official);
  const notVerdict = await hearth.call('POST', `${base}/${comment.body.id}/dismissals`, { auth: alice.bearer, body: { message: 'x' } });
  t.is(notVerdict.status, 403);

  t.is((await hearth.call('DELETE', `${base}/${id}`, { auth: carol.bearer })).status, 403);
  t.is((await hearth.call('DELETE', `${base}/${id}`, { auth: bob.bearer })).status, 204);
  t.is((await hearth.call('GET', `${base}/${id}`)).status, 404);
  t.deepEqual(await hearth.store.db.query('SELECT id FROM comment WHERE review_id = $1', [id]), []);
  t.is((await hearth.call('GET', `${base}/999999`)).status, 404);
});
