import test from 'ava';
import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import { startHearth } from '../helpers/hearth.js';
import { startReceiver, type ReceivedRequest } from '../helpers/receiver.js';
import { repoWithFeature } from '../pulls/pull-setup.js';

const typeAndAction = (r: ReceivedRequest): string => `${r.headers['x-gitea-event']}/${r.headers['x-gitea-event-type']}:${r.json.action}`;

test('issue events of a pull request send Gitea\'s PullRequestPayload as pull_request, _label, _assign and _milestone; issues hooks get none', async (t) => {
  const hearth = await startHearth(t, { HEARTH__webhook__ALLOWED_HOST_LIST: 'loopback' });
  const receiver = await startReceiver(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  await repoWithFeature(t, hearth, alice, 'wh');
  const [repo] = await hearth.store.db.query<{ id: number }>(`SELECT id FROM repository WHERE lower_name = 'wh'`);
  t.is((await hearth.call('PUT', '/repos/alice/wh/collaborators/bob', { auth: alice.bearer, body: { permission: 'write' } })).status, 204);
  await build.hook(hearth, { repoId: repo.id }, { url: `${receiver.url}?pulls`, events: ['pull_request'] });
  await build.hook(hearth, { repoId: repo.id }, { url: `${receiver.url}?issues`, events: ['issues'] });
  const label = await hearth.call('POST', '/repos/alice/wh/labels', { auth: alice.bearer, body: { name: 'bug', color: '#ff0000' } });
  const milestone = await hearth.call('POST', '/repos/alice/wh/milestones', { auth: alice.bearer, body: { title: 'v1' } });
  const created = await hearth.call('POST', '/repos/alice/wh/pulls', { auth: alice.bearer, body: { head: 'feature', base: 'main', title: 'Hooked', body: 'First' } });
  t.is(created.status, 201);
  await drain(hearth);
  t.deepEqual(receiver.requests.splice(0).map((r) => `${r.path.split('?')[1]}:${typeAndAction(r)}`), ['pulls:pull_request/pull_request:opened']);

  const step = async (method: string, path: string, body: unknown, auth = alice.bearer): Promise<ReceivedRequest> => {
    const answer = await hearth.call(method, `/repos/alice/wh${path}`, { auth, body });
    t.true(answer.status < 300, `${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    await drain(hearth);
    const got = receiver.requests.splice(0);
    t.deepEqual(got.map((r) => r.path.split('?')[1]), ['pulls'], `${method} ${path}`);
    t.deepEqual(Object.keys(got[0].json).filter((k) => k !== 'changes'), [
      'action', 'number', 'pull_request', 'requested_reviewer', 'repository', 'sender', 'commit_id', 'review',
    ]);
    t.like(got[0].json, { number: 1, pull_request: { id: created.body.id, number: 1 }, repository: { full_name: 'alice/wh' } });
    return got[0];
  };

  const edited = await step('PATCH', '/pulls/1', { title: 'Hooked up' }, bob.bearer);
  t.is(typeAndAction(edited), 'pull_request/pull_request:edited');
  t.deepEqual(edited.json.changes, { title: { from: 'Hooked' } });
  t.like(edited.json, { pull_request: { title: 'Hooked up' }, sender: { login: 'bob' } });
  // the poster's permissions, as Gitea's IssueChangeTitle shows them
  t.like(edited.json.repository.permissions, { admin: true, push: true });
  const bodyEdited = await step('PATCH', '/issues/1', { body: 'Second' });
  t.deepEqual(bodyEdited.json.changes, { body: { from: 'First' } });

  const labelled = await step('POST', '/issues/1/labels', { labels: [label.body.id] }, bob.bearer);
  t.is(typeAndAction(labelled), 'pull_request/pull_request_label:label_updated');
  t.deepEqual(labelled.json.pull_request.labels.map((l: { name: string }) => l.name), ['bug']);
  // a pull request's label update shows the repository with owner access (Gitea's IssueChangeLabels)
  t.like(labelled.json.repository.permissions, { admin: true, push: true, pull: true });
  const cleared = await step('DELETE', '/issues/1/labels', undefined, bob.bearer);
  t.is(typeAndAction(cleared), 'pull_request/pull_request_label:label_cleared');
  t.deepEqual(cleared.json.pull_request.labels, []);

  const assigned = await step('PATCH', '/pulls/1', { assignees: ['bob'] }, bob.bearer);
  t.is(typeAndAction(assigned), 'pull_request/pull_request_assign:assigned');
  t.like(assigned.json, { pull_request: { assignee: { login: 'bob' } }, repository: { permissions: { admin: false, push: true } } });
  const unassigned = await step('PATCH', '/pulls/1', { assignees: [] }, bob.bearer);
  t.is(typeAndAction(unassigned), 'pull_request/pull_request_assign:unassigned');

  const milestoned = await step('PATCH', '/pulls/1', { milestone: milestone.body.id });
  t.is(typeAndAction(milestoned), 'pull_request/pull_request_milestone:milestoned');
  t.like(milestoned.json.pull_request.milestone, { id: milestone.body.id, title: 'v1' });
  // Gitea's EditPullRequest ignores milestone 0; the issue edit clears it
  const demilestoned = await step('PATCH', '/issues/1', { milestone: 0 });
  t.is(typeAndAction(demilestoned), 'pull_request/pull_request_milestone:demilestoned');

  const closed = await step('PATCH', '/pulls/1', { state: 'closed' }, bob.bearer);
  t.is(typeAndAction(closed), 'pull_request/pull_request:closed');
  t.like(closed.json, { commit_id: '', sender: { login: 'bob' }, pull_request: { state: 'closed', merged: false } });
  const reopened = await step('PATCH', '/issues/1', { state: 'open' });
  t.is(typeAndAction(reopened), 'pull_request/pull_request:reopened');
  t.like(reopened.json.pull_request, { state: 'open' });

  // comments keep going out as pull_request_comment with the IssueCommentPayload
  await hearth.call('POST', '/repos/alice/wh/issues/1/comments', { auth: bob.bearer, body: { body: 'LGTM' } });
  await drain(hearth);
  const [comment] = receiver.requests.splice(0);
  t.is(typeAndAction(comment), 'issue_comment/pull_request_comment:created');
  t.true(comment.json.is_pull);
});

test('a hook that chose only pull_request_label gets the label events of a pull request and nothing else', async (t) => {
  const hearth = await startHearth(t, { HEARTH__webhook__ALLOWED_HOST_LIST: 'loopback' });
  const receiver = await startReceiver(t);
  const alice = await hearth.createUser('alice');
  await repoWithFeature(t, hearth, alice, 'wh');
  const [repo] = await hearth.store.db.query<{ id: number }>(`SELECT id FROM repository WHERE lower_name = 'wh'`);
  await build.hook(hearth, { repoId: repo.id }, { url: receiver.url, events: ['pull_request_label'] });
  const label = await hearth.call('POST', '/repos/alice/wh/labels', { auth: alice.bearer, body: { name: 'bug', color: '#ff0000' } });
  t.is((await hearth.call('POST', '/repos/alice/wh/pulls', { auth: alice.bearer, body: { head: 'feature', base: 'main', title: 'P' } })).status, 201);
  await hearth.call('PATCH', '/repos/alice/wh/pulls/1', { auth: alice.bearer, body: { title: 'Q', assignees: ['alice'] } });
  await hearth.call('POST', '/repos/alice/wh/issues/1/labels', { auth: alice.bearer, body: { labels: [label.body.id] } });
  await hearth.call('PATCH', '/repos/alice/wh/pulls/1', { auth: alice.bearer, body: { state: 'closed' } });
  await drain(hearth);
  t.deepEqual(receiver.requests.map(typeAndAction), ['pull_request/pull_request_label:label_updated']);
});
