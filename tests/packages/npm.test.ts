import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { hasClient, runClient } from '../helpers/clients.js';
import { startHearth, type TestHearth, type TestUser } from '../helpers/hearth.js';
import { stored } from './stored.js';

const npmMissing = hasClient('npm') ? null : 'the npm client is not installed';

/** A temporary npm home whose .npmrc holds the user's token for the owner's registry. */
function npmHome(t: ExecutionContext, hearth: TestHearth, owner: string, user: TestUser) {
  const home = mkdtempSync(path.join(os.tmpdir(), 'hearth-npm-'));
  t.teardown(() => rmSync(home, { recursive: true, force: true }));
  const registry = `${hearth.rootUrl}api/packages/${owner}/npm/`;
  const hostPath = registry.replace(/^http:/, '');
  writeFileSync(path.join(home, '.npmrc'), `registry=${registry}\n@acme:registry=${registry}\n${hostPath}:_authToken=${user.token}\n`);
  const env = { HOME: home, npm_config_userconfig: path.join(home, '.npmrc'), npm_config_cache: path.join(home, 'cache'), npm_config_update_notifier: 'false', npm_config_audit: 'false', npm_config_fund: 'false' };
  const npm = (args: string[], cwd = home) => runClient('npm', args, { cwd, env });
  const project = (name: string, version: string, extra: Record<string, unknown> = {}) => {
    const dir = path.join(home, `${name.replace('/', '_')}-${version}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, version, description: `the ${name} package`, main: 'index.js', license: 'MIT', ...extra }));
    writeFileSync(path.join(dir, 'index.js'), `module.exports = ${JSON.stringify(`${name}@${version}`)};\n`);
    return dir;
  };
  return { home, npm, project, registry };
}

test('npm publishes, installs, views, tags, deprecates, searches and unpublishes against Hearth', async (t) => {
  if (npmMissing) {
    t.log(`skipped: ${npmMissing}`);
    t.pass();
    return;
  }
  t.timeout(600_000, 'npm is slow on a loaded machine');
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const { home, npm, project } = npmHome(t, hearth, 'alice', alice);

  const published = await npm(['publish'], project('hello-hearth', '1.0.0'));
  t.is(published.code, 0, published.stderr);
  t.is((await npm(['publish'], project('hello-hearth', '1.1.0'))).code, 0);
  const scoped = await npm(['publish'], project('@acme/util', '0.1.0', { dependencies: { 'hello-hearth': '^1.0.0' } }));
  t.is(scoped.code, 0, scoped.stderr);
  // the same version again is refused
  const again = await npm(['publish'], project('hello-hearth', '1.0.0'));
  t.not(again.code, 0);
  t.regex(again.stderr, /previously published|409|already exists/);

  const view = await npm(['view', 'hello-hearth', '--json']);
  t.is(view.code, 0, view.stderr);
  const doc = JSON.parse(view.stdout);
  t.is(doc.version, '1.1.0');
  t.deepEqual(doc.versions, ['1.0.0', '1.1.0']);
  t.regex(doc.dist.integrity, /^sha512-/);

  // install the scoped package, which pulls its dependency through the same registry
  const app = path.join(home, 'app');
  mkdirSync(app);
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }));
  const installed = await npm(['install', '@acme/util@0.1.0'], app);
  t.is(installed.code, 0, installed.stderr);
  t.is(readFileSync(path.join(app, 'node_modules/@acme/util/index.js'), 'utf8'), 'module.exports = "@acme/util@0.1.0";\n');
  t.is(readFileSync(path.join(app, 'node_modules/hello-hearth/index.js'), 'utf8'), 'module.exports = "hello-hearth@1.1.0";\n');
  const lock = JSON.parse(readFileSync(path.join(app, 'package-lock.json'), 'utf8'));
  t.regex(lock.packages['node_modules/hello-hearth'].resolved, /\/api\/packages\/alice\/npm\/hello-hearth\/-\/1\.1\.0\/hello-hearth-1\.1\.0\.tgz$/);

  t.is((await npm(['dist-tag', 'add', 'hello-hearth@1.0.0', 'stable'])).code, 0);
  const tags = await npm(['dist-tag', 'ls', 'hello-hearth']);
  t.regex(tags.stdout, /stable: 1\.0\.0/);
  t.regex(tags.stdout, /latest: 1\.1\.0/);
  t.is((await npm(['dist-tag', 'rm', 'hello-hearth', 'stable'])).code, 0);
  t.notRegex((await npm(['dist-tag', 'ls', 'hello-hearth'])).stdout, /stable/);

  const deprecated = await npm(['deprecate', 'hello-hearth@1.0.0', 'use 1.1']);
  t.is(deprecated.code, 0, deprecated.stderr);
  const afterDeprecate = JSON.parse((await npm(['view', 'hello-hearth@1.0.0', '--json'])).stdout);
  t.is(afterDeprecate.deprecated, 'use 1.1');

  const search = await npm(['search', 'hello', '--json']);
  t.is(search.code, 0, search.stderr);
  t.deepEqual(JSON.parse(search.stdout).map((p: { name: string }) => p.name), ['hello-hearth']);

  const unpublished = await npm(['unpublish', 'hello-hearth@1.0.0']);
  t.is(unpublished.code, 0, unpublished.stderr);
  t.deepEqual(JSON.parse((await npm(['view', 'hello-hearth', 'versions', '--json'])).stdout), ['1.1.0']);
  const all = await npm(['unpublish', '@acme/util', '--force']);
  t.is(all.code, 0, all.stderr);
  t.not((await npm(['view', '@acme/util'])).code, 0);
  t.like(await stored(hearth), { packages: 1, versions: 1, files: 1, blobs: 1 });
});

test('npm publish without a token is a 401 the client reports; a malformed document stores nothing', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const base = `${hearth.rootUrl}api/packages/alice/npm`;
  const tarball = Buffer.from('not really a tarball but bytes');
  const integrity = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
  const doc = (name: string, version: string, data = tarball, claimed = integrity) => ({
    name, 'dist-tags': { latest: version },
    versions: { [version]: { name, version, dist: { integrity: claimed } } },
    _attachments: { [`${name}-${version}.tgz`]: { content_type: 'application/octet-stream', data: data.toString('base64'), length: data.length } },
  });
  const publish = (name: string, body: unknown, auth?: string) => fetch(`${base}/${encodeURIComponent(name)}`, {
    method: 'PUT', headers: { 'Content-Type': 'application/json', ...(auth ? { Authorization: auth } : {}) }, body: JSON.stringify(body),
  });
  const empty = await stored(hearth);

  const anonymous = await publish('raw', doc('raw', '1.0.0'));
  t.is(anonymous.status, 401);
  t.truthy(anonymous.headers.get('www-authenticate'));
  t.like(await anonymous.json(), { error: 'user should have specific permission or be a site admin' });
  t.is((await publish('Raw', doc('Raw', '1.0.0'), `Bearer ${alice.token}`)).status, 400);
  t.is((await publish('raw', doc('raw', 'one'), `Bearer ${alice.token}`)).status, 400);
  const mismatch = await publish('raw', doc('raw', '1.0.0', tarball, 'sha512-AAAA'), `Bearer ${alice.token}`);
  t.is(mismatch.status, 400);
  t.regex((await mismatch.json()).error, /integrity/);
  t.deepEqual(await stored(hearth), empty);

  t.is((await publish('raw', doc('raw', '1.0.0'), `Bearer ${alice.token}`)).status, 201);
  const other = Buffer.from('other bytes');
  const twice = await publish('raw', doc('raw', '1.0.0', other, `sha512-${createHash('sha512').update(other).digest('base64')}`), `Bearer ${alice.token}`);
  t.is(twice.status, 409);
  const after = await stored(hearth);
  t.like(after, { packages: 1, versions: 1, files: 1, blobs: 1 });
  t.is(after.blobFiles.length, 1);

  const packument = await (await fetch(`${base}/raw`)).json();
  t.is(packument.versions['1.0.0'].dist.integrity, integrity);
  t.is(packument.versions['1.0.0'].dist.shasum, createHash('sha1').update(tarball).digest('hex'));
  const download = await fetch(packument.versions['1.0.0'].dist.tarball);
  t.deepEqual(Buffer.from(await download.arrayBuffer()), tarball);
});

test('a publish streams its tarball out of the JSON document, whatever the chunking; bad base64 and limits leave nothing', async (t) => {
  const hearth = await startHearth(t, { HEARTH__packages__LIMIT_SIZE_NPM: '2 MiB' });
  const alice = await hearth.createUser('alice');
  const base = `${hearth.rootUrl}api/packages/alice/npm`;
  const tarball = Buffer.alloc(1536 * 1024 + 5);
  for (let i = 0; i < tarball.length; i++) tarball[i] = (i * 131) % 251;
  const integrity = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
  // strings holding quotes, braces and a "data" key elsewhere must not confuse the scanner
  const doc = (data: string) => JSON.stringify({
    name: 'big', 'dist-tags': { latest: '1.0.0' }, readme: 'say "{data}" \\ [x]: {"_attachments": 1}',
    versions: { '1.0.0': { name: 'big', version: '1.0.0', description: 'a "big" one', data: 'not this', dist: { integrity } } },
    _attachments: { 'big-1.0.0.tgz': { content_type: 'application/octet-stream', data, length: tarball.length } },
  });
  const body = doc(tarball.toString('base64'));

  // directly through the reader, one byte and seven bytes at a time, with `\/` escapes in the base64
  const { Readable } = await import('node:stream');
  const { readNpmPublish } = await import('../../api/packages/npm-publish.js');
  const { noUploadLimit } = await import('../../db/models/packages/blobs.js');
  const small = tarball.subarray(0, 3000);
  const escaped = doc(small.toString('base64')).replace(/\//g, '\\/');
  for (const size of [1, 7]) {
    const bytes = Buffer.from(escaped);
    const chunks = Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));
    const read = await readNpmPublish(Readable.from(chunks), hearth.deps, 1024 * 1024, noUploadLimit);
    t.is(read.tarball?.size, small.length);
    t.is(read.tarball?.sha512, createHash('sha512').update(small).digest('hex'));
    t.like(read.document, { readme: 'say "{data}" \\ [x]: {"_attachments": 1}', _attachments: { 'big-1.0.0.tgz': { data: '', length: tarball.length } } });
    await hearth.deps.blobs.delete(read.tarball!.key);
  }

  const empty = await stored(hearth);
  const publish = (text: string) => fetch(`${base}/big`, { method: 'PUT', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${alice.token}` }, body: text });
  t.is((await publish(doc('not base64!'))).status, 400);
  t.is((await publish(body.slice(0, body.length - 40))).status, 400);
  t.is((await publish(doc(Buffer.alloc(3 * 1024 * 1024).toString('base64')))).status, 413);
  t.deepEqual(await stored(hearth), empty);

  t.is((await publish(body)).status, 201);
  const packument = await (await fetch(`${base}/big`)).json();
  t.is(packument.versions['1.0.0'].dist.integrity, integrity);
  t.is(packument.readme, 'say "{data}" \\ [x]: {"_attachments": 1}');
  t.deepEqual(Buffer.from(await (await fetch(packument.versions['1.0.0'].dist.tarball)).arrayBuffer()), tarball);
});

