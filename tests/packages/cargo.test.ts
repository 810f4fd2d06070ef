import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { hasClient, runClient } from '../helpers/clients.js';
import { startHearth } from '../helpers/hearth.js';
import { stored } from './stored.js';

const cargoMissing = hasClient('cargo') ? null : 'cargo is not installed';

/** cargo's publish body: u32 LE metadata length, metadata JSON, u32 LE crate length, crate bytes. */
function publishBody(metadata: Record<string, unknown>, crate: Buffer): Buffer {
  const json = Buffer.from(JSON.stringify(metadata));
  const head = Buffer.alloc(4);
  head.writeUInt32LE(json.length);
  const size = Buffer.alloc(4);
  size.writeUInt32LE(crate.length);
  return Buffer.concat([head, json, size, crate]);
}

test('cargo publishes, yanks and unyanks, and builds a crate depending on a published one', async (t) => {
  if (cargoMissing) {
    t.log(`skipped: ${cargoMissing}`);
    t.pass();
    return;
  }
  t.timeout(600_000, 'cargo is slow on a loaded machine');
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const home = mkdtempSync(path.join(os.tmpdir(), 'hearth-cargo-'));
  t.teardown(() => rmSync(home, { recursive: true, force: true }));
  const cargoHome = path.join(home, 'cargo-home');
  mkdirSync(cargoHome);
  writeFileSync(path.join(cargoHome, 'config.toml'),
    `[registries.hearth]\nindex = "sparse+${hearth.rootUrl}api/packages/alice/cargo/"\n[net]\nretry = 0\n`);
  writeFileSync(path.join(cargoHome, 'credentials.toml'), `[registries.hearth]\ntoken = "Bearer ${alice.token}"\n`);
  const env = { HOME: home, CARGO_HOME: cargoHome, CARGO_TARGET_DIR: path.join(home, 'target'), RUSTUP_HOME: process.env.RUSTUP_HOME ?? path.join(os.homedir(), '.rustup'), CARGO_TERM_COLOR: 'never' };
  const cargo = (args: string[], cwd: string) => runClient('cargo', args, { cwd, env, timeoutMs: 240_000 });
  const crate = (name: string, version: string, source: string, dependencies = '') => {
    const dir = path.join(home, `${name}-${version}`);
    mkdirSync(path.join(dir, 'src'), { recursive: true });
    writeFileSync(path.join(dir, 'Cargo.toml'), `[package]\nname = "${name}"\nversion = "${version}"\nedition = "2021"\ndescription = "the ${name} crate"\nlicense = "MIT"\npublish = ["hearth"]\n\n[dependencies]\n${dependencies}`);
    writeFileSync(path.join(dir, 'src', name === 'app' ? 'main.rs' : 'lib.rs'), source);
    return dir;
  };

  const lib = crate('hearth_greet', '0.1.0', 'pub fn greet() -> &\'static str { "hello from hearth 0.1.0" }\n');
  const published = await cargo(['publish', '--registry', 'hearth', '--no-verify'], lib);
  t.is(published.code, 0, published.stderr);
  const again = await cargo(['publish', '--registry', 'hearth', '--no-verify'], lib);
  t.not(again.code, 0);
  t.regex(again.stderr, /already exists/);
  const newer = await cargo(['publish', '--registry', 'hearth', '--no-verify'], crate('hearth_greet', '0.2.0', 'pub fn greet() -> &\'static str { "hello from hearth 0.2.0" }\n'));
  t.is(newer.code, 0, newer.stderr);

  const indexLines = (await (await fetch(`${hearth.rootUrl}api/packages/alice/cargo/he/ar/hearth_greet`)).text()).trim().split('\n').map((l) => JSON.parse(l));
  t.deepEqual(indexLines.map((l) => [l.name, l.vers, l.yanked]), [['hearth_greet', '0.1.0', false], ['hearth_greet', '0.2.0', false]]);
  const download = await fetch(`${hearth.rootUrl}api/packages/alice/cargo/api/v1/crates/hearth_greet/0.1.0/download`);
  t.is(indexLines[0].cksum, createHash('sha256').update(Buffer.from(await download.arrayBuffer())).digest('hex'));

  const yanked = await cargo(['yank', '--registry', 'hearth', 'hearth_greet@0.2.0'], lib);
  t.is(yanked.code, 0, yanked.stderr);
  const afterYank = (await (await fetch(`${hearth.rootUrl}api/packages/alice/cargo/he/ar/hearth_greet`)).text()).trim().split('\n').map((l) => JSON.parse(l));
  t.deepEqual(afterYank.map((l) => l.yanked), [false, true]);

  // with 0.2.0 yanked, the dependent crate resolves 0.1.0
  const app = crate('app', '1.0.0', 'fn main() { println!("{}", hearth_greet::greet()); }\n', 'hearth_greet = { version = ">=0.1", registry = "hearth" }\n');
  const fetched = await cargo(['fetch'], app);
  t.is(fetched.code, 0, fetched.stderr);
  const built = await cargo(['run', '--offline', '-q'], app);
  t.is(built.code, 0, built.stderr);
  t.is(built.stdout.trim(), 'hello from hearth 0.1.0');

  t.is((await cargo(['yank', '--undo', '--registry', 'hearth', 'hearth_greet@0.2.0'], lib)).code, 0);
  rmSync(path.join(app, 'Cargo.lock'));
  t.is((await cargo(['fetch'], app)).code, 0);
  const rebuilt = await cargo(['run', '--offline', '-q'], app);
  t.is(rebuilt.stdout.trim(), 'hello from hearth 0.2.0', rebuilt.stderr);

  const search = await (await fetch(`${hearth.rootUrl}api/packages/alice/cargo/api/v1/crates?q=greet`)).json();
  t.deepEqual(search, { crates: [{ name: 'hearth_greet', max_version: '0.2.0', description: 'the hearth_greet crate' }], meta: { total: 1 } });
  const owners = await (await fetch(`${hearth.rootUrl}api/packages/alice/cargo/api/v1/crates/hearth_greet/owners`)).json();
  t.is(owners.users[0].login, 'alice');
});

