import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { FileBlobStore } from '../../db/blob-store.js';
import { blobBytes, storedBlobs, testStorage } from '../helpers/blobs.js';
import { build } from '../helpers/build.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';

const MiB = 1024 * 1024;

async function setUp(t: Parameters<typeof startHearth>[0], repo: { private?: boolean } = {}) {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const made = await build.repo(hearth, alice, { name: 'tool', autoInit: true, private: repo.private });
  const release = await build.release(hearth, made, { tag: 'v1' });
  const blobs = hearth.deps.blobs;
  return { hearth, alice, repoId: made.id, releaseId: release.id, blobs };
}

function upload(hearth: TestHearth, releaseId: number, auth: string, body: BodyInit, query = '', headers: Record<string, string> = {}) {
  return fetch(`${hearth.rootUrl}api/v1/repos/alice/tool/releases/${releaseId}/assets${query}`, {
    method: 'POST',
    headers: { Authorization: auth, ...headers },
    body,
  });
}

function form(content: Buffer, fileName: string, field = 'attachment'): FormData {
  const data = new FormData();
  data.append(field, new Blob([new Uint8Array(content)]), fileName);
  return data;
}

/** Every file in the blob store, temporary ones included. */

test('a multipart upload lands in the blob store and downloads byte for byte, counted', async (t) => {
  const { hearth, alice, releaseId, blobs } = await setUp(t);
  const content = randomBytes(300_000);
  const answer = await upload(hearth, releaseId, alice.bearer, form(content, 'tool-linux.tar.gz'));
  t.is(answer.status, 201);
  const asset = await answer.json();
  t.like(asset, { name: 'tool-linux.tar.gz', size: content.length, download_count: 0 });
  t.regex(asset.uuid, /^[0-9a-f-]{36}$/);
  t.is(asset.browser_download_url, `${hearth.rootUrl}attachments/${asset.uuid}`);

  if (blobs instanceof FileBlobStore) t.is(path.relative(path.join(hearth.config.dataDir, 'blobs'), blobs.pathOf(asset.uuid)), path.join(asset.uuid.slice(0, 2), asset.uuid));
  t.true((await blobBytes(hearth, asset.uuid)).equals(content));
  const [row] = await hearth.store.db.query<{ release_id: number; size: number; uploader_id: number }>(
    'SELECT release_id, size, uploader_id FROM attachment WHERE uuid = $1', [asset.uuid]);
  t.deepEqual(row, { release_id: releaseId, size: content.length, uploader_id: alice.user.id });

  const download = await fetch(asset.browser_download_url);
  t.is(download.status, 200);
  t.is(download.headers.get('content-length'), String(content.length));
  t.regex(download.headers.get('content-disposition') ?? '', /^attachment; filename="?tool-linux\.tar\.gz"?$/);
  t.true(Buffer.from(await download.arrayBuffer()).equals(content));

  const read = await hearth.call('GET', `/repos/alice/tool/releases/${releaseId}/assets/${asset.id}`);
  t.is(read.status, 200);
  t.is(read.body.download_count, 1);
  const list = await hearth.call('GET', `/repos/alice/tool/releases/${releaseId}/assets`);
  t.deepEqual(list.body.map((a: { id: number }) => a.id), [asset.id]);
  const release = await hearth.call('GET', `/repos/alice/tool/releases/${releaseId}`);
  // the release's view reads its assets as JSON: the same fields as the asset's own endpoint
  t.deepEqual(release.body.assets, [read.body]);
  t.is(release.body.author.login, 'alice');
});

