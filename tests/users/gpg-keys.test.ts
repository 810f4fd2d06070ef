import test from 'ava';
import * as openpgp from 'openpgp';
import { startHearth } from '../helpers/hearth.js';

async function gpgKey(email: string, options: { expiresIn?: number } = {}): Promise<{ publicKey: string; privateKey: openpgp.PrivateKey; keyId: string }> {
  const { privateKey, publicKey } = await openpgp.generateKey({
    type: 'ecc', curve: 'ed25519Legacy', userIDs: [{ name: 'Test', email }], format: 'object', keyExpirationTime: options.expiresIn ?? 0,
  });
  return { publicKey: publicKey.armor(), privateKey, keyId: publicKey.getKeyID().toHex().toUpperCase() };
}

async function sign(privateKey: openpgp.PrivateKey, text: string): Promise<string> {
  return openpgp.sign({ message: await openpgp.createMessage({ text }), signingKeys: privateKey, detached: true });
}

test('a key with one of the user\'s addresses is added with its subkey; list, get and delete', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const key = await gpgKey('alice@example.com', { expiresIn: 86_400 * 365 });

  const made = await hearth.call('POST', '/user/gpg_keys', { auth: alice.bearer, body: { armored_public_key: key.publicKey } });
  t.is(made.status, 201, JSON.stringify(made.body));
  t.like(made.body, {
    key_id: key.keyId, primary_key_id: '', verified: false, can_sign: true, can_certify: true,
    can_encrypt_comms: false, can_encrypt_storage: false, emails: [{ email: 'alice@example.com', verified: true }],
  });
  t.regex(made.body.public_key, /^[A-Za-z0-9+/]+=*$/);
  t.regex(made.body.created_at, /Z$/);
  t.true(Date.parse(made.body.expires_at) > Date.now() + 300 * 86_400_000, 'the expiry comes from the key');
  t.is(made.body.subkeys.length, 1);
  t.like(made.body.subkeys[0], { primary_key_id: key.keyId, can_sign: false, can_encrypt_comms: true, can_encrypt_storage: true, emails: null, subkeys: null });

  const rows = await hearth.store.db.query<{ key_id: string; parent_id: number | null; owner_id: number }>('SELECT key_id, parent_id, owner_id FROM gpg_key ORDER BY id');
  t.is(rows.length, 2);
  t.deepEqual(rows[0], { key_id: key.keyId, parent_id: null, owner_id: alice.user.id });
  t.is(rows[1].parent_id, made.body.id);

  const list = await hearth.call('GET', '/user/gpg_keys', { auth: alice.bearer });
  t.deepEqual(list.body.map((k: { id: number }) => k.id), [made.body.id], 'subkeys are listed inside their key only');
  t.is(list.headers.get('x-total-count'), '1');
  const others = await hearth.call('GET', '/users/alice/gpg_keys', { auth: bob.bearer });
  t.deepEqual(others.body.map((k: { key_id: string }) => k.key_id), [key.keyId]);
  t.is((await hearth.call('GET', '/users/alice/gpg_keys')).status, 401);
  t.is((await hearth.call('GET', '/users/nobody/gpg_keys', { auth: bob.bearer })).status, 404);

  t.is((await hearth.call('GET', `/user/gpg_keys/${made.body.id}`, { auth: alice.bearer })).body.key_id, key.keyId);
  t.is((await hearth.call('GET', `/user/gpg_keys/${made.body.id}`, { auth: bob.bearer })).status, 404, "another user's key is not found");
  t.is((await hearth.call('DELETE', `/user/gpg_keys/${made.body.id}`, { auth: bob.bearer })).status, 403);
  t.is((await hearth.call('DELETE', `/user/gpg_keys/${made.body.id}`, { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('DELETE', `/user/gpg_keys/${made.body.id}`, { auth: alice.bearer })).status, 404);
  t.deepEqual(await hearth.store.db.query('SELECT id FROM gpg_key'), [], 'the subkey goes with its key');
});

test('without a matching address the key needs a signature of the verification token', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const key = await gpgKey('someone-else@example.org');

  const tokenAnswer = await hearth.call('GET', '/user/gpg_key_token', { auth: alice.bearer });
  t.is(tokenAnswer.status, 200);
  t.regex(tokenAnswer.headers.get('content-type') ?? '', /^text\/plain/);
  const token = tokenAnswer.body as string;
  t.regex(token, /^[0-9a-f]{64}$/);

  const noEmail = await hearth.call('POST', '/user/gpg_keys', { auth: alice.bearer, body: { armored_public_key: key.publicKey } });
  t.is(noEmail.status, 404);
  t.regex(noEmail.body.message, /None of the emails attached to the GPG key could be found/);
  t.regex(noEmail.body.message, /token: [0-9a-f]{64}$/);
  const badSignature = await hearth.call('POST', '/user/gpg_keys', {
    auth: alice.bearer, body: { armored_public_key: key.publicKey, armored_signature: await sign(key.privateKey, 'not the token') },
  });
  t.is(badSignature.status, 422);
  t.regex(badSignature.body.message, /do not match or token is out of date/);
  t.deepEqual(await hearth.store.db.query('SELECT id FROM gpg_key'), []);

  const signed = await hearth.call('POST', '/user/gpg_keys', {
    auth: alice.bearer, body: { armored_public_key: key.publicKey, armored_signature: await sign(key.privateKey, token) },
  });
  t.is(signed.status, 201, JSON.stringify(signed.body));
  t.true(signed.body.verified);
  t.deepEqual(signed.body.emails, []);
  const [row] = await hearth.store.db.query<{ verified: boolean }>('SELECT verified FROM gpg_key WHERE parent_id IS NULL');
  t.true(row.verified);
  t.is(signed.body.expires_at, '0001-01-01T00:00:00Z', 'a key without expiry shows Gitea\'s zero time');
});

