import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth } from '../helpers/hearth.js';

const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const gif = Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');

test('upload, serve, replace and delete a repository avatar', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  await build.repo(hearth, alice, { name: 'tools' });
  const dir = path.join(hearth.config.dataDir, 'repo-avatars');

  const uploaded = await hearth.call('POST', '/repos/alice/tools/avatar', { auth: alice.bearer, body: { image: png.toString('base64') } });
  t.is(uploaded.status, 204, JSON.stringify(uploaded.body));
  const repo = (await hearth.call('GET', '/repos/alice/tools')).body;
  t.regex(repo.avatar_url, new RegExp(`^${hearth.rootUrl}repo-avatars/[0-9a-f]{64}$`));
  const served = await fetch(repo.avatar_url);
  t.is(served.status, 200);
  t.is(served.headers.get('content-type'), 'image/png');
  t.deepEqual(Buffer.from(await served.arrayBuffer()), png);
  const first = path.basename(repo.avatar_url);
  t.true(existsSync(path.join(dir, first)));

  t.is((await hearth.call('POST', '/repos/alice/tools/avatar', { auth: alice.bearer, body: { image: gif.toString('base64') } })).status, 204);
  const second = path.basename((await hearth.call('GET', '/repos/alice/tools')).body.avatar_url);
  t.not(second, first);
  t.deepEqual(readdirSync(dir), [second], 'the replaced file is removed');
  t.is((await fetch(`${hearth.rootUrl}repo-avatars/${second}`)).headers.get('content-type'), 'image/gif');

  t.is((await hearth.call('DELETE', '/repos/alice/tools/avatar', { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('GET', '/repos/alice/tools')).body.avatar_url, '');
  t.deepEqual(readdirSync(dir), []);
  t.is((await fetch(`${hearth.rootUrl}repo-avatars/${second}`)).status, 404);
  t.is((await fetch(`${hearth.rootUrl}repo-avatars/..%2Fsecret.key`)).status, 404);
});

test('not an image, too large, bad base64 and callers without admin rights are refused', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  await build.repo(hearth, alice, { name: 'tools' });

  const text = await hearth.call('POST', '/repos/alice/tools/avatar', { auth: alice.bearer, body: { image: Buffer.from('hello, world').toString('base64') } });
  t.is(text.status, 422);
  const big = Buffer.concat([png, Buffer.alloc(1024 * 1024)]);
  const tooBig = await hearth.call('POST', '/repos/alice/tools/avatar', { auth: alice.bearer, body: { image: big.toString('base64') } });
  t.is(tooBig.status, 413);
  t.is((await hearth.call('POST', '/repos/alice/tools/avatar', { auth: alice.bearer, body: { image: '@@not base64@@' } })).status, 400);
  t.is((await hearth.call('POST', '/repos/alice/tools/avatar', { auth: bob.bearer, body: { image: png.toString('base64') } })).status, 403);
  t.is((await hearth.call('POST', '/repos/alice/tools/avatar', { body: { image: png.toString('base64') } })).status, 401);

  const [row] = await hearth.store.db.query<{ avatar: string }>('SELECT avatar FROM repository');
  t.is(row.avatar, '');
  t.false(existsSync(path.join(hearth.config.dataDir, 'repo-avatars')) && readdirSync(path.join(hearth.config.dataDir, 'repo-avatars')).length > 0);
});
