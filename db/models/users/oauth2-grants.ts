import { createHash, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import type { Queryable, Tx } from '../../data-source.js';
import { tokenMatches } from '../../crypto.js';
import { notFound, oauth2Error } from '../../errors.js';
import { normalizeScopes, scopeCategories } from '../../scopes.js';
import type { OAuth2AppRow } from './oauth2-apps.js';
import { toUserRow, type UserRow } from './user-row.js';


export type CodeChallengeMethod = '' | 'plain' | 'S256';

export interface GrantRow {
  id: number;
  user_id: number;
  application_id: number;
  counter: number;
  scope: string;
  nonce: string;
}

/** Gitea's authorization codes live ten minutes. */
const codeMinutes = 10;

const appColumns = 'a.id::int, a.uid::int, a.name, a.client_id::text, a.confidential_client, a.redirect_uris, a.created, a.updated';
const grantColumns = 'g.id::int, g.user_id::int, g.application_id::int, g.counter::int, g.scope, g.nonce';

/**
 * Gitea's ContainsRedirectURI: an exact (case-insensitive) match with a registered URI; for a public client an
 * `http` loopback address also matches whatever its port (RFC 8252 §7.3, native apps listen on a port of their own).
 */
export function containsRedirectUri(app: Pick<OAuth2AppRow, 'redirect_uris' | 'confidential_client'>, uri: string): boolean {
  const registered = app.redirect_uris.map((r) => r.toLowerCase());
  if (registered.includes(uri.toLowerCase())) return true;
  if (app.confidential_client || !URL.canParse(uri)) return false;
  const parsed = new URL(uri);
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (parsed.protocol !== 'http:' || parsed.port === '' || !isLoopback(host)) return false;
  parsed.port = '';
  return registered.includes(parsed.toString().toLowerCase());
}

function isLoopback(host: string): boolean {
  if (isIP(host) === 4) return host.startsWith('127.');
  return isIP(host) === 6 && (host === '::1' || /^0*:0*:0*:0*:0*:0*:0*:0*1$/.test(host));
}

/**
 * The scopes a grant gives an access token: the granular ones asked for (`read:repository` ...), or `all` when none
 * was asked for (an `openid profile` grant, say), as Gitea does for grants without granular scopes.
 */
export function accessScopeOfGrant(grantScope: string): string {
  const known = new Set(['all', ...scopeCategories.flatMap((c) => [`read:${c}`, `write:${c}`])]);
  const granular = grantScope.split(/\s+/).filter((s) => known.has(s));
  return granular.length ? normalizeScopes(granular) : 'all';
}

const hashCode = (code: string): string => createHash('sha256').update(code).digest('hex');

/**
 * Issues an authorization code for the authorize page once the user consented: the grant of this user and
 * application is made or updated with the asked scope and nonce, and a single-use code valid ten minutes is stored
 * as its hash. The redirect URI must be one the application registered; a public client must send a PKCE challenge.
 */
export async function issueAuthorizationCode(
  tx: Tx,
  input: { app: OAuth2AppRow; user: UserRow; redirectUri: string; scope: string; codeChallenge?: string; method?: CodeChallengeMethod; nonce?: string },
): Promise<{ code: string; grantId: number }> {
  const { app, user } = input;
  if (!containsRedirectUri(app, input.redirectUri)) throw oauth2Error('invalid_request', 'unregistered redirect_uri');
  const challenge = input.codeChallenge ?? '';
  const method: CodeChallengeMethod = challenge ? (input.method || 'plain') : '';
  if (!['', 'plain', 'S256'].includes(method)) throw oauth2Error('invalid_request', 'unsupported code challenge method');
  if (!app.confidential_client && !challenge) throw oauth2Error('invalid_request', 'PKCE is required for public clients');
  const [grant] = await tx.query<{ id: number }>(
    `INSERT INTO oauth2_grant (user_id, application_id, scope, nonce) VALUES ($1, $2, $3, $4)
     ON CONFLICT (user_id, application_id) DO UPDATE SET scope = EXCLUDED.scope, nonce = EXCLUDED.nonce, updated = now()
     RETURNING id::int`,
    [user.id, app.id, input.scope.trim(), input.nonce ?? ''],
  );
  const code = randomBytes(32).toString('base64url');
  await tx.query(
    `INSERT INTO oauth2_authorization_code (grant_id, code_hash, code_challenge, code_challenge_method, redirect_uri, valid_until)
     VALUES ($1, $2, $3, $4, $5, now() + make_interval(mins => $6))`,
    [grant.id, hashCode(code), challenge, method, input.redirectUri, codeMinutes],
  );
  return { code, grantId: grant.id };
}

/** The user's grant for the application, if they consented before. */
export async function findGrant(db: Queryable, userId: number, appId: number): Promise<GrantRow | null> {
  const [grant] = await db.query<GrantRow>(`SELECT ${grantColumns} FROM oauth2_grant g WHERE g.user_id = $1 AND g.application_id = $2`, [userId, appId]);
  return grant ?? null;
}

/**
 * Client authentication (basic or body): the application of `clientId`, with its secret checked when one is sent or
 * the client is confidential. Every refusal is the same `invalid_client`.
 */
export async function authenticateClient(db: Queryable, clientId: string, secret: string | undefined): Promise<OAuth2AppRow> {
  const refuse = oauth2Error('invalid_client', 'invalid client credentials', 401);
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(clientId)) throw refuse;
  const [row] = await db.query<OAuth2AppRow & { client_secret_hash: string; client_secret_salt: string }>(
    `SELECT ${appColumns}, a.client_secret_hash, a.client_secret_salt FROM oauth2_application a WHERE a.client_id = $1`,
    [clientId],
  );
  if (!row) throw refuse;
  if (secret !== undefined && secret !== '' ? !tokenMatches(secret, row.client_secret_salt, row.client_secret_hash) : row.confidential_client) throw refuse;
  const { client_secret_hash: _h, client_secret_salt: _s, ...app } = row;
  return app;
}

