import test from 'ava';
import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import { startHearth } from '../helpers/hearth.js';
import { startReceiver, type ReceivedRequest } from '../helpers/receiver.js';

const loopbackAllowed = { HEARTH__webhook__ALLOWED_HOST_LIST: 'loopback' };
const events = (requests: ReceivedRequest[]): string[] => requests.map((r) => `${r.path.split('?')[1]}:${r.headers['x-gitea-event']}:${r.json.action ?? r.json.ref ?? ''}`);

test('repository created and deleted reach organization and system hooks; user hooks fire for the user\'s own repositories only', async (t) => {
  const hearth = await startHearth(t, loopbackAllowed);
  const receiver = await startReceiver(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const acme = await build.org(hearth, alice, { name: 'acme' });
  await build.hook(hearth, { ownerId: acme.id }, { url: `${receiver.url}?org`, events: ['repository'] });
  await build.hook(hearth, { ownerId: bob.user.id }, { url: `${receiver.url}?bob`, events: ['repository'] });
  await build.hook(hearth, { system: true }, { url: `${receiver.url}?system`, events: ['repository'] });
  await drain(hearth);

  const made = await hearth.call('POST', '/orgs/acme/repos', { auth: alice.bearer, body: { name: 'lib' } });
  t.is(made.status, 201);
  await drain(hearth);
  t.deepEqual(events(receiver.requests).sort(), ['org:repository:created', 'system:repository:created']);
  const created = receiver.requests[0].json;
  t.deepEqual(Object.keys(created), ['action', 'repository', 'organization', 'sender']);
  t.like(created.repository, { id: made.body.id, full_name: 'acme/lib', permissions: { admin: true, push: true, pull: true } });
  t.like(created.organization, { id: acme.id, login: 'acme' });
  t.like(created.sender, { login: 'alice' });

  receiver.requests.length = 0;
  t.is((await hearth.call('DELETE', '/repos/acme/lib', { auth: alice.bearer })).status, 204);
  await drain(hearth);
  t.deepEqual(events(receiver.requests).sort(), ['org:repository:deleted', 'system:repository:deleted']);
  t.like(receiver.requests[0].json.repository, { id: made.body.id, full_name: 'acme/lib' });

  receiver.requests.length = 0;
  await build.repo(hearth, bob, { name: 'mine' });
  await drain(hearth);
  t.deepEqual(events(receiver.requests).sort(), ['bob:repository:created', 'system:repository:created']);
});

test('a fork sends the fork event to the base repository\'s hooks, with the base as forkee', async (t) => {
  const hearth = await startHearth(t, loopbackAllowed);
  const receiver = await startReceiver(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const base = await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  await build.hook(hearth, { repoId: base.id }, { url: `${receiver.url}?base`, events: ['fork'] });
  await drain(hearth);
  const fork = await hearth.call('POST', '/repos/alice/tool/forks', { auth: bob.bearer, body: {} });
  t.is(fork.status, 202, JSON.stringify(fork.body));
  await drain(hearth);
  t.deepEqual(events(receiver.requests), ['base:fork:']);
  const p = receiver.requests[0].json;
  t.deepEqual(Object.keys(p), ['forkee', 'repository', 'sender']);
  t.like(p.forkee, { id: base.id, full_name: 'alice/tool', fork: false });
  t.like(p.repository, { id: fork.body.id, full_name: 'bob/tool', fork: true, parent: { id: base.id } });
  t.like(p.repository.permissions, { admin: true, push: true, pull: true });
  t.like(p.sender, { login: 'bob' });
});

test('releases send published, updated and deleted with the release as the API renders it; a tag push sends create and a push without commits', async (t) => {
  const hearth = await startHearth(t, loopbackAllowed);
  const receiver = await startReceiver(t);
  const alice = await hearth.createUser('alice');
  const repo = await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  await build.hook(hearth, { repoId: repo.id }, { url: `${receiver.url}?r`, events: ['release', 'create', 'push'] });
  await drain(hearth);

  const made = await hearth.call('POST', '/repos/alice/tool/releases', { auth: alice.bearer, body: { tag_name: 'v1', name: 'One', body: 'notes' } });
  t.is(made.status, 201);
  await drain(hearth);
  t.deepEqual(events(receiver.requests).sort(), ['r:create:v1', 'r:push:refs/tags/v1', 'r:release:published']);
  const published = receiver.requests.find((r) => r.headers['x-gitea-event'] === 'release')!.json;
  t.deepEqual(Object.keys(published), ['action', 'release', 'repository', 'sender']);
  t.deepEqual(published.release, made.body);
  t.like(published.repository.permissions, { admin: true, push: true, pull: true });
  const tagPush = receiver.requests.find((r) => r.headers['x-gitea-event'] === 'push')!.json;
  t.deepEqual(tagPush.commits, []);
  t.is(tagPush.total_commits, 0);
  t.is(tagPush.head_commit.id, tagPush.after);
  t.is(tagPush.compare_url, `${hearth.rootUrl}alice/tool/compare/${'0'.repeat(40)}...${tagPush.after}`);
  const create = receiver.requests.find((r) => r.headers['x-gitea-event'] === 'create')!.json;
  t.like(create, { ref: 'v1', ref_type: 'tag', sha: tagPush.after });

  receiver.requests.length = 0;
  const edited = await hearth.call('PATCH', `/repos/alice/tool/releases/${made.body.id}`, { auth: alice.bearer, body: { name: 'Uno' } });
  await drain(hearth);
  t.deepEqual(events(receiver.requests), ['r:release:updated']);
  t.deepEqual(receiver.requests[0].json.release, edited.body);

  receiver.requests.length = 0;
  t.is((await hearth.call('DELETE', `/repos/alice/tool/releases/${made.body.id}`, { auth: alice.bearer })).status, 204);
  await drain(hearth);
  t.deepEqual(events(receiver.requests), ['r:release:deleted']);
  t.like(receiver.requests[0].json.release, { id: made.body.id, tag_name: 'v1', name: 'Uno' });
});
