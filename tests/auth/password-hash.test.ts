import { pbkdf2Sync, randomBytes } from 'node:crypto';
import test from 'ava';
import bcrypt from 'bcryptjs';
import { hashPassword, passwordAlgorithm, verifyPassword } from '../../db/password-hash.js';
import { basicAuth, startHearth } from '../helpers/hearth.js';

const cheap = ['pbkdf2$10000$50', 'argon2$1$1024$1$32', 'bcrypt$4', 'scrypt$1024$8$1$32'];

test('each algorithm hashes and verifies its own hash; a wrong password or a tampered hash is refused', async (t) => {
  for (const algo of cheap) {
    const stored = await hashPassword('correct horse', algo);
    t.is(stored.passwd_hash_algo, algo);
    t.false(stored.passwd.includes('correct horse'));
    t.true(await verifyPassword('correct horse', stored), algo);
    t.false(await verifyPassword('correct hors', stored), algo);
    t.false(await verifyPassword('', stored), algo);
    const other = await hashPassword('correct horse', algo);
    t.not(other.passwd, stored.passwd, `${algo}: salted`);
  }
  const pb = await hashPassword('pw', 'pbkdf2$10000$50');
  t.false(await verifyPassword('pw', { ...pb, passwd: pb.passwd.replace(/^./, (c) => (c === '0' ? '1' : '0')) }));
  t.false(await verifyPassword('pw', { ...pb, passwd_hash_algo: 'md5' }), 'an unknown algorithm never matches');
  t.false(await verifyPassword('pw', { ...pb, passwd: '' }), 'no password set never matches');
});

test('hashes in Gitea\'s stored forms verify: bare pbkdf2 means 10,000 iterations, bcrypt $2a$ hashes carry their own salt', async (t) => {
  const salt = randomBytes(16).toString('hex');
  const bare = pbkdf2Sync('secret-1', salt, 10_000, 50, 'sha256').toString('hex');
  t.true(await verifyPassword('secret-1', { passwd: bare, salt, passwd_hash_algo: 'pbkdf2' }));
  t.true(await verifyPassword('secret-1', { passwd: bare, salt, passwd_hash_algo: '' }), 'an empty algorithm is the original pbkdf2');
  // Go's bcrypt (Gitea) writes $2a$; for passwords under 72 bytes it is the same hash as the $2b$ bcryptjs writes
  const gitea = (await bcrypt.hash('secret-2', 4)).replace(/^\$2b\$/, '$2a$');
  t.regex(gitea, /^\$2a\$04\$/);
  t.true(await verifyPassword('secret-2', { passwd: gitea, salt: 'ignored', passwd_hash_algo: 'bcrypt$10' }));
  t.false(await verifyPassword('secret-3', { passwd: gitea, salt: 'ignored', passwd_hash_algo: 'bcrypt$10' }));
  t.is(passwordAlgorithm('pbkdf2_v2'), 'pbkdf2$50000$50');
  t.true(Number(passwordAlgorithm('pbkdf2').split('$')[1]) >= 50_000, 'the default is at least Gitea 1.22\'s pbkdf2_v2');
});

test('an old pbkdf2 hash is rehashed with the configured algorithm at the next successful sign-in, not at a failed one', async (t) => {
  const configured = 'argon2$1$1024$1$32';
  const hearth = await startHearth(t, { HEARTH__security__PASSWORD_HASH_ALGO: configured });
  const alice = await hearth.createUser('alice');
  const salt = randomBytes(16).toString('hex');
  const old = pbkdf2Sync(alice.password, salt, 10_000, 50, 'sha256').toString('hex');
  await hearth.store.db.query('UPDATE "user" SET passwd = $2, salt = $3, passwd_hash_algo = $4 WHERE id = $1', [alice.user.id, old, salt, 'pbkdf2$10000$50']);
  const read = async (): Promise<{ passwd: string; salt: string; passwd_hash_algo: string }> =>
    (await hearth.store.db.query<{ passwd: string; salt: string; passwd_hash_algo: string }>('SELECT passwd, salt, passwd_hash_algo FROM "user" WHERE id = $1', [alice.user.id]))[0];

  const wrong = await hearth.call('GET', '/user', { auth: basicAuth('alice', 'not-the-password') });
  t.is(wrong.status, 401);
  t.is((await read()).passwd, old, 'a failed sign-in changes nothing');

  const ok = await hearth.call('GET', '/user', { auth: alice.basic });
  t.is(ok.status, 200);
  t.is(ok.body.login, 'alice');
  const upgraded = await read();
  t.is(upgraded.passwd_hash_algo, configured);
  t.not(upgraded.passwd, old);
  t.not(upgraded.salt, salt);
  t.true(await verifyPassword(alice.password, upgraded));

  const again = await hearth.call('GET', '/user', { auth: alice.basic });
  t.is(again.status, 200);
  t.is((await read()).passwd, upgraded.passwd, 'a hash of the configured algorithm is kept');
  t.is((await hearth.call('GET', '/user', { auth: basicAuth('alice', 'not-the-password') })).status, 401);
});
