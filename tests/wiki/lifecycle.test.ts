import { existsSync } from 'node:fs';
import test from 'ava';
import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';
import { startReceiver } from '../helpers/receiver.js';

const b64 = (text: string): string => Buffer.from(text).toString('base64');
const wikiDir = (hearth: TestHearth, owner: string, repo: string): string => hearth.deps.git.pathOf(owner, `${repo}.wiki`);

test('wiki changes reach hooks listening to wiki with Gitea\'s WikiPayload; the wiki moves and goes with its repository', async (t) => {
  const hearth = await startHearth(t, { HEARTH__webhook__ALLOWED_HOST_LIST: 'loopback' });
  const receiver = await startReceiver(t);
  const alice = await hearth.createUser('alice');
  const acme = await build.org(hearth, alice, { name: 'acme' });
  const repo = await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  await build.hook(hearth, { repoId: repo.id }, { url: `${receiver.url}?wiki`, events: ['wiki'] });
  await build.hook(hearth, { repoId: repo.id }, { url: `${receiver.url}?push`, events: ['push'] });
  await drain(hearth);
  const api = '/repos/alice/tool/wiki';

  await hearth.call('POST', `${api}/new`, { auth: alice.bearer, body: { title: 'Home Page', content_base64: b64('a'), message: 'start the wiki' } });
  await hearth.call('PATCH', `${api}/page/Home-Page`, { auth: alice.bearer, body: { content_base64: b64('b') } });
  await hearth.call('DELETE', `${api}/page/Home-Page`, { auth: alice.bearer });
  await drain(hearth);
  t.deepEqual(receiver.requests.map((r) => `${r.path.split('?')[1]}:${r.headers['x-gitea-event']}:${r.json.action}:${r.json.page}:${r.json.comment}`).sort(), [
    'wiki:wiki:created:Home-Page:start the wiki',
    'wiki:wiki:deleted:Home-Page:',
    'wiki:wiki:edited:Home-Page:Update "Home-Page"',
  ]);
  const created = receiver.requests.find((r) => r.json.action === 'created')!.json;
  t.deepEqual(Object.keys(created), ['action', 'repository', 'sender', 'page', 'comment']);
  t.like(created.repository, { id: repo.id, full_name: 'alice/tool', permissions: { admin: true, push: true, pull: true } });
  t.like(created.sender, { login: 'alice' });

  // Rename, transfer and delete take the wiki along.
  t.is((await hearth.call('PATCH', '/repos/alice/tool', { auth: alice.bearer, body: { name: 'tool2' } })).status, 200);
  t.false(existsSync(wikiDir(hearth, 'alice', 'tool')));
  t.true(existsSync(wikiDir(hearth, 'alice', 'tool2')));
  t.is((await hearth.call('GET', '/repos/alice/tool2/wiki/revisions/Home-Page')).status, 404, 'the deleted page stays deleted');
  await hearth.call('POST', '/repos/alice/tool2/wiki/new', { auth: alice.bearer, body: { title: 'Again', content_base64: b64('c') } });
  t.is((await hearth.call('POST', '/repos/alice/tool2/transfer', { auth: alice.bearer, body: { new_owner: 'acme' } })).status, 202);
  t.true(existsSync(wikiDir(hearth, acme.name, 'tool2')));
  t.false(existsSync(wikiDir(hearth, 'alice', 'tool2')));
  t.like((await hearth.call('GET', '/repos/acme/tool2/wiki/page/Again')).body, { content_base64: b64('c') });
  t.is((await hearth.call('DELETE', '/repos/acme/tool2', { auth: alice.bearer })).status, 204);
  t.false(existsSync(wikiDir(hearth, acme.name, 'tool2')));
});