test('an added key is verified later with a signed token; duplicates and junk are refused', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const key = await gpgKey('alice@example.com');

  const made = await hearth.call('POST', '/user/gpg_keys', { auth: alice.bearer, body: { armored_public_key: key.publicKey } });
  t.is(made.status, 201);
  t.false(made.body.verified);
  const duplicate = await hearth.call('POST', '/user/gpg_keys', { auth: alice.bearer, body: { armored_public_key: key.publicKey } });
  t.is(duplicate.status, 422);
  t.is(duplicate.body.message, 'A key with the same id already exists');
  const junk = await hearth.call('POST', '/user/gpg_keys', { auth: alice.bearer, body: { armored_public_key: '-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nnope\n-----END PGP PUBLIC KEY BLOCK-----' } });
  t.is(junk.status, 422);
  t.regex(junk.body.message, /^Failed to parse GPG key/);

  const token = (await hearth.call('GET', '/user/gpg_key_token', { auth: alice.bearer })).body as string;
  const wrong = await hearth.call('POST', '/user/gpg_key_verify', { auth: alice.bearer, body: { key_id: key.keyId, armored_signature: await sign(key.privateKey, 'something else') } });
  t.is(wrong.status, 422);
  const notMine = await hearth.call('POST', '/user/gpg_key_verify', { auth: bob.bearer, body: { key_id: key.keyId, armored_signature: await sign(key.privateKey, token) } });
  t.is(notMine.status, 404);
  t.false((await hearth.store.db.query<{ verified: boolean }>('SELECT verified FROM gpg_key WHERE id = $1', [made.body.id]))[0].verified);

  const verified = await hearth.call('POST', '/user/gpg_key_verify', {
    auth: alice.bearer, body: { key_id: key.keyId.toLowerCase(), armored_signature: await sign(key.privateKey, token) },
  });
  t.is(verified.status, 201, JSON.stringify(verified.body));
  t.true(verified.body.verified);
  t.true(verified.body.subkeys[0].verified);
  const rows = await hearth.store.db.query<{ verified: boolean }>('SELECT verified FROM gpg_key ORDER BY id');
  t.deepEqual(rows.map((r) => r.verified), [true, true]);
  t.true((await hearth.call('GET', `/user/gpg_keys/${made.body.id}`, { auth: alice.bearer })).body.verified);
});
