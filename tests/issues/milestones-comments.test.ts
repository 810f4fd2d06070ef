import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';

const commentKinds = async (hearth: TestHearth, repoId: number) =>
  (await hearth.store.db.query<{ kind: string }>(`SELECT kind FROM domain_event WHERE repo_id = $1 AND kind LIKE 'comment.%' ORDER BY id`, [repoId])).map((r) => r.kind);

test('milestones: CRUD by id or name, state and closed_at, open and closed counts', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const repo = await build.repo(hearth, alice, { name: 'tool' });
  const made = await hearth.call('POST', '/repos/alice/tool/milestones', { auth: alice.bearer, body: { title: 'v1', description: 'first', due_on: '2030-01-01T00:00:00Z' } });
  t.is(made.status, 201);
  t.like(made.body, { title: 'v1', description: 'first', state: 'open', open_issues: 0, closed_issues: 0, closed_at: null, due_on: '2030-01-01T00:00:00Z' });
  t.is((await hearth.call('POST', '/repos/alice/tool/milestones', { auth: alice.bearer, body: { title: '' } })).status, 422);
  t.is((await hearth.call('POST', '/repos/alice/tool/milestones', { auth: alice.bearer, body: { title: 'x', due_on: '2030-01-01' } })).status, 422);
  await build.issue(hearth, repo, { milestoneId: made.body.id });
  await build.issue(hearth, repo, { milestoneId: made.body.id, closed: true });
  const got = await hearth.call('GET', '/repos/alice/tool/milestones/v1');
  t.like(got.body, { id: made.body.id, open_issues: 1, closed_issues: 1 });
  t.is((await hearth.call('GET', `/repos/alice/tool/milestones/${made.body.id}`)).body.title, 'v1');
  const closed = await hearth.call('PATCH', '/repos/alice/tool/milestones/v1', { auth: alice.bearer, body: { state: 'closed', title: 'v1.0' } });
  t.like(closed.body, { state: 'closed', title: 'v1.0' });
  t.truthy(closed.body.closed_at);
  t.deepEqual((await hearth.call('GET', '/repos/alice/tool/milestones')).body, []);
  t.is((await hearth.call('GET', '/repos/alice/tool/milestones?state=closed')).body.length, 1);
  t.is((await hearth.call('GET', '/repos/alice/tool/milestones?state=all&name=1.0')).body.length, 1);
  t.is((await hearth.call('DELETE', `/repos/alice/tool/milestones/${made.body.id}`, { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('GET', '/repos/alice/tool/milestones/v1.0')).status, 404);
  t.deepEqual(await hearth.store.db.query('SELECT milestone_id FROM issue WHERE repo_id = $1', [repo.id]), [{ milestone_id: null }, { milestone_id: null }]);
});

test('comments: create, list per issue and repository with since/before, get with the repository check, edit and delete by poster or writer', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const carol = await hearth.createUser('carol');
  const repo = await build.repo(hearth, alice, { name: 'tool' });
  await build.repo(hearth, alice, { name: 'other' });
  const issue = await build.issue(hearth, repo);
  const made = await hearth.call('POST', '/repos/alice/tool/issues/1/comments', { auth: bob.bearer, body: { body: 'first!' } });
  t.is(made.status, 201);
  t.like(made.body, { body: 'first!', pull_request_url: '', issue_url: `${hearth.rootUrl}alice/tool/issues/1`, assets: [] });
  t.is(made.body.html_url, `${hearth.rootUrl}alice/tool/issues/1#issuecomment-${made.body.id}`);
  t.is(made.body.user.login, 'bob');
  t.is((await hearth.call('POST', '/repos/alice/tool/issues/1/comments', { auth: bob.bearer, body: { body: '' } })).status, 422);
  t.is((await hearth.call('GET', '/repos/alice/tool/issues/1')).body.comments, 1);

  const list = await hearth.call('GET', '/repos/alice/tool/issues/1/comments');
  t.deepEqual(list.body.map((c: { id: number }) => c.id), [made.body.id]);
  t.is(list.headers.get('x-total-count'), '1');
  t.deepEqual((await hearth.call('GET', '/repos/alice/tool/issues/1/comments?since=2999-01-01T00:00:00Z')).body, []);
  t.is((await hearth.call('GET', '/repos/alice/tool/issues/comments?before=2999-01-01T00:00:00Z')).body.length, 1);
  t.is((await hearth.call('GET', `/repos/alice/tool/issues/comments/${made.body.id}`)).body.id, made.body.id);
  t.is((await hearth.call('GET', `/repos/alice/other/issues/comments/${made.body.id}`)).status, 404, 'a comment of another repository');

  t.is((await hearth.call('PATCH', `/repos/alice/tool/issues/comments/${made.body.id}`, { auth: carol.bearer, body: { body: 'no' } })).status, 403);
  const edited = await hearth.call('PATCH', `/repos/alice/tool/issues/comments/${made.body.id}`, { auth: bob.bearer, body: { body: 'edited' } });
  t.is(edited.status, 200);
  t.is(edited.body.body, 'edited');
  const deprecated = await hearth.call('PATCH', `/repos/alice/tool/issues/1/comments/${made.body.id}`, { auth: alice.bearer, body: { body: 'by owner' } });
  t.is(deprecated.body.body, 'by owner');
  t.is((await hearth.call('DELETE', `/repos/alice/tool/issues/comments/${made.body.id}`, { auth: carol.bearer })).status, 403);
  t.is((await hearth.call('DELETE', `/repos/alice/tool/issues/1/comments/${made.body.id}`, { auth: bob.bearer })).status, 204);
  t.deepEqual(await hearth.store.db.query('SELECT id FROM comment WHERE id = $1', [made.body.id]), []);
  t.is((await hearth.call('GET', '/repos/alice/tool/issues/1')).body.comments, 0);
  t.deepEqual(await commentKinds(hearth, repo.id), ['comment.created', 'comment.edited', 'comment.edited', 'comment.deleted']);

  await hearth.store.db.query('UPDATE issue SET is_locked = true WHERE id = $1', [issue.id]);
  t.is((await hearth.call('POST', '/repos/alice/tool/issues/1/comments', { auth: bob.bearer, body: { body: 'locked' } })).status, 403);
  t.is((await hearth.call('POST', '/repos/alice/tool/issues/1/comments', { auth: alice.bearer, body: { body: 'owner may' } })).status, 201);
});
