import { pbkdf2, scrypt, timingSafeEqual, randomBytes, type ScryptOptions } from 'node:crypto';
import { promisify } from 'node:util';
import { hashRaw } from '@node-rs/argon2';
import bcrypt from 'bcryptjs';

const pbkdf2Async = promisify(pbkdf2);
const scryptAsync = promisify(scrypt) as (password: string, salt: string, keylen: number, options: ScryptOptions) => Promise<Buffer>;

/**
 * PASSWORD_HASH_ALGO names, as Gitea 1.22's aliasAlgorithmNames, except that plain `pbkdf2` (and so the default) means
 * the stronger `pbkdf2_hi` set rather than Gitea's `pbkdf2_v2` (50,000 iterations).
 */
const aliases: Record<string, string> = {
  argon2: 'argon2$2$65536$8$50',
  bcrypt: 'bcrypt$10',
  scrypt: 'scrypt$65536$16$2$50',
  pbkdf2: 'pbkdf2$320000$50',
  pbkdf2_v1: 'pbkdf2$10000$50',
  pbkdf2_v2: 'pbkdf2$50000$50',
  pbkdf2_hi: 'pbkdf2$320000$50',
};

/** A stored specification without parameters means that hasher's original parameters (Gitea's Parse, no de-aliasing). */
const bareDefaults: Record<string, string> = {
  argon2: '2$65536$8$50',
  bcrypt: '10',
  scrypt: '65536$16$2$50',
  pbkdf2: '10000$50',
};

type Hasher =
  | { kind: 'pbkdf2'; iterations: number; keyLen: number }
  | { kind: 'argon2'; time: number; memory: number; threads: number; keyLen: number }
  | { kind: 'scrypt'; n: number; r: number; p: number; keyLen: number }
  | { kind: 'bcrypt'; cost: number };

function parseSpec(spec: string): Hasher | null {
  const [kind, ...rest] = spec.split('$');
  const params = (rest.length ? rest.join('$') : bareDefaults[kind] ?? '').split('$');
  if (!params.every((p) => /^\d{1,10}$/.test(p))) return null;
  const n = params.map(Number);
  if (kind === 'pbkdf2' && n.length === 2 && n[0] > 0 && n[1] > 0) return { kind, iterations: n[0], keyLen: n[1] };
  if (kind === 'argon2' && n.length === 4 && n.every((v) => v > 0) && n[2] < 256) return { kind, time: n[0], memory: n[1], threads: n[2], keyLen: n[3] };
  if (kind === 'scrypt' && n.length === 4 && n.every((v) => v > 0) && (n[0] & (n[0] - 1)) === 0) return { kind, n: n[0], r: n[1], p: n[2], keyLen: n[3] };
  if (kind === 'bcrypt' && n.length === 1 && n[0] >= 4 && n[0] <= 31) return { kind, cost: n[0] };
  return null;
}

/** Resolves a PASSWORD_HASH_ALGO setting (a name or a full `kind$params` specification) to the specification stored with each hash. */
export function passwordAlgorithm(setting: string): string {
  let spec = setting;
  while (aliases[spec]) spec = aliases[spec];
  const hasher = spec.includes('$') ? parseSpec(spec) : null;
  const weak = hasher?.kind === 'pbkdf2' && (hasher.iterations < 10_000 || hasher.keyLen < 16);
  if (!hasher || weak) {
    throw new Error(`[security] PASSWORD_HASH_ALGO: unsupported value ${setting} (use ${Object.keys(aliases).join(', ')} or a specification such as pbkdf2$50000$50)`);
  }
  return spec;
}

export interface PasswordHash {
  passwd: string;
  salt: string;
  passwd_hash_algo: string;
}

export async function hashPassword(password: string, algo: string): Promise<PasswordHash> {
  const salt = randomBytes(16).toString('hex');
  const hasher = parseSpec(passwordAlgorithm(algo))!;
  return { passwd: await derive(hasher, password, salt), salt, passwd_hash_algo: algo };
}

/**
 * Checks a password against a stored hash of any supported algorithm and parameters. A hash this build cannot
 * compute (an unknown specification) never matches: the sign-in fails, nothing crashes.
 */
export async function verifyPassword(password: string, stored: PasswordHash): Promise<boolean> {
  if (!stored.passwd) return false;
  const hasher = parseSpec(stored.passwd_hash_algo || 'pbkdf2');
  if (!hasher) return false;
  if (hasher.kind === 'bcrypt') return bcrypt.compare(password, stored.passwd).catch(() => false);
  const candidate = Buffer.from(await derive(hasher, password, stored.salt), 'hex');
  const expected = Buffer.from(stored.passwd, 'hex');
  return candidate.length === expected.length && timingSafeEqual(candidate, expected);
}

/** Whether a stored hash was made with other parameters than the configured ones (and so is rehashed at the next sign-in). */
export function needsRehash(stored: PasswordHash, algo: string): boolean {
  return stored.passwd_hash_algo !== algo;
}

/** Hearth has always fed the salt to the key derivation as its text (Gitea hex-decodes its salts); kept so stored hashes verify. */
async function derive(hasher: Hasher, password: string, salt: string): Promise<string> {
  switch (hasher.kind) {
    case 'pbkdf2':
      return (await pbkdf2Async(password, salt, hasher.iterations, hasher.keyLen, 'sha256')).toString('hex');
    case 'scrypt':
      return (await scryptAsync(password, salt, hasher.keyLen, { N: hasher.n, r: hasher.r, p: hasher.p, maxmem: 256 * hasher.n * hasher.r + 1024 * 1024 })).toString('hex');
    case 'argon2':
      return (await hashRaw(password, {
        algorithm: 2, version: 1, salt: Buffer.from(salt), timeCost: hasher.time, memoryCost: hasher.memory, parallelism: hasher.threads, outputLen: hasher.keyLen,
      })).toString('hex');
    case 'bcrypt':
      return bcrypt.hash(password, hasher.cost);
  }
}
