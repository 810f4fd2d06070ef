import express, { Router, type NextFunction, type Request, type Response } from 'express';
import type { JWTPayload } from 'jose';
import { inTx } from '../../db/data-source.js';
import { HttpError, oauth2Error } from '../../db/errors.js';
import {
  accessScopeOfGrant, authenticateClient, findGrantWithUser, listOAuth2Groups, redeemAuthorizationCode, rotateRefreshToken, type GrantRow,
} from '../../db/models/users/oauth2-grants.js';
import type { OAuth2AppRow } from '../../db/models/users/oauth2-apps.js';
import type { UserRow } from '../../db/models/users/user-row.js';
import { signingAlgorithm } from '../../db/oauth2/signing-key.js';
import { accessTokenSeconds, issuerOf, looksLikeJwt, refreshTokenSeconds, signIdToken, signToken, verifyToken } from '../../db/oauth2/tokens.js';
import { avatarUrl } from '../render/user.js';
import type { Deps } from '../deps.js';

/**
 * Hearth as an OAuth2 and OpenID Connect provider, at Gitea's paths: the token endpoint (authorization_code and
 * refresh_token grants), discovery, the JWKS, userinfo and introspection. The authorize and consent pages belong
 * to the web sign-in. Every refusal is OAuth2's `{"error", "error_description"}`.
 */
export function oauth2Provider(deps: Deps): Router {
  const router = Router();
  const issuer = issuerOf(deps.config.rootUrl);
  const form = express.urlencoded({ extended: false, limit: '64kb' });
  const json = express.json({ limit: '64kb' });

  router.get('/.well-known/openid-configuration', (_req, res) => {
    res.json(discovery(deps.config.rootUrl, issuer));
  });
  router.get('/login/oauth/keys', async (_req, res) => {
    res.json({ keys: [(await deps.oauth2Keys.get()).publicJwk] });
  });
  router.post('/login/oauth/access_token', form, json, async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json(await accessToken(deps, issuer, req));
  });
  router.all('/login/oauth/userinfo', form, json, async (req, res) => {
    const bearer = /^bearer\s+(\S+)$/i.exec(req.get('authorization')?.trim() ?? '')?.[1];
    const session = bearer ? await sessionOf(deps, issuer, bearer) : null;
    if (!session) {
      res.setHeader('WWW-Authenticate', 'Bearer error="invalid_token"');
      throw oauth2Error('invalid_token', 'the access token is missing, expired or revoked', 401);
    }
    const { user } = session;
    res.json({
      sub: String(user.id), name: user.full_name || user.name, preferred_username: user.name, email: user.email,
      picture: avatarUrl(user, deps.config.rootUrl), groups: await listOAuth2Groups(deps.db, user.id),
    });
  });
  router.post('/login/oauth/introspect', form, json, async (req, res) => {
    const basic = basicCredentials(req);
    if (!basic) {
      res.setHeader('WWW-Authenticate', 'Basic realm="introspect"');
      throw oauth2Error('invalid_client', 'client authentication is required', 401);
    }
    const app = await authenticateClient(deps.db, basic.id, basic.secret);
    const token = stringField(req.body, 'token');
    const claims = token && looksLikeJwt(token) ? await verifyToken(deps.oauth2Keys, issuer, token, 'access') : null;
    const session = claims ? await findGrantWithUser(deps.db, claims.gnt) : null;
    if (!claims || !session || session.clientId !== app.client_id) {
      res.json({ active: false });
      return;
    }
    res.json({
      active: true, scope: session.grant.scope, username: session.user.name, client_id: session.clientId,
      iss: claims.iss, sub: claims.sub, aud: claims.aud, exp: claims.exp, iat: claims.iat,
    });
  });
  router.use(oauth2Errors(deps));
  return router;
}

function discovery(rootUrl: string, issuer: string): Record<string, unknown> {
  return {
    issuer,
    authorization_endpoint: `${rootUrl}login/oauth/authorize`,
    token_endpoint: `${rootUrl}login/oauth/access_token`,
    jwks_uri: `${rootUrl}login/oauth/keys`,
    userinfo_endpoint: `${rootUrl}login/oauth/userinfo`,
    introspection_endpoint: `${rootUrl}login/oauth/introspect`,
    response_types_supported: ['code', 'id_token'],
    id_token_signing_alg_values_supported: [signingAlgorithm],
    subject_types_supported: ['public'],
    scopes_supported: ['openid', 'profile', 'email', 'groups'],
    claims_supported: ['aud', 'exp', 'iat', 'iss', 'sub', 'name', 'preferred_username', 'profile', 'picture', 'website', 'locale', 'updated_at', 'email', 'email_verified', 'groups'],
    code_challenge_methods_supported: ['plain', 'S256'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
  };
}

async function accessToken(deps: Deps, issuer: string, req: Request): Promise<Record<string, unknown>> {
  const body: unknown = req.body;
  const grantType = stringField(body, 'grant_type');
  if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
    throw oauth2Error('unsupported_grant_type', grantType ? `grant type ${grantType} is not supported` : 'grant_type is required');
  }
  const app = await clientOf(deps, req);
  if (grantType === 'authorization_code') {
    const code = stringField(body, 'code');
    if (!code) throw oauth2Error('invalid_request', 'code is required');
    const grant = await inTx(deps, (tx) => redeemAuthorizationCode(tx, app, {
      code, redirectUri: stringField(body, 'redirect_uri') ?? '', codeVerifier: stringField(body, 'code_verifier') ?? '',
    }));
    return tokenResponse(deps, issuer, app, grant);
  }
  const refresh = stringField(body, 'refresh_token') ?? '';
  const claims = looksLikeJwt(refresh) ? await verifyToken(deps.oauth2Keys, issuer, refresh, 'refresh') : null;
  if (!claims) throw oauth2Error('invalid_grant', 'the refresh token is invalid or expired');
  const rotated = await inTx(deps, (tx) => rotateRefreshToken(tx, app, claims.gnt, claims.cnt!));
  if (rotated === 'revoked') throw oauth2Error('invalid_grant', 'the refresh token was used already; the grant is revoked');
  if (rotated === 'unknown') throw oauth2Error('invalid_grant', 'the grant does not exist or was revoked');
  return tokenResponse(deps, issuer, app, rotated);
}

