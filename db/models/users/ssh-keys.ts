import { createHash, createPublicKey, type JsonWebKey } from 'node:crypto';
import type { Queryable, Tx } from '../../data-source.js';
import { decodeBase64Strict } from '../../encoding.js';
import { invalid } from '../../errors.js';
import type { AccessMode } from '../repos/repo-row.js';
import { userRowFromJson, type UserRow } from './user-row.js';

// OpenSSH public keys: parsing and checking them (for user keys and deploy keys alike), and the rule that one
// key material belongs either to users' keys or to deploy keys, never to both.

export interface SshPublicKey {
  type: string;
  /** `type base64` and the comment, if any: what is stored and shown. */
  content: string;
  /** OpenSSH's `SHA256:` fingerprint of the key blob. */
  fingerprint: string;
  bits: number;
}

/** Gitea's default [ssh.minimum_key_sizes]. */
const minimumBits: Record<string, number> = { ed25519: 256, ecdsa: 256, rsa: 3071 };
const curves: Record<string, { name: string; jwk: string; bytes: number; bits: number }> = {
  'ecdsa-sha2-nistp256': { name: 'nistp256', jwk: 'P-256', bytes: 32, bits: 256 },
  'ecdsa-sha2-nistp384': { name: 'nistp384', jwk: 'P-384', bytes: 48, bits: 384 },
  'ecdsa-sha2-nistp521': { name: 'nistp521', jwk: 'P-521', bytes: 66, bits: 521 },
};

/** Reads the length-prefixed strings of the SSH wire format. */
class WireReader {
  private offset = 0;
  constructor(private readonly bytes: Buffer) {}

  next(): Buffer {
    if (this.offset + 4 > this.bytes.length) throw new Error('truncated key data');
    const length = this.bytes.readUInt32BE(this.offset);
    const start = this.offset + 4;
    if (start + length > this.bytes.length) throw new Error('truncated key data');
    this.offset = start + length;
    return this.bytes.subarray(start, start + length);
  }

  done(): boolean {
    return this.offset === this.bytes.length;
  }
}

const b64url = (bytes: Buffer): string => bytes.toString('base64url');
const unsigned = (mpint: Buffer): Buffer => (mpint[0] === 0 ? mpint.subarray(1) : mpint);

/** The key as Node's crypto can check it, with its kind and size; throws on anything that is not a sound key. */
function checkBlob(type: string, blob: Buffer): { kind: string; bits: number } {
  const wire = new WireReader(blob);
  if (wire.next().toString('latin1') !== type) throw new Error('key type and content do not match');
  let jwk: JsonWebKey;
  let kind: string;
  let bits: number;
  if (type === 'ssh-ed25519') {
    const point = wire.next();
    if (point.length !== 32) throw new Error('an ed25519 key is 32 bytes');
    jwk = { kty: 'OKP', crv: 'Ed25519', x: b64url(point) };
    [kind, bits] = ['ed25519', 256];
  } else if (type === 'ssh-rsa') {
    const e = unsigned(wire.next());
    const n = unsigned(wire.next());
    jwk = { kty: 'RSA', e: b64url(e), n: b64url(n) };
    [kind, bits] = ['rsa', n.length * 8 - Math.clz32(n[0] ?? 0) + 24];
  } else if (curves[type]) {
    const curve = curves[type];
    if (wire.next().toString('latin1') !== curve.name) throw new Error('the curve does not match the key type');
    const point = wire.next();
    if (point.length !== 1 + 2 * curve.bytes || point[0] !== 4) throw new Error('the curve point is not an uncompressed point');
    jwk = {
      kty: 'EC', crv: curve.jwk,
      x: b64url(point.subarray(1, 1 + curve.bytes)), y: b64url(point.subarray(1 + curve.bytes)),
    };
    [kind, bits] = ['ecdsa', curve.bits];
  } else {
    throw new Error(`unsupported key type: ${type}`);
  }
  if (!wire.done()) throw new Error('trailing data after the key');
  createPublicKey({ key: jwk, format: 'jwk' });
  return { kind, bits };
}

/**
 * Parses an OpenSSH public key line (`type base64 [comment]`; ed25519, RSA or ECDSA) and checks it the way
 * Gitea does: the blob must decode, name the same type, be a valid key and meet the minimum size.
 */
export function parseSshPublicKey(text: string): SshPublicKey {
  const line = text.replace(/\r?\n/g, '').trim();
  const [type = '', data = '', ...comment] = line.split(/\s+/);
  try {
    const blob = data ? decodeBase64Strict(data) : null;
    if (!blob) throw new Error('the key data is not base64');
    const { kind, bits } = checkBlob(type, blob);
    if (bits < minimumBits[kind]) throw new Error(`key length is not enough: got ${bits}, needs ${minimumBits[kind]}`);
    const fingerprint = fingerprintOf(blob);
    return { type, content: [type, data, ...comment].join(' '), fingerprint, bits };
  } catch (error) {
    throw invalid(`Invalid key content: ${(error as Error).message}`);
  }
}

/**
 * Serializes every add of one key material, whichever table it goes to, so that the checks for a key already in
 * use and the insert that follows them cannot interleave with another add of the same key.
 */
export async function lockKeyMaterial(tx: Tx, fingerprint: string): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(7302010, hashtext($1))', [fingerprint]);
}

/** Whether the key material is some user's SSH key (Gitea's "non-deploy key"). */
export async function isUserKeyMaterial(db: Queryable, fingerprint: string): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM public_key WHERE fingerprint = $1', [fingerprint]);
  return rows.length > 0;
}

/** Whether the key material is a deploy key of some repository. */
export async function isDeployKeyMaterial(db: Queryable, fingerprint: string): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM deploy_key WHERE fingerprint = $1 LIMIT 1', [fingerprint]);
  return rows.length > 0;
}

/** OpenSSH's `SHA256:` fingerprint of a key blob (the wire form of the public key). */
export function fingerprintOf(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/** A key material as the SSH server finds it: a user's key, or deploy keys (one row per repository it was added to). */
export type KeyHolder =
  | { kind: 'user'; keyId: number; user: UserRow }
  | { kind: 'deploy'; keyId: number; deployKeys: { repoId: number; mode: AccessMode }[] };

/** The holder of a key material, by fingerprint, in one statement over both indexed tables; null for an unknown key. */
export async function findKeyHolder(db: Queryable, fingerprint: string): Promise<KeyHolder | null> {
  const rows = await db.query<{ kind: 'user' | 'deploy'; key_id: string; repo_id: string | null; mode: number | null; owner: Record<string, unknown> | null }>(
    `SELECT 'user' AS kind, k.id AS key_id, NULL::bigint AS repo_id, NULL::smallint AS mode, row_to_json(u) AS owner
       FROM public_key k JOIN "user" u ON u.id = k.owner_id WHERE k.fingerprint = $1
     UNION ALL
     SELECT 'deploy', d.key_id, d.repo_id, d.mode, NULL FROM deploy_key d WHERE d.fingerprint = $1`,
    [fingerprint],
  );
  const user = rows.find((row) => row.kind === 'user');
  if (user) return { kind: 'user', keyId: Number(user.key_id), user: userRowFromJson(user.owner!) };
  if (rows.length === 0) return null;
  return { kind: 'deploy', keyId: Number(rows[0].key_id), deployKeys: rows.map((row) => ({ repoId: Number(row.repo_id), mode: Number(row.mode) as AccessMode })) };
}
