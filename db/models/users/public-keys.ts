import type { Queryable, Tx } from '../../data-source.js';
import { selectPage } from '../../sql.js';
import { forbidden, invalid, isUniqueViolation, notFound } from '../../errors.js';
import { emit } from '../../events/emit.js';
import { isDeployKeyMaterial, isUserKeyMaterial, lockKeyMaterial, parseSshPublicKey } from './ssh-keys.js';
import { toUserRow, type UserRow } from './user-row.js';

/** A row of `public_key`: a user's SSH key. */
export interface PublicKeyRow {
  id: number;
  owner_id: number;
  name: string;
  fingerprint: string;
  content: string;
  mode: number;
  created: Date;
  updated: Date;
}

/** A key with its owner, for rendering. */
export interface OwnedPublicKey {
  key: PublicKeyRow;
  owner: UserRow;
}

/**
 * Gitea's AddPublicKey: the key must parse and meet the minimum size, its material must not be anyone's key or
 * any repository's deploy key already, and one user's key titles are distinct; refusals are 422s with Gitea's words.
 */
export async function addPublicKey(tx: Tx, owner: UserRow, doer: UserRow, input: { title: string; key: string }): Promise<PublicKeyRow> {
  const key = parseSshPublicKey(input.key);
  await lockKeyMaterial(tx, key.fingerprint);
  if ((await isUserKeyMaterial(tx, key.fingerprint)) || (await isDeployKeyMaterial(tx, key.fingerprint))) {
    throw invalid('Key content has been used as non-deploy key');
  }
  const [sameTitle] = await tx.query('SELECT 1 FROM public_key WHERE owner_id = $1 AND name = $2', [owner.id, input.title]);
  if (sameTitle) throw invalid('Key title has been used');
  let row: PublicKeyRow;
  try {
    [row] = await tx.query<PublicKeyRow>(
      'INSERT INTO public_key (owner_id, name, fingerprint, content) VALUES ($1, $2, $3, $4) RETURNING *',
      [owner.id, input.title, key.fingerprint, key.content],
    );
  } catch (error) {
    if (isUniqueViolation(error)) throw invalid('Key title has been used');
    throw error;
  }
  await emit(tx, { kind: 'user.public_key_added', doerId: doer.id, payload: { owner_id: owner.id, public_key_id: row.id, fingerprint: row.fingerprint } });
  return row;
}

export interface PublicKeyFilter {
  /** Only this user's keys; without it (a fingerprint search by /user/keys), anyone's. */
  ownerId?: number;
  fingerprint?: string;
}

/** Keys with their owners, oldest first. */
export async function listPublicKeys(
  db: Queryable,
  filter: PublicKeyFilter,
  page: { limit: number; offset: number },
): Promise<{ keys: OwnedPublicKey[]; total: number }> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.ownerId !== undefined) where.push(`k.owner_id = $${params.push(filter.ownerId)}`);
  if (filter.fingerprint !== undefined) where.push(`k.fingerprint = $${params.push(filter.fingerprint)}`);
  const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const { rows, total } = await selectPage<Record<string, unknown>>(db, {
    select: 'row_to_json(k) AS key, u.*', from: `public_key k JOIN "user" u ON u.id = k.owner_id ${clause}`, params, orderBy: 'k.id', page,
  });
  return { keys: rows.map(ownedKeyOf), total };
}

/** Any user's key by its id, as Gitea's GET /user/keys/{id} finds it. */
export async function getPublicKey(db: Queryable, id: number): Promise<OwnedPublicKey> {
  const [row] = await db.query<Record<string, unknown>>(
    'SELECT row_to_json(k) AS key, u.* FROM public_key k JOIN "user" u ON u.id = k.owner_id WHERE k.id = $1',
    [id],
  );
  if (!row) throw notFound(`public key ${id} does not exist`);
  return ownedKeyOf(row);
}

/**
 * Deletes a key on behalf of `actor`: their own key, or anyone's when `actor` is a site administrator
 * (Gitea's DeletePublicKey; the admin route passes the named user as `actor`, so another user's key is refused).
 */
export async function deletePublicKey(tx: Tx, actor: UserRow, doer: UserRow, id: number): Promise<void> {
  const [key] = await tx.query<PublicKeyRow>('SELECT * FROM public_key WHERE id = $1 FOR UPDATE', [id]);
  if (!key) throw notFound(`public key ${id} does not exist`);
  if (!actor.is_admin && actor.id !== key.owner_id) throw forbidden('You do not have access to this key');
  await tx.query('DELETE FROM public_key WHERE id = $1', [id]);
  await emit(tx, { kind: 'user.public_key_removed', doerId: doer.id, payload: { owner_id: key.owner_id, public_key_id: key.id, fingerprint: key.fingerprint } });
}

function ownedKeyOf(row: Record<string, unknown>): OwnedPublicKey {
  const { key: json, ...owner } = row;
  const raw = json as Record<string, unknown>;
  const key: PublicKeyRow = {
    id: Number(raw.id),
    owner_id: Number(raw.owner_id),
    name: String(raw.name),
    fingerprint: String(raw.fingerprint),
    content: String(raw.content),
    mode: Number(raw.mode),
    created: new Date(String(raw.created)),
    updated: new Date(String(raw.updated)),
  };
  return { key, owner: toUserRow(owner) };
}
