import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { parse as parseCookies, serialize } from 'cookie';
import type { Request, Response } from 'express';
import { findWebSession, type WebSession } from '../../db/models/users/web-sessions.js';
import { anonymous, type Caller } from '../auth/caller.js';
import { refuseProhibited } from '../auth/sign-in.js';
import type { Deps } from '../deps.js';

/** The session cookie; never read under /api/v1 (spec, Authentication rule 4), where only api/auth authenticates. */
export const sessionCookie = 'hearth_session';
/** A random value that ties the CSRF token of a visitor without a session (the sign-in form) to their browser. */
export const anonymousCsrfCookie = 'hearth_csrf';

/** Who a web request comes from: the session (a pending second step signs nobody in), the caller, the form token. */
export interface WebVisitor {
  session: WebSession | null;
  caller: Caller;
  csrf: string;
}

const cookiePath = (deps: Deps): string => new URL(deps.config.rootUrl).pathname;
const secure = (deps: Deps): boolean => deps.config.rootUrl.startsWith('https:');

function setCookie(deps: Deps, res: Response, name: string, value: string, maxAgeSeconds?: number): void {
  res.append('Set-Cookie', serialize(name, value, {
    httpOnly: true, sameSite: 'lax', secure: secure(deps), path: cookiePath(deps), ...(maxAgeSeconds === undefined ? {} : { maxAge: maxAgeSeconds }),
  }));
}

/** Sets the session cookie; a remembered session's outlives the browser, any other ends with it. */
export function setSessionCookie(deps: Deps, res: Response, id: string, maxAgeSeconds: number, persistent: boolean): void {
  setCookie(deps, res, sessionCookie, id, persistent ? maxAgeSeconds : undefined);
}

export function clearSessionCookie(deps: Deps, res: Response): void {
  setCookie(deps, res, sessionCookie, '', 0);
}

/** The CSRF token of a form: an HMAC of the session (or of the anonymous cookie) under the instance's secret key. */
function csrfToken(deps: Deps, subject: string): string {
  return createHmac('sha256', deps.config.security.secretKey).update(`csrf:${subject}`).digest('base64url');
}

/**
 * The visitor of a web page, from the session cookie. A visitor without a live session gets (once) the anonymous
 * cookie their forms' token is tied to. A session whose user may no longer sign in counts as no session.
 */
export async function loadVisitor(deps: Deps, req: Request, res: Response): Promise<WebVisitor> {
  const cookies = parseCookies(req.get('cookie') ?? '');
  const id = cookies[sessionCookie];
  let session = id ? await findWebSession(deps.db, id) : null;
  if (session) {
    try {
      refuseProhibited(session.user);
    } catch {
      session = null;
    }
  }
  if (session) {
    const caller: Caller = session.pendingTwoFactor ? anonymous : { user: session.user, method: 'session', scope: 'all', tokenId: null };
    return { session, caller, csrf: csrfToken(deps, `session:${session.idHash}`) };
  }
  let anon = cookies[anonymousCsrfCookie];
  if (!anon || !/^[\w-]{20,64}$/.test(anon)) {
    anon = randomBytes(24).toString('base64url');
    setCookie(deps, res, anonymousCsrfCookie, anon);
  }
  return { session: null, caller: anonymous, csrf: csrfToken(deps, `anonymous:${anon}`) };
}

/** Whether a posted `_csrf` is the visitor's current token (a token of an earlier session is stale). */
export function csrfMatches(visitor: WebVisitor, posted: unknown): boolean {
  if (typeof posted !== 'string') return false;
  const want = Buffer.from(visitor.csrf);
  const got = Buffer.from(posted);
  return want.length === got.length && timingSafeEqual(want, got);
}