test('the packument is built with the same few queries whatever the number of versions', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const base = `${hearth.rootUrl}api/packages/alice/npm`;
  const publish = async (version: string): Promise<void> => {
    const tarball = Buffer.from(`the tarball of ${version}`);
    const response = await fetch(`${base}/many`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json', Authorization: alice.bearer },
      body: JSON.stringify({
        name: 'many', 'dist-tags': { latest: version }, versions: { [version]: { name: 'many', version, description: 'one of many' } },
        _attachments: { [`many-${version}.tgz`]: { content_type: 'application/octet-stream', data: tarball.toString('base64'), length: tarball.length } },
      }),
    });
    t.is(response.status, 201, version);
  };
  // every statement the web process reads with goes through deps.db
  const db = hearth.deps.db;
  const query = db.query.bind(db);
  let queries = 0;
  db.query = ((sql: string, params?: unknown[]) => {
    queries++;
    return query(sql, params);
  }) as typeof db.query;
  t.teardown(() => {
    db.query = query;
  });
  const packument = async (): Promise<{ queries: number; versions: number }> => {
    queries = 0;
    const response = await fetch(`${base}/many`);
    t.is(response.status, 200);
    const body = (await response.json()) as { versions: Record<string, unknown> };
    return { queries, versions: Object.keys(body.versions).length };
  };

  for (let i = 0; i < 2; i++) await publish(`1.0.${i}`);
  const few = await packument();
  for (let i = 2; i < 40; i++) await publish(`1.0.${i}`);
  const many = await packument();
  t.is(few.versions, 2);
  t.is(many.versions, 40);
  t.is(many.queries, few.queries);
  t.true(few.queries <= 6, `${few.queries} queries`);
});