test('the cargo protocol over raw HTTP: config, bad credentials, malformed and oversized crates store nothing', async (t) => {
  const hearth = await startHearth(t, { HEARTH__packages__LIMIT_SIZE_CARGO: '1 KiB' });
  const alice = await hearth.createUser('alice');
  const base = `${hearth.rootUrl}api/packages/alice/cargo`;
  t.deepEqual(await (await fetch(`${base}/config.json`)).json(), { dl: `${base}/api/v1/crates`, api: base, 'auth-required': false });
  t.is((await fetch(`${base}/3/a/abc`)).status, 404);
  const crate = Buffer.from('crate bytes');
  const meta = { name: 'raw_crate', vers: '1.0.0', deps: [{ name: 'serde', version_req: '^1', features: ['derive'], optional: false, default_features: true, target: null, kind: 'normal', registry: 'https://github.com/rust-lang/crates.io-index', explicit_name_in_toml: null }], features: { std: [] } };
  const publish = (body: Buffer, auth?: string) => fetch(`${base}/api/v1/crates/new`, { method: 'PUT', headers: auth ? { Authorization: auth } : {}, body: new Uint8Array(body) });
  const empty = await stored(hearth);

  const bad = await publish(publishBody(meta, crate), 'Bearer 0123456789012345678901234567890123456789');
  t.is(bad.status, 401);
  t.truthy(bad.headers.get('www-authenticate'));
  t.truthy((await bad.json()).errors[0].detail);
  t.is((await publish(publishBody(meta, crate))).status, 401);
  t.is((await publish(publishBody({ ...meta, name: '1bad' }, crate), alice.bearer)).status, 400);
  t.is((await publish(publishBody({ ...meta, vers: 'one' }, crate), alice.bearer)).status, 400);
  t.is((await publish(publishBody(meta, crate).subarray(0, 30), alice.bearer)).status, 400);
  // the .crate streams to the blob store: one shorter or longer than announced is refused and leaves nothing
  const whole = publishBody(meta, crate);
  const short = await publish(whole.subarray(0, whole.length - 3), alice.bearer);
  t.is(short.status, 400);
  t.regex((await short.json()).errors[0].detail, /truncated/);
  t.is((await publish(Buffer.concat([whole, Buffer.from('extra')]), alice.bearer)).status, 400);
  // the crate's announced length past the limit is refused before its bytes are read
  const oversized = await publish(publishBody(meta, Buffer.alloc(4096, 1)), alice.bearer);
  t.is(oversized.status, 413);
  t.is((await oversized.json()).errors[0].detail, 'maximum allowed package type size exceeded');
  t.deepEqual(await stored(hearth), empty);

  t.is((await publish(publishBody(meta, crate), alice.bearer)).status, 200);
  const twice = await publish(publishBody(meta, Buffer.from('other')), alice.bearer);
  t.is(twice.status, 409);
  t.regex((await twice.json()).errors[0].detail, /already exists/);
  const state = await stored(hearth);
  t.like(state, { versions: 1, files: 1, blobs: 1 });
  t.is(state.blobFiles.length, 1);
  const line = JSON.parse(await (await fetch(`${base}/ra/w_/raw_crate`)).text());
  t.deepEqual(line, {
    name: 'raw_crate', vers: '1.0.0', cksum: createHash('sha256').update(crate).digest('hex'), features: { std: [] }, yanked: false,
    deps: [{ name: 'serde', req: '^1', features: ['derive'], optional: false, default_features: true, target: null, kind: 'normal', registry: 'https://github.com/rust-lang/crates.io-index', package: null }],
  });
  t.is((await fetch(`${base}/api/v1/crates/raw_crate/1.0.0/yank`, { method: 'DELETE', headers: { Authorization: alice.bearer } })).status, 200);
  t.true(JSON.parse(await (await fetch(`${base}/ra/w_/raw_crate`)).text()).yanked);
});