/**
 * Redeems a code for the client that asked for it: checks expiry, redirect URI and PKCE, deletes the code (single
 * use) and moves the grant's counter on, so the refresh token issued now is the grant's only valid one.
 */
export async function redeemAuthorizationCode(
  tx: Tx,
  app: OAuth2AppRow,
  input: { code: string; redirectUri: string; codeVerifier: string },
): Promise<GrantRow> {
  const [found] = await tx.query<{ id: number; code_challenge: string; code_challenge_method: string; redirect_uri: string; expired: boolean; application_id: number }>(
    `SELECT c.id::int, c.code_challenge, c.code_challenge_method, c.redirect_uri, c.valid_until < now() AS expired, g.application_id::int
     FROM oauth2_authorization_code c JOIN oauth2_grant g ON g.id = c.grant_id WHERE c.code_hash = $1 FOR UPDATE OF c`,
    [hashCode(input.code)],
  );
  if (!found || found.application_id !== app.id) throw oauth2Error('invalid_grant', 'client is not authorized');
  if (found.expired) throw oauth2Error('invalid_grant', 'code has expired');
  if (found.redirect_uri !== input.redirectUri) throw oauth2Error('invalid_grant', 'unexpected redirect URI');
  if (!verifiesChallenge(found.code_challenge_method, found.code_challenge, input.codeVerifier)) {
    throw oauth2Error('invalid_grant', 'failed PKCE code challenge');
  }
  const [grant] = await tx.query<GrantRow>(
    `WITH used AS (DELETE FROM oauth2_authorization_code WHERE id = $1 RETURNING grant_id)
     UPDATE oauth2_grant g SET counter = g.counter + 1, updated = now() FROM used WHERE g.id = used.grant_id RETURNING ${grantColumns}`,
    [found.id],
  );
  return grant;
}