test('the name comes from the query or the form; a raw body needs one', async (t) => {
  const { hearth, alice, releaseId } = await setUp(t);
  const named = await upload(hearth, releaseId, alice.bearer, form(Buffer.from('abc'), 'original.txt'), '?name=renamed.txt');
  t.is(named.status, 201);
  t.is((await named.json()).name, 'renamed.txt');

  const raw = Buffer.from('raw bytes\n');
  const octet = await upload(hearth, releaseId, alice.bearer, raw, '?name=raw.bin', { 'Content-Type': 'application/octet-stream' });
  t.is(octet.status, 201);
  const rawAsset = await octet.json();
  t.like(rawAsset, { name: 'raw.bin', size: raw.length });
  t.true((await blobBytes(hearth, rawAsset.uuid)).equals(raw));

  const unicode = await upload(hearth, releaseId, alice.bearer, form(Buffer.from('ü'), 'résumé-日本.txt'));
  t.is(unicode.status, 201);
  const unicodeAsset = await unicode.json();
  t.is(unicodeAsset.name, 'résumé-日本.txt');
  const unicodeDownload = await fetch(unicodeAsset.browser_download_url);
  t.regex(unicodeDownload.headers.get('content-disposition') ?? '', /filename\*=UTF-8''r%C3%A9sum%C3%A9-%E6%97%A5%E6%9C%AC\.txt/);
  t.is(await unicodeDownload.text(), 'ü');

  const nameless = await upload(hearth, releaseId, alice.bearer, raw, '', { 'Content-Type': 'application/octet-stream' });
  t.is(nameless.status, 400);
  t.regex((await nameless.json()).message, /name/);
  const wrongField = await upload(hearth, releaseId, alice.bearer, form(Buffer.from('abc'), 'a.txt', 'file'));
  t.is(wrongField.status, 400);
  t.regex((await wrongField.json()).message, /attachment/);

  const files = await storedBlobs(hearth);
  t.is(files.length, 3, `only the three accepted files remain: ${files.join(', ')}`);
  t.is((await hearth.store.db.query('SELECT 1 FROM attachment')).length, 3);
});

test('renaming and deleting an asset; deleting the release removes its files', async (t) => {
  const { hearth, alice, releaseId, blobs } = await setUp(t);
  const first = await (await upload(hearth, releaseId, alice.bearer, form(Buffer.from('one'), 'one.txt'))).json();
  const second = await (await upload(hearth, releaseId, alice.bearer, form(Buffer.from('two'), 'two.txt'))).json();

  const renamed = await hearth.call('PATCH', `/repos/alice/tool/releases/${releaseId}/assets/${first.id}`, { auth: alice.bearer, body: { name: 'uno.txt' } });
  t.is(renamed.status, 201);
  t.is(renamed.body.name, 'uno.txt');
  t.is((await hearth.call('GET', `/repos/alice/tool/releases/${releaseId}/assets/${first.id}`)).body.name, 'uno.txt');

  const removed = await hearth.call('DELETE', `/repos/alice/tool/releases/${releaseId}/assets/${first.id}`, { auth: alice.bearer });
  t.is(removed.status, 204);
  t.false(await blobs.exists(first.uuid));
  t.is((await fetch(first.browser_download_url)).status, 404);
  t.is((await hearth.call('GET', `/repos/alice/tool/releases/${releaseId}/assets/${first.id}`)).status, 404);

  const other = await hearth.call('POST', '/repos/alice/tool/releases', { auth: alice.bearer, body: { tag_name: 'v2' } });
  t.is((await hearth.call('GET', `/repos/alice/tool/releases/${other.body.id}/assets/${second.id}`)).status, 404, 'an asset of another release');

  t.true(await blobs.exists(second.uuid));
  t.is((await hearth.call('DELETE', `/repos/alice/tool/releases/${releaseId}`, { auth: alice.bearer })).status, 204);
  t.false(await blobs.exists(second.uuid));
  t.deepEqual(await hearth.store.db.query('SELECT 1 FROM attachment'), []);
});

