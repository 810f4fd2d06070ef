import type { Queryable } from '../../data-source.js';
import { hashPassword, needsRehash, verifyPassword } from '../../password-hash.js';
import type { UserRow } from './user-row.js';

/**
 * The one password check of every sign-in (basic authentication on the API and git, the web sign-in): verifies the
 * password against the stored hash, whatever algorithm made it, and when it matches but was made with other
 * parameters than `algo` (the configured PASSWORD_HASH_ALGO), stores a new hash made with `algo`. The update is
 * conditional on the old hash, so two concurrent sign-ins never overwrite a password changed in between.
 */
export async function checkUserPassword(db: Queryable, user: UserRow, password: string, algo: string): Promise<boolean> {
  if (!(await verifyPassword(password, user))) return false;
  if (needsRehash(user, algo)) {
    const fresh = await hashPassword(password, algo);
    await db.query(
      'UPDATE "user" SET passwd = $2, salt = $3, passwd_hash_algo = $4 WHERE id = $1 AND passwd = $5',
      [user.id, fresh.passwd, fresh.salt, fresh.passwd_hash_algo, user.passwd],
    );
    Object.assign(user, fresh);
  }
  return true;
}