function verifiesChallenge(method: string, challenge: string, verifier: string): boolean {
  if (method === '') return true;
  if (!/^[A-Za-z0-9\-._~]{43,128}$/.test(verifier)) return false;
  if (method === 'plain') return verifier === challenge;
  return createHash('sha256').update(verifier).digest('base64url') === challenge;
}

/**
 * A refresh token of the grant's current generation moves the counter on (the token rotates); one of an older
 * generation is a reuse: the grant is deleted with every token of it, and the caller answers invalid_grant after
 * the commit.
 */
export async function rotateRefreshToken(tx: Tx, app: OAuth2AppRow, grantId: number, counter: number): Promise<GrantRow | 'revoked' | 'unknown'> {
  const [grant] = await tx.query<GrantRow>(`SELECT ${grantColumns} FROM oauth2_grant g WHERE g.id = $1 AND g.application_id = $2 FOR UPDATE`, [grantId, app.id]);
  if (!grant) return 'unknown';
  if (grant.counter !== counter) {
    await tx.query('DELETE FROM oauth2_grant WHERE id = $1', [grant.id]);
    return 'revoked';
  }
  const [moved] = await tx.query<GrantRow>(`UPDATE oauth2_grant g SET counter = counter + 1, updated = now() WHERE g.id = $1 RETURNING ${grantColumns}`, [grant.id]);
  return moved;
}

/** The hot path of OAuth2 token authentication: the grant (still there, so not revoked) and its user, in one indexed query. */
export async function findGrantWithUser(db: Queryable, grantId: number): Promise<{ grant: GrantRow; user: UserRow; clientId: string } | null> {
  const [row] = await db.query<Record<string, unknown>>(
    `SELECT g.id AS grant_id, g.application_id AS grant_application_id, g.counter AS grant_counter, g.scope AS grant_scope,
       g.nonce AS grant_nonce, a.client_id::text AS grant_client_id, u.*
     FROM oauth2_grant g JOIN "user" u ON u.id = g.user_id JOIN oauth2_application a ON a.id = g.application_id WHERE g.id = $1`,
    [grantId],
  );
  if (!row) return null;
  const { grant_id, grant_application_id, grant_counter, grant_scope, grant_nonce, grant_client_id, ...user } = row;
  const userRow = toUserRow(user);
  return {
    grant: { id: Number(grant_id), user_id: userRow.id, application_id: Number(grant_application_id), counter: Number(grant_counter), scope: String(grant_scope), nonce: String(grant_nonce) },
    user: userRow,
    clientId: String(grant_client_id),
  };
}

/** Gitea's OIDC `groups`: the organizations the user belongs to, and `org:team` for each of their teams. */
export async function listOAuth2Groups(db: Queryable, userId: number): Promise<string[]> {
  const rows = await db.query<{ name: string }>(
    `SELECT name FROM (
       SELECT o.name, o.lower_name AS k1, '' AS k2 FROM org_user ou JOIN "user" o ON o.id = ou.org_id WHERE ou.uid = $1
       UNION ALL
       SELECT o.name || ':' || t.name, o.lower_name, t.lower_name FROM team_user tu JOIN team t ON t.id = tu.team_id JOIN "user" o ON o.id = t.org_id WHERE tu.uid = $1
     ) g ORDER BY k1, k2`,
    [userId],
  );
  return rows.map((r) => r.name);
}

export async function listGrants(db: Queryable, userId: number): Promise<Array<GrantRow & { application_name: string; created: Date }>> {
  return db.query(
    `SELECT ${grantColumns}, a.name AS application_name, g.created FROM oauth2_grant g JOIN oauth2_application a ON a.id = g.application_id
     WHERE g.user_id = $1 ORDER BY g.id`,
    [userId],
  );
}

/** Revokes one of the user's grants: its tokens stop working at their next use. */
export async function revokeGrant(tx: Tx, user: UserRow, grantId: number): Promise<void> {
  const rows = await tx.query('DELETE FROM oauth2_grant WHERE id = $1 AND user_id = $2 RETURNING id', [grantId, user.id]);
  if (rows.length === 0) throw notFound(`oauth2 grant ${grantId} does not exist`);
}
