import { generateKeyPairSync } from 'node:crypto';
import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth } from '../helpers/hearth.js';

/** A key generated once with ssh-keygen, and the fingerprint `ssh-keygen -lf` printed for it. */
const knownKey = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINhZdXT34gN+Dw3ydulBYnrxnt4cpt6jLwE55+v4+4/J alice@laptop';
const knownFingerprint = 'SHA256:s4cueKRt8ZNuJSZpjnxgZZj+MJ9baZUQPpoRriH3tzo';

function ed25519Key(comment = ''): string {
  const jwk = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
  const wire = (bytes: Buffer): Buffer => Buffer.concat([Buffer.from([0, 0, 0, bytes.length]), bytes]);
  const blob = Buffer.concat([wire(Buffer.from('ssh-ed25519')), wire(Buffer.from(jwk.x ?? '', 'base64url'))]);
  return `ssh-ed25519 ${blob.toString('base64')}${comment ? ` ${comment}` : ''}`;
}

test('a user adds, lists, reads and deletes SSH keys; owners see their own details', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');

  const made = await hearth.call('POST', '/user/keys', { auth: alice.bearer, body: { title: 'laptop', key: `${knownKey}\n` } });
  t.is(made.status, 201, JSON.stringify(made.body));
  t.like(made.body, {
    title: 'laptop', key: knownKey, fingerprint: knownFingerprint, key_type: 'user',
    url: `${hearth.rootUrl}api/v1/user/keys/${made.body.id}`,
  });
  t.is(made.body.user.login, 'alice');
  t.is(made.body.user.email, 'alice@example.com');
  t.false('read_only' in made.body, 'user keys may write, and Gitea leaves read_only out then');
  t.regex(made.body.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  const second = await hearth.call('POST', '/user/keys', { auth: alice.bearer, body: { title: 'desktop', key: ed25519Key('alice@desktop') } });
  t.is(second.status, 201);

  const [row] = await hearth.store.db.query<{ owner_id: number; name: string; content: string }>('SELECT owner_id, name, content FROM public_key WHERE id = $1', [made.body.id]);
  t.deepEqual(row, { owner_id: alice.user.id, name: 'laptop', content: knownKey });

  const mine = await hearth.call('GET', '/user/keys', { auth: alice.bearer });
  t.is(mine.status, 200);
  t.deepEqual(mine.body.map((k: { title: string }) => k.title), ['laptop', 'desktop']);
  t.is(mine.headers.get('x-total-count'), '2');
  const paged = await hearth.call('GET', '/user/keys?limit=1&page=2', { auth: alice.bearer });
  t.deepEqual(paged.body.map((k: { title: string }) => k.title), ['desktop']);

  const seenByBob = await hearth.call('GET', '/users/alice/keys', { auth: bob.bearer });
  t.is(seenByBob.status, 200);
  t.deepEqual(seenByBob.body.map((k: { title: string }) => k.title), ['laptop', 'desktop']);
  t.false('user' in seenByBob.body[0], "another user's keys come without owner details");
  t.false('key_type' in seenByBob.body[0]);
  t.is((await hearth.call('GET', '/users/alice/keys')).status, 401, 'listing a user\'s keys needs a signed-in caller');

  const byPrint = await hearth.call('GET', `/users/alice/keys?fingerprint=${encodeURIComponent(knownFingerprint)}`, { auth: bob.bearer });
  t.deepEqual(byPrint.body.map((k: { id: number }) => k.id), [made.body.id]);
  t.is((await hearth.call('GET', `/users/bob/keys?fingerprint=${encodeURIComponent(knownFingerprint)}`, { auth: bob.bearer })).body.length, 0);
  const anywhere = await hearth.call('GET', `/user/keys?fingerprint=${encodeURIComponent(knownFingerprint)}`, { auth: bob.bearer });
  t.deepEqual(anywhere.body.map((k: { id: number }) => k.id), [made.body.id], "/user/keys?fingerprint searches everyone's keys, as in Gitea");
  t.is(anywhere.headers.get('x-total-count'), '1');

  const one = await hearth.call('GET', `/user/keys/${made.body.id}`, { auth: alice.bearer });
  t.is(one.status, 200);
  t.is(one.body.user.login, 'alice');
  t.is((await hearth.call('GET', '/user/keys/999999', { auth: alice.bearer })).status, 404);
  t.is((await hearth.call('GET', '/user/keys/abc', { auth: alice.bearer })).status, 404);

  const refused = await hearth.call('DELETE', `/user/keys/${made.body.id}`, { auth: bob.bearer });
  t.is(refused.status, 403);
  t.is(refused.body.message, 'You do not have access to this key');
  t.is((await hearth.call('DELETE', `/user/keys/${made.body.id}`, { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('DELETE', `/user/keys/${made.body.id}`, { auth: alice.bearer })).status, 404);
  t.deepEqual((await hearth.call('GET', '/user/keys', { auth: alice.bearer })).body.map((k: { title: string }) => k.title), ['desktop']);
  const events = await hearth.store.db.query<{ kind: string }>(`SELECT kind FROM domain_event WHERE kind LIKE 'user.public_key%' ORDER BY id`);
  t.deepEqual(events.map((e) => e.kind), ['user.public_key_added', 'user.public_key_added', 'user.public_key_removed']);
});

test('a key belongs to one user or to deploy keys, titles are unique per user, and bad keys are refused', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  await build.repo(hearth, alice, { name: 'tools' });

  t.is((await hearth.call('POST', '/user/keys', { auth: alice.bearer, body: { title: 'laptop', key: knownKey } })).status, 201);
  const again = await hearth.call('POST', '/user/keys', { auth: bob.bearer, body: { title: 'mine', key: knownKey.replace('alice@laptop', 'bob') } });
  t.is(again.status, 422);
  t.is(again.body.message, 'Key content has been used as non-deploy key');
  const title = await hearth.call('POST', '/user/keys', { auth: alice.bearer, body: { title: 'laptop', key: ed25519Key() } });
  t.is(title.status, 422);
  t.is(title.body.message, 'Key title has been used');
  t.is((await hearth.call('POST', '/user/keys', { auth: bob.bearer, body: { title: 'laptop', key: ed25519Key() } })).status, 201, 'titles are per user');

  const asDeployKey = await hearth.call('POST', '/repos/alice/tools/keys', { auth: alice.bearer, body: { title: 'ci', key: knownKey } });
  t.is(asDeployKey.status, 422);
  t.is(asDeployKey.body.message, 'Key content has been used as non-deploy key');
  const deployKey = ed25519Key('deploy');
  t.is((await hearth.call('POST', '/repos/alice/tools/keys', { auth: alice.bearer, body: { title: 'ci', key: deployKey } })).status, 201);
  const usedByRepo = await hearth.call('POST', '/user/keys', { auth: bob.bearer, body: { title: 'deploy', key: deployKey } });
  t.is(usedByRepo.status, 422);
  t.is(usedByRepo.body.message, 'Key content has been used as non-deploy key');

  t.is((await hearth.call('POST', '/user/keys', { auth: bob.bearer, body: { title: 'junk', key: 'ssh-ed25519 not-base64!' } })).status, 422);
  t.is((await hearth.call('POST', '/user/keys', { auth: bob.bearer, body: { title: '', key: ed25519Key() } })).status, 422);
  t.is((await hearth.call('POST', '/user/keys', { auth: bob.bearer, body: { title: 'x' } })).status, 422);

  const counts = await hearth.store.db.query<{ owner_id: number; count: number }>('SELECT owner_id, count(*)::int AS count FROM public_key GROUP BY owner_id ORDER BY owner_id');
  t.deepEqual(counts, [{ owner_id: alice.user.id, count: 1 }, { owner_id: bob.user.id, count: 1 }]);
});

test('administrators add and delete keys for a user; scopes and sign-in are enforced', async (t) => {
  const hearth = await startHearth(t);
  const root = await hearth.createUser('root', { admin: true });
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const reader = await hearth.createUser('reader', { scopes: ['read:user'] });

  const made = await hearth.call('POST', '/admin/users/alice/keys', { auth: root.bearer, body: { title: 'from admin', key: knownKey } });
  t.is(made.status, 201, JSON.stringify(made.body));
  t.is(made.body.user.login, 'alice');
  t.is((await hearth.call('GET', '/user/keys', { auth: alice.bearer })).body[0].id, made.body.id);
  t.is((await hearth.call('POST', '/admin/users/alice/keys', { auth: bob.bearer, body: { title: 'x', key: ed25519Key() } })).status, 403);
  t.is((await hearth.call('POST', '/admin/users/nobody/keys', { auth: root.bearer, body: { title: 'x', key: ed25519Key() } })).status, 404);

  const bobKey = await hearth.call('POST', '/user/keys', { auth: bob.bearer, body: { title: 'bob', key: ed25519Key() } });
  const wrongOwner = await hearth.call('DELETE', `/admin/users/alice/keys/${bobKey.body.id}`, { auth: root.bearer });
  t.is(wrongOwner.status, 403, "the key is deleted on the named user's behalf, so another user's key is refused");
  t.is((await hearth.call('DELETE', `/admin/users/alice/keys/${made.body.id}`, { auth: bob.bearer })).status, 403);
  t.is((await hearth.call('DELETE', `/admin/users/alice/keys/${made.body.id}`, { auth: root.bearer })).status, 204);
  t.is((await hearth.call('DELETE', `/admin/users/alice/keys/${made.body.id}`, { auth: root.bearer })).status, 404);
  t.deepEqual(await hearth.store.db.query('SELECT id FROM public_key WHERE owner_id = $1', [alice.user.id]), []);
  t.is((await hearth.call('DELETE', `/user/keys/${bobKey.body.id}`, { auth: root.bearer })).status, 204, 'an administrator may delete anyone\'s key');

  t.is((await hearth.call('GET', '/user/keys', { auth: reader.bearer })).status, 200);
  const denied = await hearth.call('POST', '/user/keys', { auth: reader.bearer, body: { title: 'r', key: ed25519Key() } });
  t.is(denied.status, 403);
  t.is(denied.body.message, 'token does not have at least one of required scope(s): [write:user]');
  t.is((await hearth.call('GET', '/user/keys')).status, 401);
});
