import { randomBytes, randomUUID } from 'node:crypto';
import type { Queryable, Tx } from '../../data-source.js';
import { selectPage } from '../../sql.js';
import { hashToken } from '../../crypto.js';
import { invalid, notFound } from '../../errors.js';
import { emit } from '../../events/emit.js';
import type { UserRow } from './user-row.js';

/** A row of `oauth2_application`, without the stored secret hash. */
export interface OAuth2AppRow {
  id: number;
  uid: number;
  name: string;
  client_id: string;
  confidential_client: boolean;
  redirect_uris: string[];
  created: Date;
  updated: Date;
}

export interface OAuth2AppInput {
  name: string;
  redirect_uris: string[];
  confidential_client: boolean;
}

const columns = 'id, uid, name, client_id::text, confidential_client, redirect_uris, created, updated';

/** RFC 4648 base32, lower case, unpadded: how Gitea writes client secrets after their `gto_` prefix. */
function base32(bytes: Buffer): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}

/** A new client secret and what is stored of it: like access tokens, only a salted SHA-256 is kept. */
function newClientSecret(): { secret: string; salt: string; hash: string } {
  const secret = `gto_${base32(randomBytes(32))}`;
  const salt = randomBytes(10).toString('hex');
  return { secret, salt, hash: hashToken(secret, salt) };
}

function checkInput(input: OAuth2AppInput): void {
  if (!input.name.trim()) throw invalid('[name]: Required');
  if (input.redirect_uris.length === 0) throw invalid('[redirect_uris]: Required');
  for (const uri of input.redirect_uris) {
    if (!URL.canParse(uri)) throw invalid(`redirect URI is not a URL: ${uri}`);
  }
}

/** Registers an application for the user; the client secret is returned this once. */
export async function createOAuth2App(tx: Tx, owner: UserRow, input: OAuth2AppInput): Promise<{ app: OAuth2AppRow; secret: string }> {
  checkInput(input);
  const { secret, salt, hash } = newClientSecret();
  const [app] = await tx.query<OAuth2AppRow>(
    `INSERT INTO oauth2_application (uid, name, client_id, client_secret_hash, client_secret_salt, confidential_client, redirect_uris)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${columns}`,
    [owner.id, input.name.trim(), randomUUID(), hash, salt, input.confidential_client, input.redirect_uris],
  );
  await emit(tx, { kind: 'user.oauth2_application_created', doerId: owner.id, payload: { owner_id: owner.id, application_id: app.id, client_id: app.client_id } });
  return { app, secret };
}

export async function listOAuth2Apps(db: Queryable, ownerId: number, page: { limit: number; offset: number }): Promise<{ apps: OAuth2AppRow[]; total: number }> {
  const { rows, total } = await selectPage<OAuth2AppRow>(db, { select: columns, from: 'oauth2_application WHERE uid = $1', params: [ownerId], orderBy: 'id', page });
  return { apps: rows, total };
}

/** One of the user's applications; another user's answers 404 like a missing one. */
export async function getOAuth2App(db: Queryable, ownerId: number, id: number): Promise<OAuth2AppRow> {
  const [app] = await db.query<OAuth2AppRow>(`SELECT ${columns} FROM oauth2_application WHERE id = $1 AND uid = $2`, [id, ownerId]);
  if (!app) throw notFound(`oauth2 application ${id} does not exist`);
  return app;
}

/** Gitea's UpdateOAuth2Application: name, redirect URIs and confidentiality are replaced, and a new secret is issued. */
export async function updateOAuth2App(tx: Tx, owner: UserRow, id: number, input: OAuth2AppInput): Promise<{ app: OAuth2AppRow; secret: string }> {
  checkInput(input);
  const { secret, salt, hash } = newClientSecret();
  const [app] = await tx.query<OAuth2AppRow>(
    `UPDATE oauth2_application SET name = $3, redirect_uris = $4, confidential_client = $5,
       client_secret_hash = $6, client_secret_salt = $7, updated = now()
     WHERE id = $1 AND uid = $2 RETURNING ${columns}`,
    [id, owner.id, input.name.trim(), input.redirect_uris, input.confidential_client, hash, salt],
  );
  if (!app) throw notFound(`oauth2 application ${id} does not exist`);
  await emit(tx, { kind: 'user.oauth2_application_updated', doerId: owner.id, payload: { owner_id: owner.id, application_id: app.id, client_id: app.client_id } });
  return { app, secret };
}

export async function deleteOAuth2App(tx: Tx, owner: UserRow, id: number): Promise<void> {
  const [app] = await tx.query<{ client_id: string }>('DELETE FROM oauth2_application WHERE id = $1 AND uid = $2 RETURNING client_id::text', [id, owner.id]);
  if (!app) throw notFound(`oauth2 application ${id} does not exist`);
  await emit(tx, { kind: 'user.oauth2_application_deleted', doerId: owner.id, payload: { owner_id: owner.id, application_id: id, client_id: app.client_id } });
}

/** The application of a client id, for the authorize page; null for an unknown or malformed one. */
export async function findOAuth2AppByClientId(db: Queryable, clientId: string): Promise<OAuth2AppRow | null> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(clientId)) return null;
  const [app] = await db.query<OAuth2AppRow>(`SELECT ${columns} FROM oauth2_application WHERE client_id = $1`, [clientId]);
  return app ?? null;
}