test('uploads need write access; downloads follow the repository visibility and draft rules', async (t) => {
  const { hearth, alice, repoId, releaseId } = await setUp(t, { private: true });
  const bob = await hearth.createUser('bob');
  const carol = await hearth.createUser('carol');
  await hearth.store.db.query('INSERT INTO collaboration (repo_id, user_id, mode) VALUES ($1, $2, 1)', [repoId, carol.user.id]);

  t.is((await upload(hearth, releaseId, bob.bearer, form(Buffer.from('x'), 'x'))).status, 404);
  t.is((await upload(hearth, releaseId, carol.bearer, form(Buffer.from('x'), 'x'))).status, 403);
  const asset = await (await upload(hearth, releaseId, alice.bearer, form(Buffer.from('secret'), 's.txt'))).json();

  t.is((await fetch(asset.browser_download_url)).status, 404);
  t.is((await fetch(asset.browser_download_url, { headers: { Authorization: bob.bearer } })).status, 404);
  const carolGets = await fetch(asset.browser_download_url, { headers: { Authorization: carol.bearer } });
  t.is(carolGets.status, 200);
  t.is(await carolGets.text(), 'secret');
  t.is((await fetch(`${hearth.rootUrl}attachments/not-a-uuid`)).status, 404);

  const draft = await hearth.call('POST', '/repos/alice/tool/releases', { auth: alice.bearer, body: { tag_name: 'd1', draft: true } });
  const draftAsset = await (await upload(hearth, draft.body.id, alice.bearer, form(Buffer.from('draft'), 'd.txt'))).json();
  t.is((await fetch(draftAsset.browser_download_url, { headers: { Authorization: carol.bearer } })).status, 404);
  t.is((await hearth.call('GET', `/repos/alice/tool/releases/${draft.body.id}/assets`, { auth: carol.bearer })).status, 404);
  t.is((await fetch(draftAsset.browser_download_url, { headers: { Authorization: alice.bearer } })).status, 200);
  const [{ download_count }] = await hearth.store.db.query<{ download_count: number }>('SELECT download_count FROM attachment WHERE id = $1', [asset.id]);
  t.is(download_count, 1, 'refused downloads are not counted');
});

test('a failed transaction removes the stored file', async (t) => {
  const { hearth, alice } = await setUp(t);
  await hearth.store.db.query(`
    CREATE FUNCTION refuse_attachment() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected failure'; END $$`);
  await hearth.store.db.query('CREATE TRIGGER refuse AFTER INSERT ON attachment FOR EACH ROW EXECUTE FUNCTION refuse_attachment()');
  const [{ id }] = await hearth.store.db.query<{ id: number }>('SELECT id FROM release');
  const failed = await upload(hearth, id, alice.bearer, form(randomBytes(1000), 'lost.bin'));
  t.is(failed.status, 500, 'the injected database failure');
  t.deepEqual(await storedBlobs(hearth), []);
});

