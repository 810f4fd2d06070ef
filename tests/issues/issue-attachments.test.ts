import { randomBytes } from 'node:crypto';
import test from 'ava';
import { blobBytes, storedBlobs } from '../helpers/blobs.js';
import { build } from '../helpers/build.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';

const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(200)]);

async function setUp(t: Parameters<typeof startHearth>[0], settings: Record<string, string> = {}) {
  const hearth = await startHearth(t, settings);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const carol = await hearth.createUser('carol');
  const repo = await build.repo(hearth, alice, { name: 'tool' });
  await hearth.call('PUT', '/repos/alice/tool/collaborators/carol', { auth: alice.bearer, body: { permission: 'write' } });
  const first = await build.issue(hearth, repo, { title: 'first' });
  const second = await build.issue(hearth, repo, { title: 'second', by: bob.user });
  return { hearth, alice, bob, carol, repo, first, second, blobs: hearth.deps.blobs };
}

function upload(hearth: TestHearth, target: string, auth: string, content: Buffer, fileName: string, query = '') {
  const form = new FormData();
  form.append('attachment', new Blob([new Uint8Array(content)]), fileName);
  return fetch(`${hearth.rootUrl}api/v1/repos/alice/tool/issues/${target}/assets${query}`, { method: 'POST', headers: { Authorization: auth }, body: form });
}


const attachmentRows = (hearth: TestHearth) =>
  hearth.store.db.query<{ id: number; issue_id: number; comment_id: number | null; name: string; uploader_id: number }>(
    'SELECT id, issue_id, comment_id, name, uploader_id FROM attachment ORDER BY id');

test('an upload is streamed to the blob store, listed, shown in the issue and readable; `name` overrides the file name', async (t) => {
  const { hearth, alice, repo, first } = await setUp(t);
  const content = Buffer.from('some notes\n'.repeat(1000));
  const answer = await upload(hearth, '1', alice.bearer, content, 'notes.txt');
  t.is(answer.status, 201);
  const asset = await answer.json();
  t.like(asset, { name: 'notes.txt', size: content.length, download_count: 0 });
  t.is(asset.browser_download_url, `${hearth.rootUrl}attachments/${asset.uuid}`);
  t.true((await blobBytes(hearth, asset.uuid)).equals(content));
  t.deepEqual(await attachmentRows(hearth), [{ id: asset.id, issue_id: first.id, comment_id: null, name: 'notes.txt', uploader_id: alice.user.id }]);

  const named = await upload(hearth, '1', alice.bearer, png, 'IMG_0001.png', '?name=diagram.png');
  t.is(named.status, 201);
  const diagram = await named.json();
  t.is(diagram.name, 'diagram.png');

  const list = await hearth.call('GET', '/repos/alice/tool/issues/1/assets');
  t.is(list.status, 200);
  t.deepEqual(list.body.map((a: { name: string }) => a.name), ['notes.txt', 'diagram.png']);
  t.deepEqual((await hearth.call('GET', '/repos/alice/tool/issues/1')).body.assets.map((a: { id: number }) => a.id), [asset.id, diagram.id]);
  const one = await hearth.call('GET', `/repos/alice/tool/issues/1/assets/${asset.id}`);
  t.is(one.status, 200);
  t.deepEqual(one.body, asset);
  const edits = await hearth.store.db.query(`SELECT payload FROM domain_event WHERE repo_id = $1 AND kind = 'issue.edited'`, [repo.id]);
  t.is(edits.length, 2, 'attaching counts as an edit of the issue, as in Gitea');
});

test('types outside [attachment] ALLOWED_TYPES are 422 and leave nothing; past MAX_SIZE it is 413', async (t) => {
  const { hearth, alice } = await setUp(t, { HEARTH__attachment__ALLOWED_TYPES: '.txt,image/*', HEARTH__attachment__MAX_SIZE: '1' });
  const refused = await upload(hearth, '1', alice.bearer, Buffer.from('MZ binary'), 'tool.exe');
  t.is(refused.status, 422);
  t.regex((await refused.json()).message, /forbidden file extension or type/);
  t.is((await upload(hearth, '1', alice.bearer, Buffer.from('plain words'), 'words.bin')).status, 422, 'sniffed as text, which is not allowed');
  t.is((await upload(hearth, '1', alice.bearer, png, 'picture.bin')).status, 201, 'sniffed as image/png, allowed by image/*');
  t.is((await upload(hearth, '1', alice.bearer, Buffer.from('x'), 'a.TXT')).status, 201, 'extensions compare without case');

  const big = await upload(hearth, '1', alice.bearer, randomBytes(1024 * 1024 + 10), 'big.txt');
  t.is(big.status, 413);
  t.is((await upload(hearth, '1', alice.bearer, randomBytes(1024 * 1024 - 10), 'fits.txt')).status, 201);
  t.deepEqual((await attachmentRows(hearth)).map((r) => r.name), ['picture.bin', 'a.TXT', 'fits.txt']);
  t.is((await storedBlobs(hearth)).length, 3, 'refused uploads leave no file behind');
  t.like((await hearth.call('GET', '/settings/attachment')).body, { allowed_types: '.txt,image/*', max_size: 1 });
});

