import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import test, { type ExecutionContext } from 'ava';
import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import { runClient } from '../helpers/clients.js';
import { root } from '../helpers/processes.js';
import { basicAuth, startHearth, type TestHearth, type TestUser } from '../helpers/hearth.js';
import { rawExchange } from './raw-exchange.js';
import { stored } from './stored.js';

const sha = (content: Buffer | string): string => `sha256:${createHash('sha256').update(content).digest('hex')}`;

// Gitea's test image: a gzip layer of 32 bytes, a Docker image config, and manifests naming them
const blobContent = Buffer.from('H4sIAAAJbogA/2IYBaNgFIxYAAgAAP//Lq+17wAEAAA=', 'base64');
const blobDigest = sha(blobContent);
const configContent = JSON.stringify({ architecture: 'amd64', os: 'linux', config: { Env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'], Cmd: ['/true'], Labels: { purpose: 'test' } }, rootfs: { type: 'layers', diff_ids: [] } });
const configDigest = sha(configContent);
const dockerManifest = JSON.stringify({
  schemaVersion: 2, mediaType: 'application/vnd.docker.distribution.manifest.v2+json',
  config: { mediaType: 'application/vnd.docker.container.image.v1+json', digest: configDigest, size: configContent.length },
  layers: [{ mediaType: 'application/vnd.docker.image.rootfs.diff.tar.gzip', digest: blobDigest, size: blobContent.length }],
});
const ociManifest = JSON.stringify({
  schemaVersion: 2, mediaType: 'application/vnd.oci.image.manifest.v1+json',
  config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: configDigest, size: configContent.length },
  layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', digest: blobDigest, size: blobContent.length }],
});
const indexManifest = JSON.stringify({
  schemaVersion: 2, mediaType: 'application/vnd.oci.image.index.v1+json',
  manifests: [
    { mediaType: 'application/vnd.docker.distribution.manifest.v2+json', digest: sha(dockerManifest), size: dockerManifest.length, platform: { os: 'linux', architecture: 'arm', variant: 'v7' } },
    { mediaType: 'application/vnd.oci.image.manifest.v1+json', digest: sha(ociManifest), size: ociManifest.length, platform: { os: 'linux', architecture: 'arm64', variant: 'v8' } },
  ],
});
const unknownDigest = `sha256:${'0'.repeat(64)}`;

function registry(hearth: TestHearth) {
  const url = (p: string): string => `${hearth.rootUrl}${p.replace(/^\//, '')}`;
  return async (method: string, p: string, auth?: string, body?: BodyInit, headers: Record<string, string> = {}) => {
    const res = await fetch(url(p), { method, body, headers: { ...(auth ? { Authorization: auth } : {}), ...headers } });
    const text = method === 'HEAD' ? '' : await res.text();
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    return { status: res.status, headers: res.headers, text, json };
  };
}

async function bearer(hearth: TestHearth, auth?: string): Promise<string> {
  const res = await fetch(`${hearth.rootUrl}v2/token`, { headers: auth ? { Authorization: auth } : {} });
  if (res.status !== 200) throw new Error(`token: ${res.status}`);
  return `Bearer ${((await res.json()) as { token: string }).token}`;
}

test('the registry protocol: token dance, uploads, manifests, indexes, tags, catalog and deletion', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const reader = await hearth.createUser('reader', { scopes: ['read:package'] });
  const notifier = await hearth.createUser('notifier', { scopes: ['read:notification'] });
  const secret = await hearth.createUser('secret');
  await hearth.deps.db.query('UPDATE "user" SET visibility = 2 WHERE id = $1', [secret.user.id]);
  const call = registry(hearth);

  // the ping asks for a token at /v2/token; anonymous callers get one, and so do users by password or token
  const ping = await call('GET', '/v2/');
  t.is(ping.status, 401);
  t.is(ping.headers.get('www-authenticate'), `Bearer realm="${hearth.rootUrl}v2/token",service="container_registry",scope="*"`);
  t.is(ping.json.errors[0].code, 'UNAUTHORIZED');
  const anonymous = await bearer(hearth);
  const pinged = await call('GET', '/v2', anonymous);
  t.is(pinged.status, 200);
  t.is(pinged.headers.get('docker-distribution-api-version'), 'registry/2.0');
  const user = await bearer(hearth, basicAuth('alice', alice.password));
  const read = await bearer(hearth, basicAuth('reader', reader.token));
  t.is((await call('GET', '/v2/token', basicAuth('notifier', notifier.token))).status, 401);
  t.is((await call('GET', '/v2/token', basicAuth('alice', 'wrong-password'))).status, 401);
  t.is((await call('GET', '/v2', 'Bearer a.b.c')).status, 401);
  t.is((await call('POST', '/v2/token')).status, 404);
  t.is((await call('GET', '/v2', user)).status, 200);

  const secretBlob = Buffer.from('hearth');
  t.is((await call('POST', `/v2/secret/img/blobs/uploads?digest=${sha(secretBlob)}`, basicAuth('secret', secret.password), secretBlob)).status, 201);

  for (const image of ['test', 'te/st']) {
    const base = `/v2/alice/${image}`;

    // monolithic: refused without write access or with a wrong digest, then stored
    t.is((await call('POST', `${base}/blobs/uploads`, anonymous)).status, 401);
    t.is((await call('POST', `${base}/blobs/uploads`, read)).status, 401);
    const wrong = await call('POST', `${base}/blobs/uploads?digest=${unknownDigest}`, user, blobContent);
    t.is(wrong.status, 400);
    t.is(wrong.json.errors[0].code, 'DIGEST_INVALID');
    const mono = await call('POST', `${base}/blobs/uploads?digest=${blobDigest}`, user, blobContent);
    t.is(mono.status, 201);
    t.is(mono.headers.get('location'), `${base}/blobs/${blobDigest}`);
    t.is(mono.headers.get('docker-content-digest'), blobDigest);

    // chunked: POST, PATCH with Content-Range, GET the state, PUT with the digest (and the last chunk)
    const started = await call('POST', `${base}/blobs/uploads/`, user);
    t.is(started.status, 202);
    const uuid = started.headers.get('docker-upload-uuid')!;
    t.truthy(uuid);
    t.is(started.headers.get('range'), '0-0');
    let location = started.headers.get('location')!;
    t.is(location, `${base}/blobs/uploads/${uuid}`);
    t.is((await call('PATCH', `${location}000`, user, 'x')).status, 404);
    t.is((await call('PATCH', location, user, configContent.slice(0, 10), { 'Content-Range': '1-10' })).status, 416);
    const first = await call('PATCH', location, user, configContent.slice(0, 100), { 'Content-Range': '0-99' });
    t.is(first.status, 202);
    t.is(first.headers.get('range'), '0-99');
    t.is(first.headers.get('docker-upload-uuid'), uuid);
    location = first.headers.get('location')!;
    const state = await call('GET', location, user);
    t.is(state.status, 204);
    t.is(state.headers.get('range'), '0-100');
    t.is((await call('PATCH', location, user, configContent.slice(100))).status, 400, 'a stream upload after the first write');
    const second = await call('PATCH', location, user, configContent.slice(100, 150), { 'Content-Range': '100-149' });
    t.is(second.status, 202);
    const done = await call('PUT', `${location}?digest=${configDigest}`, user, configContent.slice(150), { 'Content-Type': 'application/octet-stream' });
    t.is(done.status, 201, done.text);
    t.is(done.headers.get('location'), `${base}/blobs/${configDigest}`);
    t.is((await call('GET', location, user)).status, 404, 'a finished upload is gone');

    // a wrong digest at the end refuses the blob and ends the upload; a cancelled upload is gone
    const bad = await call('POST', `${base}/blobs/uploads`, user);
    const badLocation = bad.headers.get('location')!;
    t.is((await call('PATCH', badLocation, user, 'some bytes')).status, 202);
    t.is((await call('PUT', `${badLocation}?digest=${unknownDigest}`, user)).status, 400);
    t.is((await call('GET', badLocation, user)).status, 404);
    const cancelled = await call('POST', `${base}/blobs/uploads`, user);
    t.is((await call('DELETE', cancelled.headers.get('location')!, user)).status, 204);
    t.is((await call('GET', cancelled.headers.get('location')!, user)).status, 404);

    // mounts: a blob the caller can read elsewhere is linked (201); anything else starts an upload (202)
    t.is((await call('POST', `${base}/blobs/uploads?mount=${unknownDigest}`, user)).status, 202);
    t.is((await call('POST', `${base}/blobs/uploads?mount=${sha(secretBlob)}`, user)).status, 202);
    const mounted = await call('POST', `${base}/blobs/uploads?mount=${blobDigest}&from=alice/${image}`, user);
    t.is(mounted.status, 201);
    t.is(mounted.headers.get('docker-content-digest'), blobDigest);
    t.is((await call('POST', `${base}/blobs/uploads?mount=${blobDigest}&from=unknown/image`, user)).status, 202);

    // manifests by tag: stored with their media type; the same tag again replaces it and keeps the download count
    for (const tag of ['latest', 'main']) {
      t.is((await call('PUT', `${base}/manifests/${tag}`, anonymous, dockerManifest, { 'Content-Type': 'application/vnd.docker.distribution.manifest.v2+json' })).status, 401);
      const put = await call('PUT', `${base}/manifests/${tag}`, user, dockerManifest, { 'Content-Type': 'application/vnd.docker.distribution.manifest.v2+json' });
      t.is(put.status, 201, put.text);
      t.is(put.headers.get('docker-content-digest'), sha(dockerManifest));
      t.is(put.headers.get('location'), `${base}/manifests/${tag}`);
      const got = await call('GET', `${base}/manifests/${tag}`, user);
      t.is(got.status, 200);
      t.is(got.text, dockerManifest);
      t.is(got.headers.get('content-type'), 'application/vnd.docker.distribution.manifest.v2+json');
      t.is(got.headers.get('docker-content-digest'), sha(dockerManifest));
      const head = await call('HEAD', `${base}/manifests/${tag}`, user);
      t.is(head.status, 200);
      t.is(head.headers.get('content-length'), String(dockerManifest.length));
      t.is((await call('HEAD', `${base}/manifests/unknown-tag`, user)).status, 404);
    }
    const [counted] = await hearth.deps.db.query<{ download_count: string; metadata: any }>(
      `SELECT v.download_count, v.metadata FROM package_version v JOIN package p ON p.id = v.package_id WHERE p.lower_name = $1 AND v.version = 'latest'`, [image]);
    t.is(Number(counted.download_count), 1);
    t.like(counted.metadata, { type: 'oci', tagged: true, os: 'linux', architecture: 'amd64', labels: { purpose: 'test' }, config_digest: configDigest });
    t.is((await call('PUT', `${base}/manifests/latest`, user, ociManifest, { 'Content-Type': 'application/vnd.oci.image.manifest.v1+json' })).status, 201);
    const [kept] = await hearth.deps.db.query<{ download_count: string }>(
      `SELECT v.download_count FROM package_version v JOIN package p ON p.id = v.package_id WHERE p.lower_name = $1 AND v.version = 'latest'`, [image]);
    t.is(Number(kept.download_count), 1);
    t.is((await call('GET', `${base}/manifests/latest`, user)).text, ociManifest);
    t.is((await call('PUT', `${base}/manifests/latest`, user, dockerManifest, { 'Content-Type': 'application/vnd.docker.distribution.manifest.v2+json' })).status, 201);

    // by digest (untagged), an index naming both, and what is refused
    const untagged = await call('PUT', `${base}/manifests/${sha(ociManifest)}`, user, ociManifest, { 'Content-Type': 'application/vnd.oci.image.manifest.v1+json' });
    t.is(untagged.status, 201);
    const byDigest = await call('GET', `${base}/manifests/${sha(ociManifest)}`, user);
    t.is(byDigest.text, ociManifest);
    t.is(byDigest.headers.get('content-type'), 'application/vnd.oci.image.manifest.v1+json');
    const index = await call('PUT', `${base}/manifests/multi`, user, indexManifest, { 'Content-Type': 'application/vnd.oci.image.index.v1+json' });
    t.is(index.status, 201, index.text);
    t.is(index.headers.get('docker-content-digest'), sha(indexManifest));
    t.is((await call('GET', `${base}/manifests/multi`, user)).headers.get('content-type'), 'application/vnd.oci.image.index.v1+json');
    const mismatch = await call('PUT', `${base}/manifests/${unknownDigest}`, user, ociManifest, { 'Content-Type': 'application/vnd.oci.image.manifest.v1+json' });
    t.is(mismatch.json.errors[0].code, 'DIGEST_INVALID');
    const missingBlob = await call('PUT', `${base}/manifests/broken`, user, ociManifest.replace(blobDigest, unknownDigest), { 'Content-Type': 'application/vnd.oci.image.manifest.v1+json' });
    t.is(missingBlob.status, 404);
    t.is(missingBlob.json.errors[0].code, 'MANIFEST_BLOB_UNKNOWN');
    const missingChild = await call('PUT', `${base}/manifests/broken`, user, indexManifest.replace(sha(ociManifest), unknownDigest), { 'Content-Type': 'application/vnd.oci.image.index.v1+json' });
    t.is(missingChild.json.errors[0].code, 'MANIFEST_BLOB_UNKNOWN');
    t.is((await call('PUT', `${base}/manifests/broken`, user, '{not json', { 'Content-Type': 'application/vnd.oci.image.manifest.v1+json' })).json.errors[0].code, 'MANIFEST_INVALID');
    t.is((await call('PUT', `${base}/manifests/bad%20tag`, user, ociManifest)).json.errors[0].code, 'MANIFEST_INVALID');
    t.is((await call('GET', `${base}/manifests/broken`, user)).status, 404);

    // blobs
    t.is((await call('HEAD', `${base}/blobs/${unknownDigest}`, user)).status, 404);
    const headBlob = await call('HEAD', `${base}/blobs/${blobDigest}`, anonymous);
    t.is(headBlob.status, 200);
    t.is(headBlob.headers.get('content-length'), String(blobContent.length));
    t.is(headBlob.headers.get('docker-content-digest'), blobDigest);
    const getBlob = await fetch(`${hearth.rootUrl}v2/alice/${image}/blobs/${blobDigest}`, { headers: { Authorization: user } });
    t.deepEqual(Buffer.from(await getBlob.arrayBuffer()), blobContent);
    const unknownBlob = await call('GET', `${base}/blobs/${unknownDigest}`, user);
    t.is(unknownBlob.json.errors[0].code, 'BLOB_UNKNOWN');

    // tags, paged as Gitea pages them
    const cases: Array<[string, string[], string]> = [
      ['tags/list', ['latest', 'main', 'multi'], `<${base}/tags/list?last=multi>; rel="next"`],
      ['tags/list?n=0', [], ''],
      ['tags/list?n=2', ['latest', 'main'], `<${base}/tags/list?last=main&n=2>; rel="next"`],
      ['tags/list?last=main', ['multi'], `<${base}/tags/list?last=multi>; rel="next"`],
      ['tags/list?n=1&last=latest', ['main'], `<${base}/tags/list?last=main&n=1>; rel="next"`],
    ];
    for (const [p, tags, link] of cases) {
      const listed = await call('GET', `${base}/${p}`, user);
      t.deepEqual(listed.json, { name: `alice/${image}`, tags }, p);
      t.is(listed.headers.get('link') ?? '', link, p);
    }
    const api = await hearth.call('GET', `/packages/alice?type=container&q=${encodeURIComponent(image)}`, { auth: alice.bearer });
    t.deepEqual(api.body.filter((p: { name: string }) => p.name === image).map((p: { version: string }) => p.version).sort(), ['latest', 'main', 'multi', sha(ociManifest)].sort());
  }

  // names: upper case is refused, unknown owners are unknown, others' private images unreadable
  t.is((await call('GET', '/v2/alice/Test/tags/list', user)).json.errors[0].code, 'NAME_INVALID');
  t.is((await call('GET', '/v2/nobody/test/tags/list', user)).status, 404);
  t.is((await call('GET', '/v2/alice/nothing/tags/list', user)).json.errors[0].code, 'NAME_UNKNOWN');
  t.is((await call('HEAD', `/v2/secret/img/blobs/${sha(secretBlob)}`, user)).status, 401);

  const catalog = await call('GET', '/v2/_catalog', user);
  t.deepEqual(catalog.json, { repositories: ['alice/te/st', 'alice/test'] });
  const paged = await call('GET', '/v2/_catalog?n=1', user);
  t.deepEqual(paged.json.repositories, ['alice/te/st']);
  t.is(paged.headers.get('link'), '</v2/_catalog?last=alice%2Fte%2Fst&n=1>; rel="next"');

  // deletion: a blob, a manifest by digest (every version with it), a tag
  const base = '/v2/alice/te/st';
  t.is((await call('DELETE', `${base}/blobs/${blobDigest}`, read)).status, 401);
  t.is((await call('DELETE', `${base}/blobs/${blobDigest}`, user)).status, 202);
  t.is((await call('HEAD', `${base}/blobs/${blobDigest}`, user)).status, 404);
  t.is((await call('DELETE', `${base}/manifests/${sha(ociManifest)}`, user)).status, 202);
  t.is((await call('HEAD', `${base}/manifests/${sha(ociManifest)}`, user)).status, 404);
  t.is((await call('DELETE', `${base}/manifests/multi`, user)).status, 202);
  t.is((await call('HEAD', `${base}/manifests/multi`, user)).status, 404);
  t.is((await call('DELETE', `${base}/manifests/multi`, user)).json.errors[0].code, 'MANIFEST_UNKNOWN');
  t.deepEqual((await call('GET', `${base}/tags/list`, user)).json.tags, ['latest', 'main']);

  // ten blobs of one image in parallel (Gitea's issue 19586)
  const parallel = await Promise.all(Array.from({ length: 10 }, (_, i) => Buffer.from([i])).map((content) =>
    call('POST', `/v2/alice/parallel/blobs/uploads?digest=${sha(content)}`, user, content)));
  t.deepEqual(parallel.map((r) => r.status), Array(10).fill(201));

  // nothing of an upload is left behind in the blob store, and every stored blob has its row
  const state = await stored(hearth);
  t.deepEqual(state.blobFiles.filter((f) => f.includes('upload-') || f.startsWith('.tmp')), []);
  t.is(state.blobFiles.length, state.blobs);
  const [uploads] = await hearth.deps.db.query<{ n: number }>('SELECT count(*)::int AS n FROM package_blob_upload');
  t.is(uploads.n, 6, 'the uploads the mount misses started (three per image) are the only ones left');
});

test('organization images: members with package write push, others are refused; [packages] LIMIT_SIZE_CONTAINER holds', async (t) => {
  const hearth = await startHearth(t, { HEARTH__packages__LIMIT_SIZE_CONTAINER: '100' });
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const carol = await hearth.createUser('carol');
  await build.org(hearth, alice, { name: 'acme' });
  await build.team(hearth, 'acme', { name: 'pkg', unitsMap: { 'repo.packages': 'write' }, members: [bob] });
  const call = registry(hearth);
  const bobToken = await bearer(hearth, basicAuth('bob', bob.password));
  const carolToken = await bearer(hearth, basicAuth('carol', carol.password));
  t.is((await call('POST', `/v2/acme/app/blobs/uploads?digest=${blobDigest}`, bobToken, blobContent)).status, 201);
  t.is((await call('POST', `/v2/acme/app/blobs/uploads?digest=${blobDigest}`, carolToken, blobContent)).status, 401);
  t.is((await call('HEAD', `/v2/acme/app/blobs/${blobDigest}`, carolToken)).status, 200);
  const before = await stored(hearth);
  const big = Buffer.alloc(200, 1);
  const refused = await call('POST', `/v2/acme/app/blobs/uploads?digest=${sha(big)}`, bobToken, big);
  t.is(refused.status, 413);
  t.regex(refused.json.errors[0].message, /size/);
  const chunked = await call('POST', '/v2/acme/app/blobs/uploads', bobToken);
  t.is((await call('PATCH', chunked.headers.get('location')!, bobToken, big)).status, 413);
  // large bodies: refused by their Content-Length before they are read, or once they pass the limit as they stream,
  // and answered while the client still sends
  const huge = Buffer.alloc(8 * 1024 * 1024, 2);
  const declared = await call('POST', `/v2/acme/app/blobs/uploads?digest=${sha(huge)}`, bobToken, huge);
  t.is(declared.status, 413);
  t.like(declared.json.errors[0], { code: 'DENIED', message: 'maximum allowed package type size exceeded' });
  const started = await call('POST', '/v2/acme/app/blobs/uploads', bobToken);
  const streamed = await fetch(`${hearth.rootUrl}${started.headers.get('location')!.slice(1)}`, {
    method: 'PATCH', headers: { Authorization: bobToken }, body: new Blob([huge]).stream(), duplex: 'half',
  } as RequestInit);
  t.is(streamed.status, 413);
  t.like(((await streamed.json()) as { errors: unknown[] }).errors[0], { code: 'DENIED', message: 'maximum allowed package type size exceeded' });
  const raw = await rawExchange(
    hearth.rootUrl,
    `PUT /v2/acme/app/blobs/uploads/${started.headers.get('docker-upload-uuid')}?digest=${sha(huge)} HTTP/1.1\r\nHost: hearth\r\nAuthorization: ${bobToken}\r\nContent-Length: ${huge.length}\r\n\r\n`,
    huge.length,
    `HEAD /v2/acme/app/blobs/${blobDigest} HTTP/1.1\r\nHost: hearth\r\nAuthorization: ${bobToken}\r\nConnection: close\r\n\r\n`,
  );
  t.is(raw.error, null);
  t.regex(raw.text, /^HTTP\/1\.1 413 [^]*maximum allowed package type size exceeded[^]*HTTP\/1\.1 200 /);
  t.deepEqual(await stored(hearth), before);
});

test('the hourly cleanup-packages job removes abandoned uploads and uploaded blobs no manifest names, after a day', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const call = registry(hearth);
  const user = await bearer(hearth, basicAuth('alice', alice.password));
  const base = '/v2/alice/app';
  t.is((await call('POST', `${base}/blobs/uploads?digest=${blobDigest}`, user, blobContent)).status, 201);
  t.is((await call('POST', `${base}/blobs/uploads?digest=${configDigest}`, user, configContent)).status, 201);
  t.is((await call('PUT', `${base}/manifests/v1`, user, ociManifest, { 'Content-Type': 'application/vnd.oci.image.manifest.v1+json' })).status, 201);
  const orphan = Buffer.from('a layer no manifest names');
  t.is((await call('POST', `${base}/blobs/uploads?digest=${sha(orphan)}`, user, orphan)).status, 201);
  const started = await call('POST', `${base}/blobs/uploads`, user);
  t.is((await call('PATCH', started.headers.get('location')!, user, 'half a layer')).status, 202);
  const fresh = await call('POST', `${base}/blobs/uploads`, user);
  t.is((await call('PATCH', fresh.headers.get('location')!, user, 'a layer being pushed now')).status, 202);
  const before = await stored(hearth);

  // nothing is a day old yet
  await hearth.store.boss.send('cleanup-packages', {});
  t.deepEqual((await drain(hearth, 'cleanup-packages')).map((d) => d.outcome), ['skipped']);
  t.deepEqual(await stored(hearth), before);

  await hearth.deps.db.query(`UPDATE package_file SET created = now() - interval '2 days'`);
  await hearth.deps.db.query(`UPDATE package_blob_upload SET updated = now() - interval '2 days' WHERE id = $1`, [started.headers.get('docker-upload-uuid')]);
  await hearth.store.boss.send('cleanup-packages', {});
  t.deepEqual((await drain(hearth, 'cleanup-packages')).map((d) => d.outcome), ['done']);
  t.is((await call('HEAD', `${base}/blobs/${sha(orphan)}`, user)).status, 404);
  t.is((await call('HEAD', `${base}/blobs/${blobDigest}`, user)).status, 200);
  t.is((await call('GET', `${base}/manifests/v1`, user)).text, ociManifest);
  t.is((await call('GET', started.headers.get('location')!, user)).status, 404);
  t.is((await call('GET', fresh.headers.get('location')!, user)).status, 204);
  const after = await stored(hearth);
  t.is(after.blobs, before.blobs - 1);
  t.is(after.blobFiles.length, before.blobFiles.length - 2, 'the orphan blob and the abandoned chunk are gone from the store');
});

