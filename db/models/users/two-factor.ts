import { Secret, TOTP } from 'otpauth';
import type { Queryable, Tx } from '../../data-source.js';
import { decryptSecret, encryptSecret } from '../../crypto.js';
import { invalid } from '../../errors.js';
import type { UserRow } from './user-row.js';

function totpOf(user: Pick<UserRow, 'name'>, secret: Secret): TOTP {
  return new TOTP({ issuer: 'Hearth', label: user.name, algorithm: 'SHA1', digits: 6, period: 30, secret });
}

/** Enrols TOTP for a user; the seed is stored encrypted. Returns the otpauth:// URI for an authenticator app. */
export async function enrollTotp(tx: Tx, user: UserRow, secretKey: string): Promise<{ uri: string; secret: string }> {
  const secret = new Secret({ size: 20 });
  const inserted = await tx.query(
    'INSERT INTO two_factor (uid, secret) VALUES ($1, $2) ON CONFLICT (uid) DO NOTHING RETURNING uid',
    [user.id, encryptSecret(secretKey, secret.base32)],
  );
  if (inserted.length === 0) throw invalid(`user ${user.name} already has two-factor authentication enrolled`);
  return { uri: totpOf(user, secret).toString(), secret: secret.base32 };
}

export type OtpCheck = 'not-enrolled' | 'valid' | 'invalid';

/**
 * Checks a one-time code sent with basic authentication. Like Gitea's API, a code stays valid for its window,
 * so a client may make several calls with it.
 */
export async function checkTotp(tx: Queryable, user: UserRow, code: string | undefined, secretKey: string): Promise<OtpCheck> {
  const [row] = await tx.query<{ secret: string }>('SELECT secret FROM two_factor WHERE uid = $1', [user.id]);
  if (!row) return 'not-enrolled';
  if (!code || !/^\d{6}$/.test(code)) return 'invalid';
  const totp = totpOf(user, Secret.fromBase32(decryptSecret(secretKey, row.secret)));
  return totp.validate({ token: code, window: 1 }) === null ? 'invalid' : 'valid';
}