// the local store's own way of streaming (a file under .tmp growing); tests/instance/storage-s3.test.ts shows S3's parts
(testStorage === 'local' ? test : test.skip)('a 20 MiB upload is streamed to disk while it is still arriving, and comes back identical', async (t) => {
  const { hearth, alice, releaseId } = await setUp(t);
  const blobs = hearth.deps.blobs as FileBlobStore;
  const total = 20 * MiB;
  const chunkSize = 256 * 1024;
  const boundary = `hearth${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="attachment"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const sent = createHash('sha256');
  let produced = 0;
  let seed = createHash('sha256').update('hearth').digest();
  const nextChunk = (): Buffer => {
    const parts: Buffer[] = [];
    for (let n = 0; n < chunkSize; n += seed.length) {
      seed = createHash('sha256').update(seed).digest();
      parts.push(seed);
    }
    return Buffer.concat(parts).subarray(0, chunkSize);
  };
  const temporary = path.join(blobs.root, '.tmp');
  let seenWhileArriving = 0;
  /** Waits until the server has written most of the file before the last chunk is even sent. */
  const waitForPartialFile = async (atLeast: number): Promise<void> => {
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const names = existsSync(temporary) ? await readdir(temporary) : [];
      for (const name of names) {
        const size = (await stat(path.join(temporary, name)).catch(() => ({ size: 0 }))).size;
        seenWhileArriving = Math.max(seenWhileArriving, size);
      }
      if (seenWhileArriving >= atLeast) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  let stage: 'head' | 'body' | 'done' = 'head';
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (stage === 'head') {
        controller.enqueue(head);
        stage = 'body';
        return;
      }
      if (stage === 'done') return;
      if (produced + chunkSize >= total) await waitForPartialFile(total - 2 * chunkSize);
      const chunk = nextChunk();
      sent.update(chunk);
      produced += chunk.length;
      controller.enqueue(chunk);
      if (produced >= total) {
        controller.enqueue(tail);
        controller.close();
        stage = 'done';
      }
    },
  });
  const answer = await fetch(`${hearth.rootUrl}api/v1/repos/alice/tool/releases/${releaseId}/assets`, {
    method: 'POST',
    headers: { Authorization: alice.bearer, 'Content-Type': `multipart/form-data; boundary=${boundary}` },
    body,
    duplex: 'half',
  } as RequestInit);
  t.is(answer.status, 201);
  const asset = await answer.json();
  t.is(asset.size, total);
  t.true(seenWhileArriving >= total - 2 * chunkSize, `the server had written ${seenWhileArriving} bytes before the upload ended`);
  t.is((await stat(blobs.pathOf(asset.uuid))).size, total);

  const download = await fetch(asset.browser_download_url);
  const received = createHash('sha256');
  let length = 0;
  for await (const chunk of download.body as unknown as AsyncIterable<Uint8Array>) {
    received.update(chunk);
    length += chunk.length;
  }
  t.is(length, total);
  t.is(received.digest('hex'), sent.digest('hex'));
  t.deepEqual(await readdir(temporary), [], 'no temporary file is left');
});

test('an upload the client abandons leaves no file behind', async (t) => {
  const { hearth, alice, releaseId } = await setUp(t);
  const boundary = 'abandoned';
  const abort = new AbortController();
  let sentChunks = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (sentChunks === 0) controller.enqueue(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="attachment"; filename="half.bin"\r\n\r\n`));
      // the object store sees an upload once its first 8 MiB part is gathered
      if (sentChunks === (testStorage === 'minio' ? 160 : 8)) {
        // wait until the server is writing, then walk away mid-file
        while ((await storedBlobs(hearth)).length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
        abort.abort();
        return;
      }
      controller.enqueue(randomBytes(64 * 1024));
      sentChunks += 1;
    },
  });
  const attempt = fetch(`${hearth.rootUrl}api/v1/repos/alice/tool/releases/${releaseId}/assets`, {
    method: 'POST',
    headers: { Authorization: alice.bearer, 'Content-Type': `multipart/form-data; boundary=${boundary}` },
    body,
    duplex: 'half',
    signal: abort.signal,
  } as RequestInit);
  await attempt.then(() => t.fail('the aborted request should not get an answer'), () => t.pass());
  const deadline = Date.now() + 5000;
  while ((await storedBlobs(hearth)).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  t.deepEqual(await storedBlobs(hearth), []);
  t.deepEqual(await hearth.store.db.query('SELECT 1 FROM attachment'), []);
});

test('deleting the repository removes its attachment files once the deletion is durable', async (t) => {
  const { hearth, alice, releaseId, blobs } = await setUp(t);
  const asset = await (await upload(hearth, releaseId, alice.bearer, form(randomBytes(1000), 'a.bin'))).json();
  t.true(await blobs.exists(asset.uuid));
  t.is((await hearth.call('DELETE', '/repos/alice/tool', { auth: alice.bearer })).status, 204);
  t.false(await blobs.exists(asset.uuid));
  t.deepEqual(await storedBlobs(hearth), []);
});