/**
 * A one-layer OCI image layout written by hand: a tar layer holding hello.txt (`body`), a config and a manifest tagged v1,
 * and an image index tagged multi naming that manifest (amd64) and one for arm64.
 */
function writeLayout(dir: string, body = Buffer.from('hello from hearth\n')): { manifestDigest: string; layerDigest: string; indexDigest: string; armDigest: string } {
  mkdirSync(path.join(dir, 'blobs', 'sha256'), { recursive: true });
  const blob = (content: Buffer | string): { digest: string; size: number } => {
    const digest = sha(content);
    writeFileSync(path.join(dir, 'blobs', 'sha256', digest.slice(7)), content);
    return { digest, size: Buffer.byteLength(content) };
  };
  const header = Buffer.alloc(512);
  header.write('hello.txt', 0);
  header.write('0000644\0', 100);
  header.write('0000000\0', 108);
  header.write('0000000\0', 116);
  header.write(`${body.length.toString(8).padStart(11, '0')}\0`, 124);
  header.write('14700000000\0', 136);
  header.write('        ', 148);
  header.write('0', 156);
  header.write('ustar\0' + '00', 257);
  const checksum = header.reduce((sum, byte) => sum + byte, 0);
  header.write(`${checksum.toString(8).padStart(6, '0')}\0 `, 148);
  const tar = Buffer.concat([header, body, Buffer.alloc((512 - (body.length % 512)) % 512), Buffer.alloc(1024)]);
  const layer = blob(gzipSync(tar));
  const config = blob(JSON.stringify({
    architecture: 'amd64', os: 'linux', config: { Labels: { 'org.example.made-by': 'hearth-test' } },
    rootfs: { type: 'layers', diff_ids: [sha(tar)] },
  }));
  const manifest = JSON.stringify({
    schemaVersion: 2, mediaType: 'application/vnd.oci.image.manifest.v1+json',
    config: { mediaType: 'application/vnd.oci.image.config.v1+json', ...config },
    layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', ...layer }],
  });
  const stored = blob(manifest);
  // the same layer for arm64 too, both under an image index tagged multi
  const armConfig = blob(JSON.stringify({ architecture: 'arm64', os: 'linux', rootfs: { type: 'layers', diff_ids: [sha(tar)] } }));
  const armManifest = blob(manifest.replace(config.digest, armConfig.digest).replace(`"size":${config.size}`, `"size":${armConfig.size}`));
  const index = blob(JSON.stringify({
    schemaVersion: 2, mediaType: 'application/vnd.oci.image.index.v1+json',
    manifests: [
      { mediaType: 'application/vnd.oci.image.manifest.v1+json', ...stored, platform: { os: 'linux', architecture: 'amd64' } },
      { mediaType: 'application/vnd.oci.image.manifest.v1+json', ...armManifest, platform: { os: 'linux', architecture: 'arm64' } },
    ],
  }));
  writeFileSync(path.join(dir, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  writeFileSync(path.join(dir, 'index.json'), JSON.stringify({
    schemaVersion: 2,
    manifests: [
      { mediaType: 'application/vnd.oci.image.manifest.v1+json', ...stored, annotations: { 'org.opencontainers.image.ref.name': 'v1' } },
      { mediaType: 'application/vnd.oci.image.index.v1+json', ...index, annotations: { 'org.opencontainers.image.ref.name': 'multi' } },
    ],
  }));
  return { manifestDigest: stored.digest, layerDigest: layer.digest, indexDigest: index.digest, armDigest: armManifest.digest };
}

/** Whether skopeo is there (installed first when it can be); when not, the test passes saying why. */
function skopeoReady(t: ExecutionContext): boolean {
  t.timeout(240_000, 'skopeo may be installed first');
  const installer = spawnSync('bash', [path.join(root, 'tests', 'helpers', 'ensure-client.sh'), 'skopeo', 'skopeo'], { encoding: 'utf8', timeout: 200_000 });
  if (installer.status === 0) return true;
  t.log(`skipped: skopeo is not installed and could not be (${installer.stderr.trim() || `status ${installer.status}`}); the raw-HTTP tests above cover the protocol`);
  t.pass();
  return false;
}

/** skopeo with a home of its own, and alice's credentials for Hearth. */
function skopeoFor(t: ExecutionContext, hearth: TestHearth, user: TestUser) {
  const home = mkdtempSync(path.join(os.tmpdir(), 'hearth-skopeo-'));
  t.teardown(() => rmSync(home, { recursive: true, force: true }));
  const env = { HOME: home, XDG_RUNTIME_DIR: home, TMPDIR: home };
  return {
    home,
    host: new URL(hearth.rootUrl).host,
    creds: `${user.user.name}:${user.password}`,
    skopeo: (...args: string[]) => runClient('skopeo', ['--insecure-policy', ...args], { cwd: home, env, timeoutMs: 60_000 }),
  };
}

test('skopeo copies an image from an OCI layout into Hearth and back, inspects it, lists its tags and deletes it', async (t) => {
  if (!skopeoReady(t)) return;
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const { home, host, creds, skopeo } = skopeoFor(t, hearth, alice);
  const source = path.join(home, 'source');
  const { manifestDigest, layerDigest, indexDigest, armDigest } = writeLayout(source);

  const pushed = await skopeo('copy', '--dest-tls-verify=false', '--dest-creds', creds, `oci:${source}:v1`, `docker://${host}/alice/hello/world:v1`);
  t.is(pushed.code, 0, pushed.stderr);
  const again = await skopeo('copy', '--dest-tls-verify=false', '--dest-creds', creds, `oci:${source}:v1`, `docker://${host}/alice/hello/world:v2`);
  t.is(again.code, 0, again.stderr);

  const back = path.join(home, 'back');
  const pulled = await skopeo('copy', '--src-tls-verify=false', '--src-creds', creds, `docker://${host}/alice/hello/world:v1`, `oci:${back}:v1`);
  t.is(pulled.code, 0, pulled.stderr);
  const index = JSON.parse(readFileSync(path.join(back, 'index.json'), 'utf8')) as { manifests: Array<{ digest: string }> };
  t.is(index.manifests[0].digest, manifestDigest);
  t.deepEqual(readFileSync(path.join(back, 'blobs', 'sha256', layerDigest.slice(7))), readFileSync(path.join(source, 'blobs', 'sha256', layerDigest.slice(7))));

  // a public owner's image is readable anonymously (skopeo fetches an anonymous token)
  const inspected = await skopeo('inspect', '--tls-verify=false', `docker://${host}/alice/hello/world:v1`);
  t.is(inspected.code, 0, inspected.stderr);
  const info = JSON.parse(inspected.stdout) as { Digest: string; Labels: Record<string, string>; Architecture: string; Layers: string[] };
  t.is(info.Digest, manifestDigest);
  t.deepEqual(info.Layers, [layerDigest]);
  t.is(info.Labels['org.example.made-by'], 'hearth-test');
  t.is(info.Architecture, 'amd64');

  // a multi-platform image: the index and both manifests travel, and come back unchanged
  const multi = await skopeo('copy', '--all', '--dest-tls-verify=false', '--dest-creds', creds, `oci:${source}:multi`, `docker://${host}/alice/hello/world:multi`);
  t.is(multi.code, 0, multi.stderr);
  const raw = await skopeo('inspect', '--raw', '--tls-verify=false', '--creds', creds, `docker://${host}/alice/hello/world:multi`);
  t.is(raw.code, 0, raw.stderr);
  t.is(sha(raw.stdout), indexDigest);
  const arm = await skopeo('inspect', '--override-arch', 'arm64', '--tls-verify=false', '--creds', creds, `docker://${host}/alice/hello/world:multi`);
  t.is(arm.code, 0, arm.stderr);
  t.is(JSON.parse(arm.stdout).Architecture, 'arm64');
  const byDigest = await skopeo('inspect', '--raw', '--tls-verify=false', '--creds', creds, `docker://${host}/alice/hello/world@${armDigest}`);
  t.is(sha(byDigest.stdout), armDigest, byDigest.stderr);
  const multiBack = path.join(home, 'multi-back');
  const multiPulled = await skopeo('copy', '--all', '--src-tls-verify=false', '--src-creds', creds, `docker://${host}/alice/hello/world:multi`, `oci:${multiBack}:multi`);
  t.is(multiPulled.code, 0, multiPulled.stderr);
  t.is((JSON.parse(readFileSync(path.join(multiBack, 'index.json'), 'utf8')) as { manifests: Array<{ digest: string }> }).manifests[0].digest, indexDigest);
  t.is((await skopeo('delete', '--tls-verify=false', '--creds', creds, `docker://${host}/alice/hello/world:multi`)).code, 0);

  const listed = await skopeo('list-tags', '--tls-verify=false', '--creds', creds, `docker://${host}/alice/hello/world`);
  t.is(listed.code, 0, listed.stderr);
  t.deepEqual((JSON.parse(listed.stdout) as { Tags: string[] }).Tags, ['v1', 'v2']);

  // skopeo deletes by digest: both tags naming that manifest go
  const deleted = await skopeo('delete', '--tls-verify=false', '--creds', creds, `docker://${host}/alice/hello/world:v1`);
  t.is(deleted.code, 0, deleted.stderr);
  const gone = await skopeo('inspect', '--tls-verify=false', '--creds', creds, `docker://${host}/alice/hello/world:v2`);
  t.not(gone.code, 0);
  // what is left is the arm64 manifest, stored by digest when the index was pushed (deleting a tag leaves it, as in Gitea)
  const versions = await hearth.deps.db.query<{ version: string }>(`SELECT version FROM package_version WHERE NOT is_internal`);
  t.deepEqual(versions.map((v) => v.version), [armDigest]);
  const state = await stored(hearth);
  t.deepEqual(state.blobFiles.filter((f) => f.includes('upload-')), []);
});

test('skopeo pushing a layer over [packages] LIMIT_SIZE_CONTAINER reports the 413 and its message; nothing of the layer stays', async (t) => {
  if (!skopeoReady(t)) return;
  const hearth = await startHearth(t, { HEARTH__packages__LIMIT_SIZE_CONTAINER: '1 MiB' });
  const alice = await hearth.createUser('alice');
  const { home, host, creds, skopeo } = skopeoFor(t, hearth, alice);
  const source = path.join(home, 'source');
  const { layerDigest } = writeLayout(source, randomBytes(3 * 1024 * 1024));

  const pushed = await skopeo('copy', '--dest-tls-verify=false', '--dest-creds', creds, `oci:${source}:v1`, `docker://${host}/alice/big:v1`);
  t.not(pushed.code, 0);
  t.regex(pushed.stderr, /maximum allowed package type size exceeded/);
  const user = await bearer(hearth, basicAuth('alice', alice.password));
  const call = registry(hearth);
  t.is((await call('HEAD', `/v2/alice/big/blobs/${layerDigest}`, user)).status, 404);
  t.is((await call('GET', '/v2/alice/big/manifests/v1', user)).status, 404);
  const state = await stored(hearth);
  t.deepEqual(state.blobFiles.filter((f) => f.startsWith('.tmp') || f.includes('upload-') || f.includes(layerDigest.slice(7))), []);
});
