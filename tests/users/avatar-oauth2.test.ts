import { createHash } from 'node:crypto';
import test from 'ava';
import { hashToken } from '../../db/crypto.js';
import { startHearth } from '../helpers/hearth.js';

const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const gif = Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');

async function fetchBytes(url: string): Promise<{ status: number; type: string | null; bytes: Buffer }> {
  const response = await fetch(url);
  return { status: response.status, type: response.headers.get('content-type'), bytes: Buffer.from(await response.arrayBuffer()) };
}

test('a user uploads, replaces and deletes an avatar; avatar_url always serves an image', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');

  const generatedUrl = (await hearth.call('GET', '/user', { auth: alice.bearer })).body.avatar_url;
  t.is(generatedUrl, `${hearth.rootUrl}avatars/${createHash('md5').update('alice@example.com').digest('hex')}`);
  const generated = await fetchBytes(generatedUrl);
  t.is(generated.status, 200);
  t.is(generated.type, 'image/png');
  t.deepEqual(generated.bytes.subarray(0, 8), png.subarray(0, 8));
  t.deepEqual((await fetchBytes(generatedUrl)).bytes, generated.bytes, 'the generated image is deterministic');
  const bobs = await fetchBytes((await hearth.call('GET', '/users/bob', { auth: bob.bearer })).body.avatar_url);
  t.notDeepEqual(bobs.bytes, generated.bytes, 'and differs from user to user');

  t.is((await hearth.call('POST', '/user/avatar', { auth: alice.bearer, body: { image: png.toString('base64') } })).status, 204);
  const [{ avatar }] = await hearth.store.db.query<{ avatar: string }>('SELECT avatar FROM "user" WHERE id = $1', [alice.user.id]);
  t.regex(avatar, /^avatar-\d+-[0-9a-f]{32}$/);
  const uploadedUrl = (await hearth.call('GET', '/users/alice', { auth: bob.bearer })).body.avatar_url;
  t.is(uploadedUrl, `${hearth.rootUrl}avatars/${avatar}`);
  const uploaded = await fetchBytes(uploadedUrl);
  t.is(uploaded.status, 200);
  t.is(uploaded.type, 'image/png');
  t.deepEqual(uploaded.bytes, png);

  t.is((await hearth.call('POST', '/user/avatar', { auth: alice.bearer, body: { image: gif.toString('base64') } })).status, 204);
  const replacedUrl = (await hearth.call('GET', '/user', { auth: alice.bearer })).body.avatar_url;
  t.not(replacedUrl, uploadedUrl);
  t.is((await fetchBytes(replacedUrl)).type, 'image/gif');
  t.is((await fetchBytes(uploadedUrl)).status, 404, 'the replaced image is gone');

  t.is((await hearth.call('DELETE', '/user/avatar', { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('GET', '/user', { auth: alice.bearer })).body.avatar_url, generatedUrl);
  t.is((await fetchBytes(replacedUrl)).status, 404);
  t.is((await fetch(`${hearth.rootUrl}avatars/..%2Fsecret`)).status, 404);
});

test('avatars that are not images, too large or not base64 are refused and change nothing', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const reader = await hearth.createUser('reader', { scopes: ['read:user'] });

  t.is((await hearth.call('POST', '/user/avatar', { auth: alice.bearer, body: { image: Buffer.from('plain text').toString('base64') } })).status, 422);
  t.is((await hearth.call('POST', '/user/avatar', { auth: alice.bearer, body: { image: Buffer.concat([png, Buffer.alloc(1024 * 1024)]).toString('base64') } })).status, 413);
  t.is((await hearth.call('POST', '/user/avatar', { auth: alice.bearer, body: { image: '%%%' } })).status, 400);
  t.is((await hearth.call('POST', '/user/avatar', { body: { image: png.toString('base64') } })).status, 401);
  t.is((await hearth.call('POST', '/user/avatar', { auth: reader.bearer, body: { image: png.toString('base64') } })).status, 403);
  const rows = await hearth.store.db.query<{ avatar: string }>(`SELECT avatar FROM "user" WHERE avatar <> ''`);
  t.deepEqual(rows, []);
});

test('deleting a user removes their uploaded avatar once the deletion is durable', async (t) => {
  const hearth = await startHearth(t);
  const root = await hearth.createUser('root', { admin: true });
  const carol = await hearth.createUser('carol');
  t.is((await hearth.call('POST', '/user/avatar', { auth: carol.bearer, body: { image: png.toString('base64') } })).status, 204);
  const [{ avatar }] = await hearth.store.db.query<{ avatar: string }>('SELECT avatar FROM "user" WHERE id = $1', [carol.user.id]);
  t.truthy(avatar);
  await t.notThrowsAsync(hearth.deps.blobs.get(avatar).then((stream) => stream.destroy()));
  t.is((await hearth.call('DELETE', '/admin/users/carol', { auth: root.bearer })).status, 204);
  await t.throwsAsync(hearth.deps.blobs.get(avatar));
});

