import test from 'ava';
import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import { startHearth } from '../helpers/hearth.js';
import { startReceiver } from '../helpers/receiver.js';
import { repoWithFeature } from './pull-setup.js';

test('pull request webhooks: opened, synchronized (pull_request_sync), base edited, merged as closed; the merge also sends push', async (t) => {
  const hearth = await startHearth(t, { HEARTH__webhook__ALLOWED_HOST_LIST: 'loopback' });
  const receiver = await startReceiver(t);
  const alice = await hearth.createUser('alice');
  const clone = await repoWithFeature(t, hearth, alice, 'wh');
  await clone.checkout('main');
  await clone.run(['checkout', '--quiet', '-b', 'other']);
  await clone.push('other');
  const [repo] = await hearth.store.db.query<{ id: number }>(`SELECT id FROM repository WHERE lower_name = 'wh'`);
  await build.hook(hearth, { repoId: repo.id }, { url: receiver.url, events: ['pull_request', 'push'] });
  await drain(hearth);
  receiver.requests.length = 0;

  const created = await hearth.call('POST', '/repos/alice/wh/pulls', { auth: alice.bearer, body: { head: 'feature', base: 'main', title: 'Hooked' } });
  t.is(created.status, 201);
  await drain(hearth);
  t.is(receiver.requests.length, 1);
  const opened = receiver.requests[0];
  t.is(opened.headers['x-gitea-event'], 'pull_request');
  t.deepEqual(Object.keys(opened.json), ['action', 'number', 'pull_request', 'requested_reviewer', 'repository', 'sender', 'commit_id', 'review']);
  t.like(opened.json, { action: 'opened', number: created.body.number, sender: { login: 'alice' }, repository: { full_name: 'alice/wh' } });
  t.like(opened.json.pull_request, { id: created.body.id, title: 'Hooked', head: { ref: 'feature' }, base: { ref: 'main' } });

  receiver.requests.length = 0;
  await clone.checkout('feature');
  const next = await clone.commit('x.txt', 'x\n', 'x');
  await clone.push('feature');
  await drain(hearth);
  const kinds = receiver.requests.map((r) => `${r.headers['x-gitea-event-type']}:${r.json.action ?? r.json.ref}`).sort();
  t.deepEqual(kinds, ['pull_request_sync:synchronized', 'push:refs/heads/feature']);
  const sync = receiver.requests.find((r) => r.json.action === 'synchronized')!;
  t.is(sync.json.pull_request.head.sha, next);
  t.is(sync.json.commit_id, next);

  receiver.requests.length = 0;
  t.is((await hearth.call('PATCH', `/repos/alice/wh/pulls/${created.body.number}`, { auth: alice.bearer, body: { base: 'other' } })).status, 201);
  await drain(hearth);
  t.is(receiver.requests.length, 1);
  t.like(receiver.requests[0].json, { action: 'edited', changes: { ref: { from: 'main' } }, pull_request: { base: { ref: 'other' } } });

  receiver.requests.length = 0;
  t.is((await hearth.call('POST', `/repos/alice/wh/pulls/${created.body.number}/merge`, { auth: alice.bearer, body: { Do: 'merge' } })).status, 200);
  await drain(hearth);
  const merged = receiver.requests.map((r) => `${r.headers['x-gitea-event']}:${r.json.action ?? r.json.ref}`).sort();
  t.deepEqual(merged, ['pull_request:closed', 'push:refs/heads/other']);
  const closed = receiver.requests.find((r) => r.json.action === 'closed')!;
  t.like(closed.json.pull_request, { merged: true, state: 'closed', merged_by: { login: 'alice' } });
});