/** Client authentication by HTTP basic (RFC 6749 §2.3.1, form-encoded parts) or by `client_id`/`client_secret` in the body. */
async function clientOf(deps: Deps, req: Request): Promise<OAuth2AppRow> {
  const basic = basicCredentials(req);
  const bodyId = stringField(req.body, 'client_id');
  if (basic && bodyId && bodyId !== basic.id) throw oauth2Error('invalid_request', 'client_id differs from the authenticated client');
  const id = basic?.id ?? bodyId;
  if (!id) throw oauth2Error('invalid_client', 'client authentication is required', 401);
  return authenticateClient(deps.db, id, basic ? basic.secret : stringField(req.body, 'client_secret'));
}

function basicCredentials(req: Request): { id: string; secret: string } | null {
  const match = /^basic\s+([A-Za-z0-9+/=]+)$/i.exec(req.get('authorization')?.trim() ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  try {
    return { id: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')), secret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' ')) };
  } catch {
    return null;
  }
}

function stringField(body: unknown, name: string): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const value = (body as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

async function tokenResponse(deps: Deps, issuer: string, app: OAuth2AppRow, grant: GrantRow): Promise<Record<string, unknown>> {
  const found = await findGrantWithUser(deps.db, grant.id);
  if (!found) throw oauth2Error('invalid_grant', 'the grant was revoked');
  const { user } = found;
  const base = { gnt: grant.id, sub: String(user.id), aud: app.client_id };
  const access = await signToken(deps.oauth2Keys, issuer, { ...base, tt: 'access', scp: accessScopeOfGrant(grant.scope) }, accessTokenSeconds);
  const refresh = await signToken(deps.oauth2Keys, issuer, { ...base, tt: 'refresh', cnt: grant.counter }, refreshTokenSeconds);
  const answer: Record<string, unknown> = {
    access_token: access, token_type: 'bearer', expires_in: accessTokenSeconds, refresh_token: refresh, scope: grant.scope,
  };
  const scopes = grant.scope.split(/\s+/);
  if (scopes.includes('openid')) answer.id_token = await signIdToken(deps.oauth2Keys, issuer, app.client_id, await idTokenClaims(deps, user, grant, scopes));
  return answer;
}

/** Gitea's OIDCToken: `sub` and `nonce`, the profile claims with `profile`, the address with `email`, the groups with `groups`. */
async function idTokenClaims(deps: Deps, user: UserRow, grant: GrantRow, scopes: string[]): Promise<JWTPayload> {
  const claims: JWTPayload = { sub: String(user.id) };
  if (grant.nonce) claims.nonce = grant.nonce;
  if (scopes.includes('profile')) {
    Object.assign(claims, {
      name: user.full_name || user.name, preferred_username: user.name, profile: `${deps.config.rootUrl}${encodeURIComponent(user.name)}`,
      picture: avatarUrl(user, deps.config.rootUrl), website: user.website, locale: user.language, updated_at: Math.floor(user.updated.getTime() / 1000),
    });
  }
  if (scopes.includes('email')) Object.assign(claims, { email: user.email, email_verified: true });
  if (scopes.includes('groups')) claims.groups = await listOAuth2Groups(deps.db, user.id);
  return claims;
}

async function sessionOf(deps: Deps, issuer: string, token: string): Promise<{ user: UserRow } | null> {
  const claims = looksLikeJwt(token) ? await verifyToken(deps.oauth2Keys, issuer, token, 'access') : null;
  const found = claims ? await findGrantWithUser(deps.db, claims.gnt) : null;
  return found && String(found.user.id) === claims?.sub && found.user.is_active && !found.user.prohibit_login ? found : null;
}

/** OAuth2's error body for every refusal, including a body the parsers refused; anything else goes on to the 500 handler. */
function oauth2Errors(deps: Deps) {
  return (error: unknown, _req: Request, res: Response, next: NextFunction): void => {
    if (error instanceof HttpError) {
      const code = typeof error.extra.error === 'string' ? error.extra.error : 'invalid_request';
      res.status(error.status).json({ error: code, error_description: error.message });
      return;
    }
    const status = (error as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      res.status(400).json({ error: 'invalid_request', error_description: 'the request body could not be read' });
      return;
    }
    deps.log.error({ err: error }, 'oauth2 provider');
    next(error);
  };
}
