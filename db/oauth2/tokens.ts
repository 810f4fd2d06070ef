import { jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { signingAlgorithm, type OAuth2SigningKeys } from './signing-key.js';

/** Gitea's defaults: [oauth2] ACCESS_TOKEN_EXPIRATION_TIME 3600 s, REFRESH_TOKEN_EXPIRATION_TIME 730 h. */
export const accessTokenSeconds = 3600;
export const refreshTokenSeconds = 730 * 3600;

export type TokenKind = 'access' | 'refresh';

/** What Hearth's own OAuth2 tokens carry beside the registered claims: the grant, and the kind of token. */
export interface OAuth2TokenClaims extends JWTPayload {
  gnt: number;
  tt: TokenKind;
  /** Refresh tokens: the grant's counter when it was issued. */
  cnt?: number;
}

export async function signToken(keys: OAuth2SigningKeys, issuer: string, claims: OAuth2TokenClaims, seconds: number): Promise<string> {
  const key = await keys.get();
  return new SignJWT(claims)
    .setProtectedHeader({ alg: signingAlgorithm, kid: key.publicJwk.kid, typ: 'JWT' })
    .setIssuer(issuer)
    .setIssuedAt()
    .setExpirationTime(`${seconds}s`)
    .sign(key.privateKey);
}

/** An OpenID Connect ID token: the registered claims plus those the granted scopes allow. */
export async function signIdToken(keys: OAuth2SigningKeys, issuer: string, audience: string, claims: JWTPayload): Promise<string> {
  const key = await keys.get();
  return new SignJWT(claims)
    .setProtectedHeader({ alg: signingAlgorithm, kid: key.publicJwk.kid, typ: 'JWT' })
    .setIssuer(issuer)
    .setAudience(audience)
    .setIssuedAt()
    .setExpirationTime(`${accessTokenSeconds}s`)
    .sign(key.privateKey);
}

/** A token of the wanted kind signed by this instance and not expired, or null (a bad signature, a foreign or malformed token). */
export async function verifyToken(keys: OAuth2SigningKeys, issuer: string, token: string, kind: TokenKind): Promise<OAuth2TokenClaims | null> {
  const key = await keys.get();
  try {
    const { payload } = await jwtVerify(token, key.publicKey, { issuer, algorithms: [signingAlgorithm] });
    if (payload.tt !== kind || typeof payload.gnt !== 'number') return null;
    if (kind === 'refresh' && typeof payload.cnt !== 'number') return null;
    return payload as OAuth2TokenClaims;
  } catch {
    return null;
  }
}

/** A JWS in compact form: three base64url parts. Anything else is never handed to the verifier. */
export function looksLikeJwt(value: string): boolean {
  return /^eyJ[\w-]*\.eyJ[\w-]*\.[\w-]+$/.test(value) && value.length < 8192;
}

/** Gitea's issuer: the root URL without its trailing slash. */
export function issuerOf(rootUrl: string): string {
  return rootUrl.replace(/\/+$/, '');
}
