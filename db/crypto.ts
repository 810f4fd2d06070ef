import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Access tokens are 160 random bits, so a salted SHA-256 is as safe as a slow hash and keeps
 * token authentication to microseconds on the hot path.
 */
export function newAccessToken(): { token: string; salt: string; hash: string; lastEight: string } {
  const token = randomBytes(20).toString('hex');
  const salt = randomBytes(10).toString('hex');
  return { token, salt, hash: hashToken(token, salt), lastEight: token.slice(-8) };
}

export function hashToken(token: string, salt: string): string {
  return createHash('sha256').update(salt).update(token).digest('hex');
}

export function tokenMatches(token: string, salt: string, hash: string): boolean {
  const candidate = Buffer.from(hashToken(token, salt), 'hex');
  const expected = Buffer.from(hash, 'hex');
  return candidate.length === expected.length && timingSafeEqual(candidate, expected);
}

/** Secrets at rest (TOTP seeds, mirror credentials, ...): AES-256-GCM under a key derived from [security] SECRET_KEY. */
export function encryptSecret(secretKey: string, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(secretKey), iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(':');
}

export function decryptSecret(secretKey: string, sealed: string): string {
  const [version, iv, tag, body] = sealed.split(':');
  if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('unrecognised secret format');
  const decipher = createDecipheriv('aes-256-gcm', keyOf(secretKey), Buffer.from(iv, 'base64'));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
}

function keyOf(secretKey: string): Buffer {
  if (!secretKey) throw new Error('[security] SECRET_KEY is empty');
  return createHash('sha256').update(secretKey).digest();
}
