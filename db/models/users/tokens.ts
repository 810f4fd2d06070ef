import type { Queryable, Tx } from '../../data-source.js';
import { selectPage } from '../../sql.js';
import { newAccessToken, tokenMatches } from '../../crypto.js';
import { badRequest, invalid, isUniqueViolation, notFound } from '../../errors.js';
import { normalizeScopes } from '../../scopes.js';
import { toUserRow, type UserRow } from './user-row.js';

export interface TokenRow {
  id: number;
  uid: number;
  name: string;
  token_last_eight: string;
  scope: string;
  created: Date;
}

/** Creates a token; the secret is returned once and only its salted hash is kept. */
export async function createToken(
  tx: Tx,
  user: UserRow,
  input: { name: string; scopes: string[] },
): Promise<{ row: TokenRow; token: string }> {
  const name = input.name.trim();
  if (!name) throw badRequest('token name is required');
  if (name.length > 255) throw badRequest('token name is too long');
  const scope = normalizeScopes(input.scopes);
  if (!scope) throw badRequest('access token must have a scope');
  const { token, salt, hash, lastEight } = newAccessToken();
  try {
    const [row] = await tx.query<TokenRow>(
      `INSERT INTO access_token (uid, name, token_hash, token_salt, token_last_eight, scope)
       VALUES ($1, $2, $3, $4, $5, $6)
       RETURNING id::int, uid::int, name, token_last_eight, scope, created`,
      [user.id, name, hash, salt, lastEight, scope],
    );
    return { row, token };
  } catch (error) {
    if (isUniqueViolation(error)) throw badRequest(`access token name has been used already`);
    throw error;
  }
}

export async function listTokens(
  tx: Queryable,
  uid: number,
  page: { limit: number; offset: number },
): Promise<{ tokens: TokenRow[]; total: number }> {
  const { rows, total } = await selectPage<TokenRow>(tx, {
    select: 'id::int, uid::int, name, token_last_eight, scope, created', from: 'access_token WHERE uid = $1', params: [uid], orderBy: 'id DESC', page,
  });
  return { tokens: rows, total };
}

/** Deletes by numeric id or by name, as Gitea does; a name shared by several tokens is refused. */
export async function deleteToken(tx: Tx, uid: number, idOrName: string): Promise<void> {
  const byId = /^\d+$/.test(idOrName)
    ? await tx.query<{ id: number }>('SELECT id::int FROM access_token WHERE uid = $1 AND id = $2', [uid, idOrName])
    : [];
  const matches = byId.length
    ? byId
    : await tx.query<{ id: number }>('SELECT id::int FROM access_token WHERE uid = $1 AND name = $2', [uid, idOrName]);
  if (matches.length === 0) throw notFound(`access token ${idOrName} does not exist`);
  if (matches.length > 1) throw invalid('multiple matches for token name');
  await tx.query('DELETE FROM access_token WHERE id = $1', [matches[0].id]);
}

/** The hot path of token authentication: one indexed query, then a constant-time hash comparison. */
export async function authenticateToken(
  tx: Queryable,
  token: string,
): Promise<{ user: UserRow; tokenId: number; scope: string } | null> {
  if (!/^[0-9a-f]{40}$/.test(token)) return null;
  const rows = await tx.query<Record<string, unknown>>(
    `SELECT t.id AS token_id, t.token_salt, t.token_hash, t.scope AS token_scope, u.*
     FROM access_token t JOIN "user" u ON u.id = t.uid WHERE t.token_last_eight = $1`,
    [token.slice(-8)],
  );
  for (const row of rows) {
    if (tokenMatches(token, String(row.token_salt), String(row.token_hash))) {
      const { token_id, token_salt: _s, token_hash: _h, token_scope, ...user } = row;
      return { user: toUserRow(user), tokenId: Number(token_id), scope: String(token_scope) };
    }
  }
  return null;
}
