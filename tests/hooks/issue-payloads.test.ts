import { createHmac } from 'node:crypto';
import test from 'ava';
import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import { startHearth } from '../helpers/hearth.js';
import { startReceiver, type ReceivedRequest } from '../helpers/receiver.js';

const loopbackAllowed = { HEARTH__webhook__ALLOWED_HOST_LIST: 'loopback' };
const typeAndAction = (r: ReceivedRequest): string => `${r.headers['x-gitea-event']}/${r.headers['x-gitea-event-type']}:${r.json.action}`;

test('issue events reach issues hooks as Gitea\'s IssuePayload and comments as IssueCommentPayload, with headers and signatures', async (t) => {
  const hearth = await startHearth(t, loopbackAllowed);
  const receiver = await startReceiver(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const repo = await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  t.is((await hearth.call('PUT', '/repos/alice/tool/collaborators/bob', { auth: alice.bearer, body: { permission: 'write' } })).status, 204);
  await build.hook(hearth, { repoId: repo.id }, { url: receiver.url, events: ['issues', 'issue_comment'], secret: 's3cret' });
  const label = await hearth.call('POST', '/repos/alice/tool/labels', { auth: alice.bearer, body: { name: 'bug', color: '#ff0000' } });
  const milestone = await hearth.call('POST', '/repos/alice/tool/milestones', { auth: alice.bearer, body: { title: 'v1' } });
  await drain(hearth);
  receiver.requests.length = 0;

  const step = async (method: string, path: string, body: unknown, auth = alice.bearer): Promise<ReceivedRequest[]> => {
    const answer = await hearth.call(method, `/repos/alice/tool${path}`, { auth, body });
    t.true(answer.status < 300, `${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    await drain(hearth);
    const got = receiver.requests.splice(0);
    return got;
  };

  const [opened] = await step('POST', '/issues', { title: 'Crash', body: 'It crashes' });
  t.is(typeAndAction(opened), 'issues/issues:opened');
  const issue = (await hearth.call('GET', '/repos/alice/tool/issues/1')).body;
  t.deepEqual(Object.keys(opened.json), ['action', 'number', 'issue', 'repository', 'sender', 'commit_id']);
  t.deepEqual(opened.json.issue, issue);
  t.like(opened.json, { number: 1, commit_id: '', sender: { login: 'alice' }, repository: { full_name: 'alice/tool', permissions: { admin: true } } });
  t.is(opened.headers['x-gitea-signature'], createHmac('sha256', 's3cret').update(opened.body).digest('hex'));
  t.is(opened.headers['x-hub-signature-256'], `sha256=${opened.headers['x-gitea-signature']}`);
  t.is(opened.headers['x-github-event'], 'issues');
  t.is(opened.headers['x-gitea-delivery'], opened.headers['x-gogs-delivery']);

  const [edited] = await step('PATCH', '/issues/1', { title: 'Crash on start' }, bob.bearer);
  t.is(typeAndAction(edited), 'issues/issues:edited');
  t.deepEqual(edited.json.changes, { title: { from: 'Crash' } });
  t.like(edited.json, { issue: { title: 'Crash on start' }, sender: { login: 'bob' } });
  // one payload per changed field, as Gitea sends them; none for the ref
  const both = await step('PATCH', '/issues/1', { title: 'Crash at start', body: 'Always', ref: 'refs/heads/fix' }, bob.bearer);
  t.deepEqual(both.map(typeAndAction), ['issues/issues:edited', 'issues/issues:edited']);
  // deliveries run side by side, so they may arrive in either order
  const changes = both.map((r) => r.json.changes).sort((a, b) => Object.keys(a)[0].localeCompare(Object.keys(b)[0]));
  t.deepEqual(changes, [{ body: { from: 'It crashes' } }, { title: { from: 'Crash on start' } }]);
  t.true(both.every((r) => r.json.issue.title === 'Crash at start' && r.json.issue.body === 'Always'));

  const [labelled] = await step('POST', '/issues/1/labels', { labels: [label.body.id] }, bob.bearer);
  t.is(typeAndAction(labelled), 'issues/issue_label:label_updated');
  t.deepEqual(labelled.json.issue.labels.map((l: { name: string }) => l.name), ['bug']);
  t.like(labelled.json.repository.permissions, { admin: false, push: false, pull: false });
  // a replacement is one change to hooks, with the labels it leaves
  const ui = await hearth.call('POST', '/repos/alice/tool/labels', { auth: alice.bearer, body: { name: 'ui', color: '#00ff00' } });
  await drain(hearth);
  receiver.requests.length = 0;
  const replaced = await step('PUT', '/issues/1/labels', { labels: [ui.body.id] }, bob.bearer);
  t.deepEqual(replaced.map(typeAndAction), ['issues/issue_label:label_updated']);
  t.deepEqual(replaced[0].json.issue.labels.map((l: { name: string }) => l.name), ['ui']);
  const [cleared] = await step('DELETE', '/issues/1/labels', undefined, bob.bearer);
  t.is(typeAndAction(cleared), 'issues/issue_label:label_cleared');
  t.deepEqual(cleared.json.issue.labels, []);

  const [assigned] = await step('PATCH', '/issues/1', { assignees: ['bob'] }, bob.bearer);
  t.is(typeAndAction(assigned), 'issues/issue_assign:assigned');
  t.like(assigned.json, { issue: { assignee: { login: 'bob' } }, repository: { permissions: { admin: false, push: true, pull: true } } });

  const [milestoned] = await step('PATCH', '/issues/1', { milestone: milestone.body.id });
  t.is(typeAndAction(milestoned), 'issues/issue_milestone:milestoned');
  t.like(milestoned.json.issue.milestone, { id: milestone.body.id, title: 'v1' });
  const [demilestoned] = await step('PATCH', '/issues/1', { milestone: 0 });
  t.is(typeAndAction(demilestoned), 'issues/issue_milestone:demilestoned');

  const [closed] = await step('PATCH', '/issues/1', { state: 'closed' });
  t.is(typeAndAction(closed), 'issues/issues:closed');
  t.like(closed.json, { commit_id: '', issue: { state: 'closed' } });
  const [reopened] = await step('PATCH', '/issues/1', { state: 'open' });
  t.is(typeAndAction(reopened), 'issues/issues:reopened');

  const [created] = await step('POST', '/issues/1/comments', { body: 'Same here' }, bob.bearer);
  t.is(typeAndAction(created), 'issue_comment/issue_comment:created');
  t.deepEqual(Object.keys(created.json), ['action', 'issue', 'comment', 'repository', 'sender', 'is_pull']);
  // the payload shows users to nobody in particular, as an anonymous reader sees them
  const comment = (await hearth.call('GET', `/repos/alice/tool/issues/comments/${created.json.comment.id}`)).body;
  t.deepEqual(created.json.comment, comment);
  t.like(created.json, { is_pull: false, issue: { number: 1, comments: 1 }, sender: { login: 'bob' } });

  const [commentEdited] = await step('PATCH', `/issues/comments/${comment.id}`, { body: 'Same here, on 1.2' }, bob.bearer);
  t.is(typeAndAction(commentEdited), 'issue_comment/issue_comment:edited');
  t.deepEqual(commentEdited.json.changes, { body: { from: 'Same here' } });
  t.is(commentEdited.json.comment.body, 'Same here, on 1.2');
  const [deleted] = await step('DELETE', `/issues/comments/${comment.id}`, undefined, bob.bearer);
  t.is(typeAndAction(deleted), 'issue_comment/issue_comment:deleted');
  t.like(deleted.json.comment, { id: comment.id, body: 'Same here, on 1.2', user: { login: 'bob' } });
});

test('a hook that chose only issue_comment gets comments and no issue events; a due-date edit sends nothing', async (t) => {
  const hearth = await startHearth(t, loopbackAllowed);
  const receiver = await startReceiver(t);
  const alice = await hearth.createUser('alice');
  const repo = await build.repo(hearth, alice, { name: 'tool' });
  await build.hook(hearth, { repoId: repo.id }, { url: `${receiver.url}?comments`, events: ['issue_comment'] });
  await build.hook(hearth, { repoId: repo.id }, { url: `${receiver.url}?issues`, events: ['issues_only'] });
  await drain(hearth);
  await hearth.call('POST', '/repos/alice/tool/issues', { auth: alice.bearer, body: { title: 'One' } });
  await hearth.call('PATCH', '/repos/alice/tool/issues/1', { auth: alice.bearer, body: { due_date: '2030-01-01T00:00:00Z' } });
  await hearth.call('POST', '/repos/alice/tool/issues/1/comments', { auth: alice.bearer, body: { body: 'hi' } });
  await drain(hearth);
  t.deepEqual(receiver.requests.map((r) => `${r.path.split('?')[1]}:${r.headers['x-gitea-event-type']}:${r.json.action}`).sort(), [
    'comments:issue_comment:created', 'issues:issues:opened',
  ]);
});

test('a package published and deleted reaches its owner\'s package hooks as Gitea\'s PackagePayload', async (t) => {
  const hearth = await startHearth(t, loopbackAllowed);
  const receiver = await startReceiver(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  await build.hook(hearth, { ownerId: alice.user.id }, { url: `${receiver.url}?alice`, events: ['package'] });
  await build.hook(hearth, { ownerId: bob.user.id }, { url: `${receiver.url}?bob`, events: ['package'] });
  await drain(hearth);
  const put = await fetch(`${hearth.rootUrl}api/packages/alice/generic/tool/1.0.0/tool.bin`, { method: 'PUT', headers: { Authorization: alice.bearer }, body: 'bytes' });
  t.is(put.status, 201);
  await drain(hearth);
  const listed = (await hearth.call('GET', '/packages/alice', { auth: alice.bearer })).body;
  t.is(receiver.requests.length, 1);
  const created = receiver.requests[0];
  t.is(created.path, '/hook?alice');
  t.is(typeAndAction(created), 'package/package:created');
  t.deepEqual(Object.keys(created.json), ['action', 'repository', 'package', 'organization', 'sender']);
  t.deepEqual(created.json.package, listed[0]);
  t.like(created.json, { repository: null, organization: null, sender: { login: 'alice' } });

  receiver.requests.length = 0;
  t.is((await hearth.call('DELETE', '/packages/alice/generic/tool/1.0.0', { auth: alice.bearer })).status, 204);
  await drain(hearth);
  t.deepEqual(receiver.requests.map(typeAndAction), ['package/package:deleted']);
  t.deepEqual(receiver.requests[0].json.package, listed[0]);
});
