import { createHash } from 'node:crypto';
import * as openpgp from 'openpgp';
import type { Queryable, Tx } from '../../data-source.js';
import { selectPage } from '../../sql.js';
import { forbidden, invalid, isUniqueViolation, notFound } from '../../errors.js';
import { emit } from '../../events/emit.js';
import { listEmails } from './emails.js';
import type { UserRow } from './user-row.js';

/** A row of `gpg_key`: a primary key (parent_id null) or one of its subkeys. */
export interface GpgKeyRow {
  id: number;
  owner_id: number;
  parent_id: number | null;
  key_id: string;
  primary_key_id: string;
  content: string;
  emails: GpgKeyEmail[];
  verified: boolean;
  can_sign: boolean;
  can_encrypt_comms: boolean;
  can_encrypt_storage: boolean;
  can_certify: boolean;
  created: Date;
  expires: Date | null;
  added: Date;
}

export interface GpgKeyEmail {
  email: string;
  verified: boolean;
}

/** A primary key with its subkeys: what the API shows. */
export interface GpgKeyView {
  key: GpgKeyRow;
  subkeys: GpgKeyRow[];
}

const columns = `id, owner_id, parent_id, key_id, primary_key_id, content, emails, verified, can_sign, can_encrypt_comms,
  can_encrypt_storage, can_certify, created, expires, added`;

const signingAlgorithms = new Set(['rsaEncryptSign', 'rsaSign', 'dsa', 'ecdsa', 'eddsaLegacy', 'ed25519', 'ed448', 'pqc_mldsa_ed25519']);
const encryptionAlgorithms = new Set(['rsaEncryptSign', 'rsaEncrypt', 'elgamal', 'ecdh', 'x25519', 'x448', 'pqc_mlkem_x25519']);

