import { createHash, createPublicKey, type JsonWebKey } from 'node:crypto';
import type { Queryable, Tx } from '../data-source.js';
import { invalid, isUniqueViolation, notFound } from '../errors.js';
import { emit } from '../events.js';
import { accessModes, type RepoRow } from './repo-row.js';
import type { UserRow } from './user-row.js';

export interface DeployKeyRow {
  id: number;
  key_id: number;
  repo_id: number;
  name: string;
  content: string;
  fingerprint: string;
  mode: number;
  created: Date;
  updated: Date;
}

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
    if (!data || !/^[A-Za-z0-9+/]+={0,2}$/.test(data) || data.length % 4 !== 0) throw new Error('the key data is not base64');
    const blob = Buffer.from(data, 'base64');
    const { kind, bits } = checkBlob(type, blob);
    if (bits < minimumBits[kind]) throw new Error(`key length is not enough: got ${bits}, needs ${minimumBits[kind]}`);
    const fingerprint = `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
    return { type, content: [type, data, ...comment].join(' '), fingerprint, bits };
  } catch (error) {
    throw invalid(`Invalid key content: ${(error as Error).message}`);
  }
}

export interface NewDeployKey {
  title: string;
  key: string;
  read_only?: boolean;
}

/** Adds a deploy key; the same key twice, or two keys with one title, are refused like Gitea does (422). */
export async function addDeployKey(tx: Tx, repo: RepoRow, doer: UserRow, input: NewDeployKey): Promise<DeployKeyRow> {
  const key = parseSshPublicKey(input.key);
  const [sameTitle] = await tx.query('SELECT 1 FROM deploy_key WHERE repo_id = $1 AND name = $2', [repo.id, input.title]);
  if (sameTitle) throw invalid('A key with the same name already exists');
  const [sameKey] = await tx.query('SELECT 1 FROM deploy_key WHERE repo_id = $1 AND fingerprint = $2', [repo.id, key.fingerprint]);
  if (sameKey) throw invalid('This key has already been added to this repository');
  let row: DeployKeyRow;
  try {
    [row] = await tx.query<DeployKeyRow>(
      `INSERT INTO deploy_key (key_id, repo_id, name, content, fingerprint, mode)
       VALUES (COALESCE((SELECT k.key_id FROM deploy_key k WHERE k.fingerprint = $4 LIMIT 1), nextval('deploy_key_key_id_seq')), $1, $2, $3, $4, $5)
       RETURNING *`,
      [repo.id, input.title, key.content, key.fingerprint, input.read_only ? accessModes.read : accessModes.write],
    );
  } catch (error) {
    if (isUniqueViolation(error)) throw invalid('This key has already been added to this repository');
    throw error;
  }
  await emit(tx, { kind: 'repository.deploy_key_added', repoId: repo.id, doerId: doer.id, payload: { id: row.id, fingerprint: row.fingerprint } });
  return row;
}

export async function listDeployKeys(
  db: Queryable,
  repoId: number,
  filter: { keyId?: number; fingerprint?: string },
  page: { limit: number; offset: number },
): Promise<{ keys: DeployKeyRow[]; total: number }> {
  const where = ['repo_id = $1'];
  const params: unknown[] = [repoId];
  if (filter.keyId) where.push(`key_id = $${params.push(filter.keyId)}`);
  if (filter.fingerprint) where.push(`fingerprint = $${params.push(filter.fingerprint)}`);
  const clause = where.join(' AND ');
  const [{ count }] = await db.query<{ count: number }>(`SELECT count(*) AS count FROM deploy_key WHERE ${clause}`, params);
  const keys = await db.query<DeployKeyRow>(
    `SELECT * FROM deploy_key WHERE ${clause} ORDER BY id LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, page.limit, page.offset],
  );
  return { keys, total: count };
}

export async function getDeployKey(db: Queryable, repoId: number, id: number): Promise<DeployKeyRow> {
  const [row] = await db.query<DeployKeyRow>('SELECT * FROM deploy_key WHERE repo_id = $1 AND id = $2', [repoId, id]);
  if (!row) throw notFound(`deploy key ${id} does not exist`);
  return row;
}

export async function deleteDeployKey(tx: Tx, repo: RepoRow, doer: UserRow, id: number): Promise<void> {
  const [row] = await tx.query<DeployKeyRow>('DELETE FROM deploy_key WHERE repo_id = $1 AND id = $2 RETURNING *', [repo.id, id]);
  if (!row) throw notFound(`deploy key ${id} does not exist`);
  await emit(tx, { kind: 'repository.deploy_key_removed', repoId: repo.id, doerId: doer.id, payload: { id: row.id, fingerprint: row.fingerprint } });
}
