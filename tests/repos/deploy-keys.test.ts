import { generateKeyPairSync } from 'node:crypto';
import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth } from '../helpers/hearth.js';

/** A key generated once with ssh-keygen, and the fingerprint `ssh-keygen -lf` printed for it. */
const knownKey = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINhZdXT34gN+Dw3ydulBYnrxnt4cpt6jLwE55+v4+4/J deploy@example';
const knownFingerprint = 'SHA256:s4cueKRt8ZNuJSZpjnxgZZj+MJ9baZUQPpoRriH3tzo';

const wireString = (bytes: Buffer | string): Buffer => {
  const data = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  return Buffer.concat([length, data]);
};
const mpint = (bytes: Buffer): Buffer => wireString(bytes[0] & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
const b64 = (text: string | undefined): Buffer => Buffer.from(text ?? '', 'base64url');

function sshKey(kind: 'ed25519' | 'rsa2048' | 'rsa3072' | 'ecdsa'): string {
  if (kind === 'ed25519') {
    const jwk = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
    return `ssh-ed25519 ${Buffer.concat([wireString('ssh-ed25519'), wireString(b64(jwk.x))]).toString('base64')}`;
  }
  if (kind === 'ecdsa') {
    const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
    const point = Buffer.concat([Buffer.from([4]), b64(jwk.x), b64(jwk.y)]);
    const blob = Buffer.concat([wireString('ecdsa-sha2-nistp256'), wireString('nistp256'), wireString(point)]);
    return `ecdsa-sha2-nistp256 ${blob.toString('base64')} ci@host`;
  }
  const jwk = generateKeyPairSync('rsa', { modulusLength: kind === 'rsa2048' ? 2048 : 3072 }).publicKey.export({ format: 'jwk' });
  return `ssh-rsa ${Buffer.concat([wireString('ssh-rsa'), mpint(b64(jwk.e)), mpint(b64(jwk.n))]).toString('base64')}`;
}

test('add, list, get and delete deploy keys; the fingerprint is OpenSSH\'s', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  await build.repo(hearth, alice, { name: 'tools' });

  const made = await hearth.call('POST', '/repos/alice/tools/keys', { auth: alice.bearer, body: { title: 'ci', key: `${knownKey}\n`, read_only: true } });
  t.is(made.status, 201, JSON.stringify(made.body));
  t.like(made.body, {
    title: 'ci', key: knownKey, fingerprint: knownFingerprint, read_only: true,
    url: `${hearth.rootUrl}api/v1/repos/alice/tools/keys/${made.body.id}`,
  });
  t.is(made.body.repository.full_name, 'alice/tools');
  t.true(made.body.key_id > 0);
  t.regex(made.body.created_at, /Z$/);

  const rsa = await hearth.call('POST', '/repos/alice/tools/keys', { auth: alice.bearer, body: { title: 'rsa', key: sshKey('rsa3072') } });
  t.is(rsa.status, 201, JSON.stringify(rsa.body));
  t.false(rsa.body.read_only, 'keys may write unless read_only');
  const ecdsa = await hearth.call('POST', '/repos/alice/tools/keys', { auth: alice.bearer, body: { title: 'ec', key: sshKey('ecdsa') } });
  t.is(ecdsa.status, 201, JSON.stringify(ecdsa.body));
  t.regex(ecdsa.body.fingerprint, /^SHA256:[A-Za-z0-9+/]{43}$/);

  const list = await hearth.call('GET', '/repos/alice/tools/keys', { auth: alice.bearer });
  t.deepEqual(list.body.map((k: { title: string }) => k.title), ['ci', 'rsa', 'ec']);
  t.is(list.headers.get('x-total-count'), '3');
  const byPrint = await hearth.call('GET', `/repos/alice/tools/keys?fingerprint=${encodeURIComponent(knownFingerprint)}`, { auth: alice.bearer });
  t.deepEqual(byPrint.body.map((k: { title: string }) => k.title), ['ci']);
  const byKeyId = await hearth.call('GET', `/repos/alice/tools/keys?key_id=${rsa.body.key_id}`, { auth: alice.bearer });
  t.deepEqual(byKeyId.body.map((k: { title: string }) => k.title), ['rsa']);

  const one = await hearth.call('GET', `/repos/alice/tools/keys/${made.body.id}`, { auth: alice.bearer });
  t.is(one.status, 200);
  t.is(one.body.fingerprint, knownFingerprint);
  t.is((await hearth.call('DELETE', `/repos/alice/tools/keys/${made.body.id}`, { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('GET', `/repos/alice/tools/keys/${made.body.id}`, { auth: alice.bearer })).status, 404);
  t.is((await hearth.call('DELETE', `/repos/alice/tools/keys/${made.body.id}`, { auth: alice.bearer })).status, 404);
  const rows = await hearth.store.db.query<{ name: string }>('SELECT name FROM deploy_key ORDER BY id');
  t.deepEqual(rows.map((r) => r.name), ['rsa', 'ec']);
});

test('the same key in two repositories shares its key_id; duplicates in one repository are refused', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  for (const name of ['one', 'two']) await build.repo(hearth, alice, { name });
  const key = sshKey('ed25519');
  const first = await hearth.call('POST', '/repos/alice/one/keys', { auth: alice.bearer, body: { title: 'deploy', key } });
  const second = await hearth.call('POST', '/repos/alice/two/keys', { auth: alice.bearer, body: { title: 'deploy', key: `${key} other comment` } });
  t.is(second.status, 201);
  t.is(second.body.key_id, first.body.key_id);
  t.not(second.body.id, first.body.id);

  const again = await hearth.call('POST', '/repos/alice/one/keys', { auth: alice.bearer, body: { title: 'again', key } });
  t.is(again.status, 422);
  t.is(again.body.message, 'This key has already been added to this repository');
  const sameTitle = await hearth.call('POST', '/repos/alice/one/keys', { auth: alice.bearer, body: { title: 'deploy', key: sshKey('ed25519') } });
  t.is(sameTitle.status, 422);
  t.is(sameTitle.body.message, 'A key with the same name already exists');
  const [{ count }] = await hearth.store.db.query<{ count: number }>('SELECT count(*) AS count FROM deploy_key');
  t.is(count, 2);
});

test('invalid keys, small RSA keys and callers without admin rights are refused', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  await build.repo(hearth, alice, { name: 'tools' });
  const ed = sshKey('ed25519');
  const [, blob] = ed.split(' ');
  const bad = [
    'not a key',
    `ssh-rsa ${blob}`,
    `ssh-ed25519 ${blob.slice(0, -8)}`,
    `ssh-ed25519 ${blob}!!`,
    'ssh-dss AAAAB3NzaC1kc3MAAACBAP',
    sshKey('rsa2048'),
  ];
  for (const key of bad) {
    const answer = await hearth.call('POST', '/repos/alice/tools/keys', { auth: alice.bearer, body: { title: 'x', key } });
    t.is(answer.status, 422, key);
    t.regex(answer.body.message, /Invalid key content/);
  }
  t.is((await hearth.call('POST', '/repos/alice/tools/keys', { auth: alice.bearer, body: { key: ed } })).status, 422, 'title is required');

  t.is((await hearth.call('GET', '/repos/alice/tools/keys')).status, 401);
  t.is((await hearth.call('GET', '/repos/alice/tools/keys', { auth: bob.bearer })).status, 403);
  t.is((await hearth.call('POST', '/repos/alice/tools/keys', { auth: bob.bearer, body: { title: 'x', key: ed } })).status, 403);
  await hearth.call('PUT', '/repos/alice/tools/collaborators/bob', { auth: alice.bearer, body: { permission: 'admin' } });
  const byAdmin = await hearth.call('POST', '/repos/alice/tools/keys', { auth: bob.bearer, body: { title: 'x', key: ed } });
  t.is(byAdmin.status, 201);
  t.is(byAdmin.body.repository, undefined, 'the repository is shown to its owner and site administrators only');
  t.is((await hearth.call('GET', '/repos/alice/tools/keys/abc', { auth: alice.bearer })).status, 404);
  const [{ count }] = await hearth.store.db.query<{ count: number }>('SELECT count(*) AS count FROM deploy_key');
  t.is(count, 1);
});