function rfc1123z(date: Date): string {
  const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${days[date.getUTCDay()]}, ${two(date.getUTCDate())} ${months[date.getUTCMonth()]} ${date.getUTCFullYear()} ` +
    `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} +0000`;
}

/**
 * Gitea's VerificationToken: a SHA-256 over the minute (shifted by `minutes`), the user's creation time, name,
 * address and id. The current token is the one for the next minute; the previous one stays good for a minute.
 */
export function verificationToken(user: UserRow, minutes: number, now: Date = new Date()): string {
  const minute = new Date(Math.floor(now.getTime() / 60_000) * 60_000 + minutes * 60_000);
  const created = new Date(Math.floor(user.created.getTime() / 1000) * 1000);
  return createHash('sha256').update(`${rfc1123z(minute)}:${rfc1123z(created)}:${user.name}:${user.email}:${user.id}`).digest('hex');
}

/** Gitea's PaddedKeyID form: 16 upper-case hex digits. */
function normalizeKeyId(keyId: string): string {
  return keyId.trim().toUpperCase().padStart(16, '0');
}

async function readArmoredKeys(armored: string): Promise<openpgp.PublicKey[]> {
  try {
    const keys = await openpgp.readKeys({ armoredKeys: armored });
    if (keys.length === 0) throw new Error('no key found');
    return keys.map((key) => (key.isPrivate() ? key.toPublic() : key));
  } catch (error) {
    throw invalid(`Failed to parse GPG key: ${(error as Error).message}`);
  }
}

/** Whether `signature` (armored, detached) signs one of the token texts with `keys`; answers the key that signed, if any. */
async function signerOf(keys: openpgp.PublicKey[], tokens: string[], armoredSignature: string): Promise<openpgp.PublicKey | null> {
  let signature: openpgp.Signature;
  try {
    signature = await openpgp.readSignature({ armoredSignature });
  } catch {
    return null;
  }
  for (const text of tokens.flatMap((token) => [token, `${token}\n`, `${token}\r\n`, `${token}\n\n`])) {
    try {
      const message = await openpgp.createMessage({ binary: Buffer.from(text) });
      const { signatures } = await openpgp.verify({ message, signature, verificationKeys: keys, expectSigned: true });
      const keyId = signatures[0]?.keyID;
      const signer = keyId ? keys.find((key) => key.getKeys(keyId).length > 0) : undefined;
      if (signer) return signer;
    } catch {
      // not this text, or not these keys
    }
  }
  return null;
}

const packetBase64 = (packet: openpgp.AnyKeyPacket): string => {
  const list = new openpgp.PacketList<openpgp.AnyKeyPacket>();
  list.push(packet);
  return Buffer.from(list.write()).toString('base64');
};

interface ParsedKey {
  keyId: string;
  content: string;
  created: Date;
  algorithm: string;
}

function parsedOf(key: openpgp.PublicKey | openpgp.Subkey): ParsedKey {
  return {
    keyId: normalizeKeyId(key.getKeyID().toHex()),
    content: packetBase64(key.keyPacket),
    created: key.getCreationTime(),
    algorithm: key.getAlgorithmInfo().algorithm,
  };
}

async function insertKeyRow(
  tx: Tx,
  owner: UserRow,
  parent: { id: number; keyId: string } | null,
  key: ParsedKey,
  extra: { armored: string; emails: GpgKeyEmail[]; verified: boolean; expires: Date | null },
): Promise<GpgKeyRow> {
  const canSign = signingAlgorithms.has(key.algorithm);
  const canEncrypt = encryptionAlgorithms.has(key.algorithm);
  const [row] = await tx.query<GpgKeyRow>(
    `INSERT INTO gpg_key (owner_id, parent_id, key_id, primary_key_id, content, armored, emails, verified,
       can_sign, can_encrypt_comms, can_encrypt_storage, can_certify, created, expires)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10, $9, $11, $12) RETURNING ${columns}`,
    [owner.id, parent?.id ?? null, key.keyId, parent?.keyId ?? '', key.content, extra.armored, JSON.stringify(extra.emails),
      extra.verified, canSign, canEncrypt, key.created, extra.expires],
  );
  return row;
}

/**
 * Gitea's AddGPGKey. The armored text may hold several keys; each must have an id no stored key has. Without a
 * signature, a key must carry at least one of the owner's activated addresses (else 404 naming the token to sign);
 * with a signature over the verification token (current or previous), the key that made it is added as verified.
 */
export async function addGpgKeys(tx: Tx, owner: UserRow, armored: string, signature: string | undefined): Promise<GpgKeyView[]> {
  let keys = await readArmoredKeys(armored);
  const token = verificationToken(owner, 1);
  let verified = false;
  if (signature) {
    const signer = await signerOf(keys, [token, verificationToken(owner, 0)], signature);
    if (!signer) {
      throw invalid(`The provided GPG key, signature and token do not match or token is out of date. Provide a valid signature for the token: ${token}`);
    }
    keys = [signer];
    verified = true;
  }
  keys = keys.filter((key, index) => keys.findIndex((other) => other.getKeyID().equals(key.getKeyID())) === index);

  const activated = (await listEmails(tx, owner.id)).filter((email) => email.is_activated);
  const added: GpgKeyView[] = [];
  for (const key of keys) {
    const primary = parsedOf(key);
    const [taken] = await tx.query('SELECT 1 FROM gpg_key WHERE key_id = $1', [primary.keyId]);
    if (taken) throw invalid('A key with the same id already exists');
    const emails: GpgKeyEmail[] = [];
    for (const user of key.users) {
      if (!user.userID || user.revocationSignatures.length > 0) continue;
      const address = user.userID.email.trim().toLowerCase();
      const match = activated.find((email) => email.email.toLowerCase() === address);
      if (match && !emails.some((email) => email.email === match.email)) emails.push({ email: match.email, verified: match.is_activated });
    }
    if (!verified && emails.length === 0) {
      throw notFound(undefined, `None of the emails attached to the GPG key could be found. It may still be added if you provide a valid signature for the token: ${token}`);
    }
    const expiry = await key.getExpirationTime().catch(() => null);
    const expires = expiry instanceof Date ? expiry : null;
    let row: GpgKeyRow;
    try {
      row = await insertKeyRow(tx, owner, null, primary, { armored: key.armor(), emails, verified, expires });
    } catch (error) {
      if (isUniqueViolation(error)) throw invalid('A key with the same id already exists');
      throw error;
    }
    const subkeys: GpgKeyRow[] = [];
    for (const subkey of key.getSubkeys()) {
      subkeys.push(await insertKeyRow(tx, owner, { id: row.id, keyId: row.key_id }, parsedOf(subkey), { armored: '', emails: [], verified, expires }));
    }
    await emit(tx, { kind: 'user.gpg_key_added', doerId: owner.id, payload: { owner_id: owner.id, gpg_key_id: row.id, key_id: row.key_id, verified } });
    added.push({ key: row, subkeys });
  }
  return added;
}

/**
 * Gitea's VerifyGPGKey: a signature over the verification token (current or previous) by the owner's key `keyId`
 * (or one of its subkeys) marks that key verified. A key the user does not have answers 404; a bad signature 422.
 */
export async function verifyGpgKey(tx: Tx, owner: UserRow, keyId: string, signature: string): Promise<GpgKeyView> {
  const wanted = normalizeKeyId(keyId);
  const [row] = await tx.query<{ id: number; armored: string }>(
    `SELECT p.id, p.armored FROM gpg_key k JOIN gpg_key p ON p.id = COALESCE(k.parent_id, k.id)
     WHERE k.owner_id = $1 AND k.key_id = $2 FOR UPDATE OF p`,
    [owner.id, wanted],
  );
  if (!row) throw notFound(`GPG key ${keyId} does not exist`);
  const keys = await readArmoredKeys(row.armored);
  const token = verificationToken(owner, 1);
  const signer = await signerOf(keys, [token, verificationToken(owner, 0)], signature);
  if (!signer) {
    throw invalid(`The provided GPG key, signature and token do not match or token is out of date. Provide a valid signature for the token: ${token}`);
  }
  await tx.query('UPDATE gpg_key SET verified = true WHERE id = $1 OR parent_id = $1', [row.id]);
  await emit(tx, { kind: 'user.gpg_key_verified', doerId: owner.id, payload: { owner_id: owner.id, gpg_key_id: row.id, key_id: wanted } });
  return getGpgKey(tx, owner.id, row.id);
}

async function withSubkeys(db: Queryable, keys: GpgKeyRow[]): Promise<GpgKeyView[]> {
  if (keys.length === 0) return [];
  const subkeys = await db.query<GpgKeyRow>(`SELECT ${columns} FROM gpg_key WHERE parent_id = ANY($1::bigint[]) ORDER BY id`, [keys.map((key) => key.id)]);
  return keys.map((key) => ({ key, subkeys: subkeys.filter((subkey) => subkey.parent_id === key.id) }));
}

/** The user's primary keys with their subkeys, oldest first. */
export async function listGpgKeys(db: Queryable, ownerId: number, page: { limit: number; offset: number }): Promise<{ keys: GpgKeyView[]; total: number }> {
  const { rows, total } = await selectPage<GpgKeyRow>(db, {
    select: columns, from: 'gpg_key WHERE owner_id = $1 AND parent_id IS NULL', params: [ownerId], orderBy: 'id', page,
  });
  return { keys: await withSubkeys(db, rows), total };
}

/** One of the user's primary keys; anyone else's answers 404 like a missing one. */
export async function getGpgKey(db: Queryable, ownerId: number, id: number): Promise<GpgKeyView> {
  const [key] = await db.query<GpgKeyRow>(`SELECT ${columns} FROM gpg_key WHERE id = $1 AND owner_id = $2 AND parent_id IS NULL`, [id, ownerId]);
  if (!key) throw notFound(`GPG key ${id} does not exist`);
  return (await withSubkeys(db, [key]))[0];
}

/** Deletes a primary key with its subkeys: the owner's own, or anyone's for a site administrator (else 403). */
export async function deleteGpgKey(tx: Tx, doer: UserRow, id: number): Promise<void> {
  const [key] = await tx.query<{ owner_id: number; key_id: string }>('SELECT owner_id, key_id FROM gpg_key WHERE id = $1 AND parent_id IS NULL FOR UPDATE', [id]);
  if (!key) throw notFound(`GPG key ${id} does not exist`);
  if (!doer.is_admin && doer.id !== key.owner_id) throw forbidden('You do not have access to this key');
  await tx.query('DELETE FROM gpg_key WHERE id = $1', [id]);
  await emit(tx, { kind: 'user.gpg_key_removed', doerId: doer.id, payload: { owner_id: key.owner_id, gpg_key_id: id, key_id: key.key_id } });
}
