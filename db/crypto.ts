import { createCipheriv, createDecipheriv, createHash, pbkdf2, randomBytes, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const pbkdf2Async = promisify(pbkdf2);

/** Gitea's names for pbkdf2 parameter sets; `pbkdf2` itself means the strong set, as in Gitea 1.22. */
const pbkdf2Presets: Record<string, string> = {
  pbkdf2: 'pbkdf2$320000$50',
  pbkdf2_hi: 'pbkdf2$320000$50',
  pbkdf2_v2: 'pbkdf2$50000$50',
};

/** Resolves a PASSWORD_HASH_ALGO setting to the stored form `pbkdf2$iterations$keylen`. */
export function passwordAlgorithm(setting: string): string {
  const algo = pbkdf2Presets[setting] ?? setting;
  const match = /^pbkdf2\$(\d+)\$(\d+)$/.exec(algo);
  if (!match || Number(match[1]) < 10_000 || Number(match[2]) < 16) {
    throw new Error(`[security] PASSWORD_HASH_ALGO: unsupported value ${setting} (use pbkdf2, pbkdf2_hi or pbkdf2$ITERATIONS$KEYLEN)`);
  }
  return algo;
}

function isSupportedAlgorithm(algo: string): boolean {
  try {
    passwordAlgorithm(algo);
    return true;
  } catch {
    return false;
  }
}

export interface PasswordHash {
  passwd: string;
  salt: string;
  passwd_hash_algo: string;
}

export async function hashPassword(password: string, algo: string): Promise<PasswordHash> {
  const salt = randomBytes(16).toString('hex');
  return { passwd: await derive(password, salt, algo), salt, passwd_hash_algo: algo };
}

/** A hash this build cannot compute (an imported bcrypt or argon2 one, say) never matches: the login fails, nothing crashes. */
export async function verifyPassword(password: string, stored: PasswordHash): Promise<boolean> {
  if (!stored.passwd || !stored.passwd_hash_algo || !isSupportedAlgorithm(stored.passwd_hash_algo)) return false;
  const candidate = Buffer.from(await derive(password, stored.salt, stored.passwd_hash_algo), 'hex');
  const expected = Buffer.from(stored.passwd, 'hex');
  return candidate.length === expected.length && timingSafeEqual(candidate, expected);
}

async function derive(password: string, salt: string, algo: string): Promise<string> {
  const [, iterations, keylen] = passwordAlgorithm(algo).split('$');
  return (await pbkdf2Async(password, salt, Number(iterations), Number(keylen), 'sha256')).toString('hex');
}

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
