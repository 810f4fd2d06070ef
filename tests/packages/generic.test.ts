import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { build } from '../helpers/build.js';
import { runClient } from '../helpers/clients.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';
import { rawExchange } from './raw-exchange.js';
import { stored } from './stored.js';

function put(hearth: TestHearth, path: string, auth: string | undefined, body: BodyInit): Promise<Response> {
  return fetch(`${hearth.rootUrl}api/packages/${path}`, { method: 'PUT', headers: auth ? { Authorization: auth } : {}, body });
}

function get(hearth: TestHearth, path: string, auth?: string, method = 'GET'): Promise<Response> {
  return fetch(`${hearth.rootUrl}api/packages/${path}`, { method, headers: auth ? { Authorization: auth } : {} });
}

test('a generic file is stored once, served byte for byte, listed in Gitea shapes and deleted', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const content = randomBytes(300_000);
  const sha256 = createHash('sha256').update(content).digest('hex');

  const first = await put(hearth, 'alice/generic/tool/1.0.0/tool.bin', alice.bearer, new Uint8Array(content));
  t.is(first.status, 201);
  t.is((await put(hearth, 'alice/generic/tool/1.0.0/tool.bin', alice.bearer, 'other')).status, 409);
  // the same bytes under another name share the blob
  t.is((await put(hearth, 'alice/generic/tool/1.0.0/copy.bin', alice.bearer, new Uint8Array(content))).status, 201);
  const state = await stored(hearth);
  t.like(state, { packages: 1, versions: 1, files: 2, blobs: 1 });
  t.is(state.blobFiles.length, 1);
  t.true(state.blobFiles[0].includes(sha256));

  const download = await get(hearth, 'alice/generic/tool/1.0.0/tool.bin');
  t.is(download.status, 200);
  t.is(download.headers.get('content-length'), String(content.length));
  t.deepEqual(Buffer.from(await download.arrayBuffer()), content);
  t.is((await get(hearth, 'alice/generic/tool/1.0.0/missing.bin')).status, 404);

  const list = await hearth.call('GET', '/packages/alice', { auth: alice.bearer });
  t.is(list.status, 200);
  t.is(list.headers.get('x-total-count'), '1');
  t.like(list.body[0], { type: 'generic', name: 'tool', version: '1.0.0', owner: { login: 'alice' }, creator: { login: 'alice' }, repository: null });
  t.is(list.body[0].html_url, `${hearth.rootUrl}alice/-/packages/generic/tool/1.0.0`);
  const one = await hearth.call('GET', '/packages/alice/generic/tool/1.0.0', { auth: alice.bearer });
  t.is(one.body.id, list.body[0].id);
  const files = await hearth.call('GET', '/packages/alice/generic/tool/1.0.0/files', { auth: alice.bearer });
  t.deepEqual(files.body.map((f: { name: string }) => f.name), ['copy.bin', 'tool.bin']);
  t.like(files.body[1], { Size: content.length, sha256, md5: createHash('md5').update(content).digest('hex') });
  t.is((await hearth.call('GET', '/packages/alice?type=npm', { auth: alice.bearer })).body.length, 0);
  t.is((await hearth.call('GET', '/packages/alice/generic/tool/2.0.0', { auth: alice.bearer })).status, 404);

  const events = await hearth.deps.db.query<{ payload: { action: string; name: string } }>(`SELECT payload FROM domain_event WHERE kind = 'package'`);
  t.deepEqual(events.map((e) => [e.payload.action, e.payload.name]), [['created', 'tool']]);

  // deleting one file keeps the shared blob; deleting the last removes version, package and blob
  t.is((await fetch(`${hearth.rootUrl}api/packages/alice/generic/tool/1.0.0/tool.bin`, { method: 'DELETE', headers: { Authorization: alice.bearer } })).status, 204);
  t.like(await stored(hearth), { files: 1, blobs: 1, versions: 1 });
  t.is((await get(hearth, 'alice/generic/tool/1.0.0/tool.bin')).status, 404);
  t.is((await fetch(`${hearth.rootUrl}api/packages/alice/generic/tool/1.0.0/copy.bin`, { method: 'DELETE', headers: { Authorization: alice.bearer } })).status, 204);
  t.deepEqual(await stored(hearth), { packages: 0, versions: 0, files: 0, blobs: 0, blobFiles: [] });
});

