import { createHmac, timingSafeEqual } from 'node:crypto';

/** What a registry bearer token carries: the user (null for an anonymous caller: Gitea's ghost) and the scope it was issued with. */
export interface ContainerClaims {
  userId: number | null;
  scope: string;
}

/** Gitea's package tokens live a day. */
const lifetimeSeconds = 24 * 60 * 60;

const b64 = (value: Buffer | string): string => Buffer.from(value).toString('base64url');
const keyOf = (secretKey: string): Buffer => createHmac('sha256', secretKey).update('hearth container registry token').digest();

/** A JWT (HS256) signed with a key derived from the instance's secret key, as `/v2/token` hands out. */
export function issueContainerToken(secretKey: string, claims: ContainerClaims, now = Date.now()): { token: string; expiresIn: number; issuedAt: string } {
  const iat = Math.floor(now / 1000);
  const head = b64(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const body = b64(JSON.stringify({ uid: claims.userId ?? -1, scope: claims.scope, iat, nbf: iat, exp: iat + lifetimeSeconds }));
  const signature = b64(createHmac('sha256', keyOf(secretKey)).update(`${head}.${body}`).digest());
  return { token: `${head}.${body}.${signature}`, expiresIn: lifetimeSeconds, issuedAt: new Date(iat * 1000).toISOString() };
}

/** The claims of a token this instance signed and that has not expired; null for anything else. */
export function readContainerToken(secretKey: string, token: string, now = Date.now()): ContainerClaims | null {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  const expected = createHmac('sha256', keyOf(secretKey)).update(`${parts[0]}.${parts[1]}`).digest();
  const given = Buffer.from(parts[2], 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const body = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as { uid?: unknown; scope?: unknown; exp?: unknown; nbf?: unknown };
    const seconds = now / 1000;
    if (typeof body.exp !== 'number' || body.exp < seconds || (typeof body.nbf === 'number' && body.nbf > seconds + 60)) return null;
    if (typeof body.uid !== 'number' || typeof body.scope !== 'string') return null;
    return { userId: body.uid > 0 ? body.uid : null, scope: body.scope };
  } catch {
    return null;
  }
}
