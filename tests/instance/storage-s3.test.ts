import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { Readable } from 'node:stream';
import test from 'ava';
import { KindBlobStore } from '../../db/blob-storage.js';
import { FileBlobStore } from '../../db/blob-store.js';
import { S3BlobStore } from '../../db/blob-store-s3.js';
import { HttpError } from '../../db/errors.js';
import { loadConfig } from '../../db/process/config.js';
import { build } from '../helpers/build.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';
import { freePort, root } from '../helpers/processes.js';
import { s3Credentials, startS3Server, type TestS3 } from '../helpers/s3-server.js';

const MiB = 1024 * 1024;

function storeOn(s3: TestS3, basePath = 'packages/'): S3BlobStore {
  return new S3BlobStore({ type: 'minio', endpoint: s3.endpoint, ...s3Credentials, bucket: s3.bucket, location: 'us-east-1', useSsl: false, basePath, serveDirect: false });
}

async function bytesOf(content: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of content) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** Keys of every object in the bucket, with their kind's prefix. */
async function objects(s3: TestS3): Promise<string[]> {
  const keys: string[] = [];
  for await (const key of storeOn(s3, '').keys()) keys.push(key);
  return keys.sort();
}

async function localFiles(hearth: TestHearth): Promise<string[]> {
  const folder = `${hearth.config.dataDir}/blobs`;
  if (!existsSync(folder)) return [];
  return (await readdir(folder, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => e.name);
}

test('the S3 blob store streams uploads in parts as they arrive, reads, moves once, deletes, and aborts a failed upload leaving no part', async (t) => {
  const s3 = await startS3Server(t);
  const store = storeOn(s3);
  // a source failing while the bucket is still being made fails the upload (it does not wait forever)
  const early = new Readable({ read() { this.destroy(new Error('gone before the bucket was made')); } });
  await t.throwsAsync(store.put('upload-0000', early), { message: 'gone before the bucket was made' });
  const content = randomBytes(20 * MiB);
  // the source waits after 9 MiB until the store holds a part of it: a store buffering the whole stream would wait forever
  let sawPart = false;
  async function* arriving() {
    yield content.subarray(0, 9 * MiB);
    const deadline = Date.now() + 10_000;
    while (!sawPart && Date.now() < deadline) {
      for (const upload of await s3.uploadsInProgress()) if ((await readdir(`${s3.directory}/${s3.bucket}/._S3rver_uploads/${upload}`)).length > 2) sawPart = true;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    for (let at = 9 * MiB; at < content.length; at += MiB) yield content.subarray(at, at + MiB);
  }
  t.is(await store.put('upload-aaaa', Readable.from(arriving())), content.length);
  t.true(sawPart, 'a part reached the store before the source had ended');
  t.deepEqual(await s3.uploadsInProgress(), [], 'the multipart upload was completed');
  t.true(await store.exists('upload-aaaa'));
  t.true((await bytesOf(await store.get('upload-aaaa'))).equals(content));

  await store.move('upload-aaaa', `${sha256(content)}.0001`);
  t.false(await store.exists('upload-aaaa'));
  t.true((await bytesOf(await store.get(`${sha256(content)}.0001`))).equals(content));
  // content already at the target is not written again: the source goes, the target keeps its bytes
  await store.put('upload-bbbb', Readable.from([Buffer.from('other bytes')]));
  await store.move('upload-bbbb', `${sha256(content)}.0001`);
  t.false(await store.exists('upload-bbbb'));
  t.is((await store.head(`${sha256(content)}.0001`))?.size, content.length);

  await store.delete(`${sha256(content)}.0001`);
  await store.delete('never-was');
  t.false(await store.exists(`${sha256(content)}.0001`));
  const missing = await t.throwsAsync(store.get(`${sha256(content)}.0001`));
  t.true(missing instanceof HttpError && missing.status === 404);

  async function* failing() {
    yield randomBytes(9 * MiB);
    yield randomBytes(2 * MiB);
    throw new Error('the client went away');
  }
  await t.throwsAsync(store.put('upload-cccc', Readable.from(failing())), { message: 'the client went away' });
  t.false(await store.exists('upload-cccc'));
  t.deepEqual(await s3.uploadsInProgress(), [], 'the failed multipart upload was aborted: no part is left');
  t.deepEqual(await objects(s3), []);
});

test('with STORAGE_TYPE=minio an attachment and a generic package go to the bucket under their kinds and come back byte for byte', async (t) => {
  const s3 = await startS3Server(t);
  const hearth = await startHearth(t, s3.settings());
  t.true(hearth.deps.blobs instanceof KindBlobStore);
  const alice = await hearth.createUser('alice');
  await build.repo(hearth, alice, { name: 'tool' });
  await build.issue(hearth, (await hearth.call('GET', '/repos/alice/tool')).body, { title: 'first' });

  const notes = Buffer.from('some notes\n'.repeat(5000));
  const form = new FormData();
  form.append('attachment', new Blob([new Uint8Array(notes)]), 'notes.txt');
  const answer = await fetch(`${hearth.rootUrl}api/v1/repos/alice/tool/issues/1/assets`, { method: 'POST', headers: { Authorization: alice.bearer }, body: form });
  t.is(answer.status, 201);
  const asset = await answer.json();
  const download = await fetch(asset.browser_download_url);
  t.is(download.status, 200);
  t.true(Buffer.from(await download.arrayBuffer()).equals(notes));

  const file = randomBytes(6 * MiB);
  const put = await fetch(`${hearth.rootUrl}api/packages/alice/generic/tool/1.0.0/tool.bin`, { method: 'PUT', headers: { Authorization: alice.bearer }, body: new Uint8Array(file) });
  t.is(put.status, 201);
  const [blob] = await hearth.deps.db.query<{ blob_key: string }>('SELECT blob_key FROM package_blob');
  t.deepEqual(await objects(s3), [`attachments/${asset.uuid}`, `packages/${blob.blob_key}`].sort(), 'no temporary upload key is left');
  t.deepEqual(await localFiles(hearth), [], 'nothing is written to the local store');
  const got = await fetch(`${hearth.rootUrl}api/packages/alice/generic/tool/1.0.0/tool.bin`);
  t.is(got.status, 200);
  t.is(got.headers.get('content-length'), String(file.length));
  t.true(Buffer.from(await got.arrayBuffer()).equals(file));

  t.is((await fetch(`${hearth.rootUrl}api/packages/alice/generic/tool/1.0.0`, { method: 'DELETE', headers: { Authorization: alice.bearer } })).status, 204);
  const deadline = Date.now() + 5000;
  while ((await objects(s3)).length > 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  t.deepEqual(await objects(s3), [`attachments/${asset.uuid}`], "the deleted version's blob is removed from the bucket");
});

test('with SERVE_DIRECT downloads of attachments and packages redirect to a presigned address that serves the bytes', async (t) => {
  const s3 = await startS3Server(t);
  const hearth = await startHearth(t, s3.settings({ HEARTH__storage__SERVE_DIRECT: 'true', HEARTH__packages__MINIO_BUCKET: 'hearth-packages' }));
  const alice = await hearth.createUser('alice');
  const repo = await build.repo(hearth, alice, { name: 'tool' });
  await build.issue(hearth, repo, { title: 'first' });
  const notes = Buffer.from('direct notes\n'.repeat(100));
  const form = new FormData();
  form.append('attachment', new Blob([new Uint8Array(notes)]), 'notes.txt');
  const asset = await (await fetch(`${hearth.rootUrl}api/v1/repos/alice/tool/issues/1/assets`, { method: 'POST', headers: { Authorization: alice.bearer }, body: form })).json();

  const redirect = await fetch(asset.browser_download_url, { redirect: 'manual' });
  t.is(redirect.status, 303);
  const location = new URL(redirect.headers.get('location')!);
  t.is(location.host, s3.endpoint);
  t.is(location.pathname, `/${s3.bucket}/attachments/${asset.uuid}`);
  t.truthy(location.searchParams.get('X-Amz-Signature'));
  t.false(location.href.includes(s3Credentials.secretAccessKey.toLowerCase() + '&'), 'the secret is not in the address');
  const direct = await fetch(location);
  t.is(direct.status, 200);
  t.regex(direct.headers.get('content-disposition') ?? '', /attachment; filename="notes.txt"/);
  t.true(Buffer.from(await direct.arrayBuffer()).equals(notes));
  t.is((await hearth.call('GET', `/repos/alice/tool/issues/1/assets/${asset.id}`)).body.download_count, 1, 'a redirected download counts');

  const file = randomBytes(1000);
  t.is((await fetch(`${hearth.rootUrl}api/packages/alice/generic/tool/1.0.0/tool.bin`, { method: 'PUT', headers: { Authorization: alice.bearer }, body: new Uint8Array(file) })).status, 201);
  const packageRedirect = await fetch(`${hearth.rootUrl}api/packages/alice/generic/tool/1.0.0/tool.bin`, { redirect: 'manual' });
  t.is(packageRedirect.status, 303);
  t.true(packageRedirect.headers.get('location')!.includes('/hearth-packages/packages/'), "[packages] MINIO_BUCKET overrides [storage]'s");
  t.true(Buffer.from(await (await fetch(packageRedirect.headers.get('location')!)).arrayBuffer()).equals(file));
});

function runCli(env: NodeJS.ProcessEnv, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'workers/cli.ts', ...args], { cwd: root, env }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

test('storage migrate --to minio copies every local blob into the bucket, verified by SHA-256; a second run copies nothing', async (t) => {
  const hearth = await startHearth(t, { HEARTH__storage__STORAGE_TYPE: 'local' });
  const alice = await hearth.createUser('alice');
  const repo = await build.repo(hearth, alice, { name: 'tool' });
  await build.issue(hearth, repo, { title: 'first' });
  const notes = randomBytes(3000);
  const form = new FormData();
  form.append('attachment', new Blob([new Uint8Array(notes)]), 'notes.txt');
  const asset = await (await fetch(`${hearth.rootUrl}api/v1/repos/alice/tool/issues/1/assets?name=notes.txt`, { method: 'POST', headers: { Authorization: alice.bearer }, body: form })).json();
  const file = randomBytes(7 * MiB);
  t.is((await fetch(`${hearth.rootUrl}api/packages/alice/generic/tool/1.0.0/tool.bin`, { method: 'PUT', headers: { Authorization: alice.bearer }, body: new Uint8Array(file) })).status, 201);
  const local = hearth.deps.blobs as FileBlobStore;
  const [blob] = await hearth.deps.db.query<{ blob_key: string }>('SELECT blob_key FROM package_blob');

  const s3 = await startS3Server(t);
  const env = { ...process.env, HEARTH_DATA_DIR: hearth.config.dataDir, ...s3.settings(), HEARTH__storage__STORAGE_TYPE: 'local' };
  const first = await runCli(env, ['storage', 'migrate', '--to', 'minio']);
  t.is(first.code, 0, first.stderr);
  t.regex(first.stdout, /2 blobs in .*: 2 copied and verified, 0 already in the bucket, 0 kept local, 0 failed/);
  t.notRegex(first.stdout + first.stderr, /S3RVER/, 'no credential is printed');
  t.deepEqual(await objects(s3), [`attachments/${asset.uuid}`, `packages/${blob.blob_key}`].sort());
  const migrated = storeOn(s3);
  t.is((await migrated.head(blob.blob_key))?.metadata.sha256, sha256(file));
  t.true((await bytesOf(await migrated.get(blob.blob_key))).equals(file));
  t.true(await local.exists(asset.uuid), 'the local store is left as it was');

  const again = await runCli(env, ['storage', 'migrate', '--to', 'minio']);
  t.is(again.code, 0, again.stderr);
  t.regex(again.stdout, /2 blobs in .*: 0 copied and verified, 2 already in the bucket/);

  // the same Hearth switched to the bucket serves what was migrated
  const switched = await startHearth(t, s3.settings());
  const kinds = switched.deps.blobs as KindBlobStore;
  t.true((await bytesOf(await kinds.get(asset.uuid))).equals(notes));
  t.true((await bytesOf(await kinds.get(blob.blob_key))).equals(file));
});

test("[storage] and the kinds' sections resolve as Gitea reads them", (t) => {
  const env = { HEARTH_DATA_DIR: '/tmp/hearth-storage-config', HEARTH_CONFIG: '/dev/null' };
  const read = (settings: Record<string, string>) => loadConfig({ ...env, ...settings }).blobStorage;
  t.deepEqual(read({}), { attachments: { type: 'local' }, packages: { type: 'local' }, avatars: { type: 'local' } });
  const shared = read({
    HEARTH__storage__STORAGE_TYPE: 'minio', HEARTH__storage__MINIO_BASE_PATH: 'hearth/', HEARTH__storage__MINIO_SECRET_ACCESS_KEY: 'k',
    HEARTH__packages__MINIO_BUCKET: 'pkgs', HEARTH__packages__MINIO_ENDPOINT: 'ignored:9000', HEARTH__avatar__STORAGE_TYPE: 'local',
  });
  t.like(shared.attachments, { type: 'minio', endpoint: 'localhost:9000', bucket: 'hearth', basePath: 'hearth/attachments/', location: 'us-east-1', serveDirect: false, secretAccessKey: 'k' });
  t.like(shared.packages, { type: 'minio', endpoint: 'localhost:9000', bucket: 'pkgs', basePath: 'hearth/packages/' }, 'without its own STORAGE_TYPE a kind changes only bucket, base path and SERVE_DIRECT');
  t.deepEqual(shared.avatars, { type: 'local' });
  const own = read({ HEARTH__attachment__STORAGE_TYPE: 'minio', HEARTH__attachment__MINIO_ENDPOINT: 's3.example:443', HEARTH__attachment__MINIO_USE_SSL: 'true', HEARTH__attachment__SERVE_DIRECT: 'true' });
  t.like(own.attachments, { type: 'minio', endpoint: 's3.example:443', useSsl: true, serveDirect: true, bucket: 'hearth', basePath: 'attachments/' });
  t.deepEqual(own.packages, { type: 'local' });
  t.throws(() => read({ HEARTH__storage__STORAGE_TYPE: 's3' }), { message: /\[storage\] STORAGE_TYPE = "s3".*expected local or minio/ });
});

test('/api/healthz tells a load balancer whether this process can serve: storage reachable, and not while draining', async (t) => {
  const s3 = await startS3Server(t, 'hearth-health');
  const hearth = await startHearth(t, s3.settings());
  const healthy = await hearth.call('GET', '/api/healthz');
  t.is(healthy.status, 200, 'a bucket not made yet still counts as reachable');
  t.like(healthy.body, { status: 'pass' });

  const elsewhere = await startHearth(t, s3.settings({ HEARTH__storage__MINIO_ENDPOINT: `127.0.0.1:${await freePort()}` }));
  const unreachable = await elsewhere.call('GET', '/api/healthz');
  t.is(unreachable.status, 503);
  t.deepEqual(unreachable.body, { status: 'fail', description: 'blob storage cannot be reached' });

  const local = await startHearth(t);
  t.is((await local.call('GET', '/api/healthz')).status, 200);
  local.deps.lifecycle.draining = true;
  const draining = await local.call('GET', '/api/healthz');
  t.is(draining.status, 503);
  t.deepEqual(draining.body, { status: 'fail', description: 'draining: this process is stopping' });
  t.is((await local.call('GET', '/version')).status, 200, 'requests are still served while draining');
});