test('OAuth2 applications: the secret is shown on create and update only, stored hashed, and only to the owner', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');

  const made = await hearth.call('POST', '/user/applications/oauth2', {
    auth: alice.bearer, body: { name: 'ci', redirect_uris: ['https://ci.example.com/callback'], confidential_client: true },
  });
  t.is(made.status, 201, JSON.stringify(made.body));
  t.like(made.body, { name: 'ci', redirect_uris: ['https://ci.example.com/callback'], confidential_client: true });
  t.regex(made.body.client_id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  t.regex(made.body.client_secret, /^gto_[a-z2-7]{52}$/);
  t.regex(made.body.created, /Z$/);
  const [stored] = await hearth.store.db.query<{ client_secret_hash: string; client_secret_salt: string }>(
    'SELECT client_secret_hash, client_secret_salt FROM oauth2_application WHERE id = $1', [made.body.id],
  );
  t.is(stored.client_secret_hash, hashToken(made.body.client_secret, stored.client_secret_salt));
  t.false(JSON.stringify(stored).includes(made.body.client_secret));

  const got = await hearth.call('GET', `/user/applications/oauth2/${made.body.id}`, { auth: alice.bearer });
  t.is(got.status, 200);
  t.is(got.body.client_secret, '');
  t.is(got.body.client_id, made.body.client_id);
  const list = await hearth.call('GET', '/user/applications/oauth2', { auth: alice.bearer });
  t.deepEqual(list.body.map((a: { id: number; client_secret: string }) => [a.id, a.client_secret]), [[made.body.id, '']]);
  t.is(list.headers.get('x-total-count'), '1');
  t.deepEqual((await hearth.call('GET', '/user/applications/oauth2', { auth: bob.bearer })).body, []);
  t.is((await hearth.call('GET', `/user/applications/oauth2/${made.body.id}`, { auth: bob.bearer })).status, 404);

  const updated = await hearth.call('PATCH', `/user/applications/oauth2/${made.body.id}`, {
    auth: alice.bearer, body: { name: 'ci-2', redirect_uris: ['https://ci.example.com/cb', 'http://127.0.0.1/cb'] },
  });
  t.is(updated.status, 200, JSON.stringify(updated.body));
  t.like(updated.body, { name: 'ci-2', client_id: made.body.client_id, confidential_client: false });
  t.regex(updated.body.client_secret, /^gto_/);
  t.not(updated.body.client_secret, made.body.client_secret, 'an update issues a new secret');
  const [after] = await hearth.store.db.query<{ name: string; redirect_uris: string[]; client_secret_hash: string; client_secret_salt: string }>(
    'SELECT name, redirect_uris, client_secret_hash, client_secret_salt FROM oauth2_application WHERE id = $1', [made.body.id],
  );
  t.is(after.name, 'ci-2');
  t.deepEqual(after.redirect_uris, ['https://ci.example.com/cb', 'http://127.0.0.1/cb']);
  t.is(after.client_secret_hash, hashToken(updated.body.client_secret, after.client_secret_salt));
  t.is((await hearth.call('PATCH', `/user/applications/oauth2/${made.body.id}`, { auth: bob.bearer, body: { name: 'x', redirect_uris: ['https://x'] } })).status, 404);

  t.is((await hearth.call('POST', '/user/applications/oauth2', { auth: alice.bearer, body: { redirect_uris: ['https://x'] } })).status, 422);
  t.is((await hearth.call('POST', '/user/applications/oauth2', { auth: alice.bearer, body: { name: 'no uris' } })).status, 422);
  t.is((await hearth.call('POST', '/user/applications/oauth2', { auth: alice.bearer, body: { name: 'bad', redirect_uris: ['not a url'] } })).status, 422);

  t.is((await hearth.call('DELETE', `/user/applications/oauth2/${made.body.id}`, { auth: bob.bearer })).status, 404);
  t.is((await hearth.call('DELETE', `/user/applications/oauth2/${made.body.id}`, { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('GET', `/user/applications/oauth2/${made.body.id}`, { auth: alice.bearer })).status, 404);
  t.deepEqual(await hearth.store.db.query('SELECT id FROM oauth2_application'), []);
});