test('a version is deleted through the registry and through the API', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  t.is((await put(hearth, 'alice/generic/tool/1/a.txt', alice.bearer, 'a')).status, 201);
  t.is((await put(hearth, 'alice/generic/tool/2/a.txt', alice.bearer, 'a')).status, 201);
  t.is((await fetch(`${hearth.rootUrl}api/packages/alice/generic/tool/1`, { method: 'DELETE', headers: { Authorization: alice.bearer } })).status, 204);
  t.is((await get(hearth, 'alice/generic/tool/1/a.txt')).status, 404);
  t.is((await hearth.call('DELETE', '/packages/alice/generic/tool/2', { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('DELETE', '/packages/alice/generic/tool/2', { auth: alice.bearer })).status, 404);
  t.deepEqual(await stored(hearth), { packages: 0, versions: 0, files: 0, blobs: 0, blobFiles: [] });
});

test('bad names, missing credentials and limits are refused with nothing stored', async (t) => {
  const hearth = await startHearth(t, { HEARTH__packages__LIMIT_SIZE_GENERIC: '1 KiB', HEARTH__packages__LIMIT_TOTAL_OWNER_SIZE: '1500' });
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const reader = await hearth.createUser('reader', { scopes: ['read:package'] });
  const empty = await stored(hearth);

  const anonymous = await put(hearth, 'alice/generic/tool/1/a.txt', undefined, 'x');
  t.is(anonymous.status, 401);
  t.regex(anonymous.headers.get('www-authenticate') ?? '', /^Basic realm=/);
  t.is((await put(hearth, 'alice/generic/tool/1/a.txt', 'Bearer 0000000000000000000000000000000000000000', 'x')).status, 401);
  t.is((await put(hearth, 'alice/generic/tool/1/a.txt', bob.bearer, 'x')).status, 401);
  t.is((await put(hearth, 'reader/generic/tool/1/a.txt', reader.bearer, 'x')).status, 401);
  t.is((await put(hearth, 'alice/generic/to%20ol/1/a.txt', alice.bearer, 'x')).status, 400);
  t.is((await put(hearth, 'alice/generic/tool/%201/a.txt', alice.bearer, 'x')).status, 400);
  t.is((await put(hearth, 'alice/generic/tool/1/a%3Fb', alice.bearer, 'x')).status, 400);
  const big = await put(hearth, 'alice/generic/tool/1/big.bin', alice.bearer, new Uint8Array(2000));
  t.is(big.status, 413);
  t.regex(await big.text(), /maximum allowed package type size exceeded/);
  t.is((await put(hearth, 'nobody/generic/tool/1/a.txt', alice.bearer, 'x')).status, 404);
  t.deepEqual(await stored(hearth), empty);

  t.is((await put(hearth, 'alice/generic/tool/1/a.bin', alice.bearer, new Uint8Array(1000))).status, 201);
  const quota = await put(hearth, 'alice/generic/tool/1/b.bin', alice.bearer, new Uint8Array(1000).fill(1));
  t.is(quota.status, 413);
  t.regex(await quota.text(), /quota/);
  const after = await stored(hearth);
  t.like(after, { packages: 1, versions: 1, files: 1, blobs: 1 });
  t.is(after.blobFiles.length, 1);
});

/** A body of `mib` MiB sent in 1 MiB chunks with no Content-Length, as a client streaming from a pipe sends it. */
function streamed(mib: number, fill = 7): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent === mib) {
        controller.close();
        return;
      }
      sent++;
      controller.enqueue(new Uint8Array(1024 * 1024).fill(fill + sent));
    },
  });
}