test('renaming keeps an allowed type; deleting removes the row and, once committed, the file', async (t) => {
  const { hearth, alice, blobs } = await setUp(t);
  const asset = await (await upload(hearth, '1', alice.bearer, Buffer.from('abc'), 'a.txt')).json();
  const renamed = await hearth.call('PATCH', `/repos/alice/tool/issues/1/assets/${asset.id}`, { auth: alice.bearer, body: { name: 'b.md' } });
  t.is(renamed.status, 201);
  t.is(renamed.body.name, 'b.md');
  const bad = await hearth.call('PATCH', `/repos/alice/tool/issues/1/assets/${asset.id}`, { auth: alice.bearer, body: { name: 'b.exe' } });
  t.is(bad.status, 422);
  t.deepEqual((await attachmentRows(hearth)).map((r) => r.name), ['b.md']);

  t.is((await hearth.call('DELETE', `/repos/alice/tool/issues/1/assets/${asset.id}`, { auth: alice.bearer })).status, 204);
  t.deepEqual(await attachmentRows(hearth), []);
  t.false(await blobs.exists(asset.uuid));
  t.is((await hearth.call('GET', `/repos/alice/tool/issues/1/assets/${asset.id}`)).status, 404);
});

test('only those who can edit the issue attach, rename or delete; another issue\'s attachment is not reachable', async (t) => {
  const { hearth, alice, bob, carol } = await setUp(t);
  t.is((await upload(hearth, '1', bob.bearer, Buffer.from('x'), 'x.txt')).status, 403);
  t.is((await upload(hearth, '2', bob.bearer, Buffer.from('x'), 'mine.txt')).status, 201, 'the poster may');
  const asset = await (await upload(hearth, '1', carol.bearer, Buffer.from('x'), 'carol.txt')).json();
  t.truthy(asset.id, 'a writer may');
  t.is((await hearth.call('PATCH', `/repos/alice/tool/issues/1/assets/${asset.id}`, { auth: bob.bearer, body: { name: 'y.txt' } })).status, 403);
  t.is((await hearth.call('DELETE', `/repos/alice/tool/issues/1/assets/${asset.id}`, { auth: bob.bearer })).status, 403);
  t.is((await upload(hearth, '1', '', Buffer.from('x'), 'x.txt')).status, 401);

  t.is((await hearth.call('GET', `/repos/alice/tool/issues/2/assets/${asset.id}`)).status, 404);
  t.is((await hearth.call('PATCH', `/repos/alice/tool/issues/2/assets/${asset.id}`, { auth: alice.bearer, body: { name: 'z.txt' } })).status, 404);
  t.is((await hearth.call('DELETE', `/repos/alice/tool/issues/2/assets/${asset.id}`, { auth: alice.bearer })).status, 404);
  t.deepEqual((await attachmentRows(hearth)).map((r) => r.name), ['mine.txt', 'carol.txt']);
});

test('comment attachments: apart from the issue\'s, for writers who wrote the comment; they go with the comment and the issue', async (t) => {
  const { hearth, alice, bob, carol, first, blobs } = await setUp(t);
  const comment = (await hearth.call('POST', '/repos/alice/tool/issues/1/comments', { auth: carol.bearer, body: { body: 'see attached' } })).body;
  const other = (await hearth.call('POST', '/repos/alice/tool/issues/1/comments', { auth: bob.bearer, body: { body: 'me too' } })).body;
  const attached = await upload(hearth, `comments/${comment.id}`, carol.bearer, Buffer.from('log line'), 'run.log');
  t.is(attached.status, 201);
  const asset = await attached.json();
  t.deepEqual((await attachmentRows(hearth)).map((r) => [r.issue_id, r.comment_id]), [[first.id, comment.id]]);
  t.deepEqual((await hearth.call('GET', `/repos/alice/tool/issues/comments/${comment.id}/assets`)).body.map((a: { id: number }) => a.id), [asset.id]);
  t.deepEqual((await hearth.call('GET', '/repos/alice/tool/issues/1/assets')).body, [], 'the issue\'s own list leaves comments\' files out');
  t.is((await hearth.call('GET', `/repos/alice/tool/issues/comments/${comment.id}/assets/${asset.id}`)).status, 200);
  t.is((await hearth.call('GET', `/repos/alice/tool/issues/comments/${other.id}/assets/${asset.id}`)).status, 404);
  t.is((await upload(hearth, `comments/${other.id}`, bob.bearer, Buffer.from('x'), 'x.txt')).status, 403, 'bob wrote it but cannot write issues');
  t.is((await upload(hearth, `comments/${comment.id}`, bob.bearer, Buffer.from('x'), 'x.txt')).status, 403);
  t.is((await upload(hearth, `comments/${comment.id}`, alice.bearer, Buffer.from('x'), 'x.txt')).status, 201, 'the repository owner may');
  const renamed = await hearth.call('PATCH', `/repos/alice/tool/issues/comments/${comment.id}/assets/${asset.id}`, { auth: carol.bearer, body: { name: 'run.txt' } });
  t.is(renamed.status, 201);
  t.is(renamed.body.name, 'run.txt');

  t.is((await hearth.call('DELETE', `/repos/alice/tool/issues/comments/${comment.id}`, { auth: carol.bearer })).status, 204);
  t.deepEqual(await attachmentRows(hearth), []);
  t.false(await blobs.exists(asset.uuid));

  const kept = await (await upload(hearth, '1', alice.bearer, Buffer.from('x'), 'kept.txt')).json();
  t.is((await hearth.call('DELETE', '/repos/alice/tool/issues/1', { auth: alice.bearer })).status, 204);
  t.deepEqual(await attachmentRows(hearth), []);
  t.false(await blobs.exists(kept.uuid), 'deleting the issue removes its files');
});

test('with [attachment] ENABLED off the attachment routes are 404', async (t) => {
  const { hearth, alice } = await setUp(t, { HEARTH__attachment__ENABLED: 'false' });
  t.is((await upload(hearth, '1', alice.bearer, Buffer.from('x'), 'x.txt')).status, 404);
  t.is((await hearth.call('GET', '/repos/alice/tool/issues/1/assets')).status, 404);
  t.deepEqual(await attachmentRows(hearth), []);
});