test('a file over a limit is answered 413 with its message, not a cut connection, whether declared, streamed or asked with 100-continue; so is a version past the count', async (t) => {
  const hearth = await startHearth(t, {
    HEARTH__packages__LIMIT_SIZE_GENERIC: '2 MiB', HEARTH__packages__LIMIT_TOTAL_OWNER_SIZE: '3 MiB', HEARTH__packages__LIMIT_TOTAL_OWNER_COUNT: '1',
  });
  const alice = await hearth.createUser('alice');
  const url = `${hearth.rootUrl}api/packages/alice/generic/tool/1/big.bin`;
  const empty = await stored(hearth);

  // a Content-Length past the limit is refused before the body is read; fetch, still sending, reads the answer
  const declared = await fetch(url, { method: 'PUT', headers: { Authorization: alice.bearer }, body: new Uint8Array(8 * 1024 * 1024) });
  t.is(declared.status, 413);
  t.is(await declared.text(), 'maximum allowed package type size exceeded');
  // a body streamed in chunks is refused once it passes the limit
  const chunked = await fetch(url, { method: 'PUT', headers: { Authorization: alice.bearer }, body: streamed(8), duplex: 'half' } as RequestInit);
  t.is(chunked.status, 413);
  t.is(await chunked.text(), 'maximum allowed package type size exceeded');
  // curl asks with `Expect: 100-continue` before a large upload: it is answered at once and sends nothing
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hearth-curl-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, 'big.bin'), randomBytes(8 * 1024 * 1024));
  const curl = await runClient('curl', ['-sS', '-o', '-', '-w', ' %{http_code} %{size_upload}', '-H', `Authorization: ${alice.bearer}`, '-T', 'big.bin', url], { cwd: dir, env: {} });
  t.is(curl.code, 0, curl.stderr);
  t.is(curl.stdout, 'maximum allowed package type size exceeded 413 0');
  // a client that reads only once it has sent everything gets the answer too, and the connection stays usable
  const head = (method: string, file: string, extra: string): string =>
    `${method} /api/packages/alice/generic/tool/1/${file} HTTP/1.1\r\nHost: hearth\r\nAuthorization: ${alice.bearer}\r\n${extra}\r\n`;
  const raw = await rawExchange(hearth.rootUrl, head('PUT', 'raw.bin', `Content-Length: ${8 * 1024 * 1024}\r\n`), 8 * 1024 * 1024, head('GET', 'raw.bin', 'Connection: close\r\n'));
  t.is(raw.error, null);
  t.regex(raw.text, /^HTTP\/1\.1 413 [^]*\r\n\r\nmaximum allowed package type size exceeded(HTTP\/1\.1 404 )/);
  t.deepEqual(await stored(hearth), empty);

  // what the owner's quota leaves binds once it is the smaller: 1.5 MiB stored, 1.9 MiB more streamed is refused
  t.is((await fetch(url, { method: 'PUT', headers: { Authorization: alice.bearer }, body: new Uint8Array(1536 * 1024) })).status, 201);
  const kept = await stored(hearth);
  const quota = await fetch(`${hearth.rootUrl}api/packages/alice/generic/tool/1/more.bin`, { method: 'PUT', headers: { Authorization: alice.bearer }, body: streamed(2), duplex: 'half' } as RequestInit);
  t.is(quota.status, 413);
  t.is(await quota.text(), 'maximum allowed package storage quota exceeded');
  // one version is all the owner may have
  const counted = await fetch(`${hearth.rootUrl}api/packages/alice/generic/tool/2/small.bin`, { method: 'PUT', headers: { Authorization: alice.bearer }, body: 'x' });
  t.is(counted.status, 413);
  t.is(await counted.text(), 'maximum allowed package count exceeded');
  t.deepEqual(await stored(hearth), kept);
  t.like(kept, { versions: 1, files: 1, blobs: 1 });
  t.is(kept.blobFiles.length, 1);
});

test('reading follows the owner visibility; organization members with package write may publish', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const carol = await hearth.createUser('carol');
  await build.org(hearth, alice, { name: 'acme', visibility: 'private' });
  await build.team(hearth, 'acme', { name: 'pkg', unitsMap: { 'repo.packages': 'write' }, members: [bob] });
  t.is((await put(hearth, 'acme/generic/tool/1/a.txt', bob.bearer, 'a')).status, 201);
  t.is((await put(hearth, 'acme/generic/tool/1/b.txt', carol.bearer, 'b')).status, 401);
  t.is((await get(hearth, 'acme/generic/tool/1/a.txt')).status, 401);
  t.is((await get(hearth, 'acme/generic/tool/1/a.txt', carol.bearer)).status, 401);
  t.is((await get(hearth, 'acme/generic/tool/1/a.txt', bob.bearer)).status, 200);
  t.is((await get(hearth, 'acme/generic/tool/1/a.txt', bob.basic)).status, 200);
  t.is((await hearth.call('GET', '/packages/acme', { auth: carol.bearer })).status, 403);
  t.is((await hearth.call('GET', '/packages/acme', { auth: bob.bearer })).body.length, 1);
  t.is((await hearth.call('GET', '/packages/acme')).status, 401);
});

test('with [packages] ENABLED = false nothing is served', async (t) => {
  const hearth = await startHearth(t, { HEARTH__packages__ENABLED: 'false' });
  const alice = await hearth.createUser('alice');
  t.is((await put(hearth, 'alice/generic/tool/1/a.txt', alice.bearer, 'a')).status, 404);
  t.is((await hearth.call('GET', '/packages/alice', { auth: alice.bearer })).status, 404);
});
