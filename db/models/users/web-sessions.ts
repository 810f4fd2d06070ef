import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../../data-source.js';
import { toUserRow, type UserRow } from './user-row.js';

/** How long a session lives: a browser session's day, a remembered one's month (Gitea's LOGIN_REMEMBER_DAYS is 31). */
export const sessionLifetimes = { session: 24 * 3600, remember: 31 * 24 * 3600, pendingTwoFactor: 5 * 60 } as const;

/** Sign-in throttling: this many failures for one account, or from one address, within the window refuse more tries. */
export const loginThrottle = { failures: 5, windowSeconds: 5 * 60 } as const;

export interface WebSession {
  idHash: string;
  user: UserRow;
  pendingTwoFactor: boolean;
  remember: boolean;
}

const hashOf = (id: string): string => createHash('sha256').update(id).digest('hex');

/**
 * A new session for `user`; answers the cookie's value, which is stored only as its hash. A session waiting for the
 * second factor lives five minutes and signs nobody in until `completeTwoFactor` replaces it.
 */
export async function createWebSession(
  tx: Queryable, user: UserRow, options: { remember: boolean; pendingTwoFactor: boolean },
): Promise<{ id: string; maxAgeSeconds: number }> {
  const id = randomBytes(32).toString('base64url');
  const maxAgeSeconds = options.pendingTwoFactor
    ? sessionLifetimes.pendingTwoFactor
    : options.remember ? sessionLifetimes.remember : sessionLifetimes.session;
  await tx.query(
    `INSERT INTO web_session (id_hash, user_id, pending_two_factor, remember, expires_at)
     VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))`,
    [hashOf(id), user.id, options.pendingTwoFactor, options.remember, maxAgeSeconds],
  );
  if (!options.pendingTwoFactor) await tx.query('UPDATE "user" SET last_login = now() WHERE id = $1', [user.id]);
  return { id, maxAgeSeconds };
}

/** The live session a cookie's value names, with its user; null for an unknown or expired one. */
export async function findWebSession(db: Queryable, id: string): Promise<WebSession | null> {
  const [row] = await db.query<Record<string, unknown>>(
    `SELECT s.id_hash AS session_id_hash, s.pending_two_factor AS session_pending, s.remember AS session_remember, u.*
       FROM web_session s JOIN "user" u ON u.id = s.user_id
      WHERE s.id_hash = $1 AND s.expires_at > now()`,
    [hashOf(id)],
  );
  if (!row) return null;
  const { session_id_hash: idHash, session_pending: pending, session_remember: remember, ...user } = row;
  return { idHash: idHash as string, pendingTwoFactor: pending as boolean, remember: remember as boolean, user: toUserRow(user) };
}

/** Ends a session (sign-out, or a finished second step); answers whether it existed. */
export async function deleteWebSession(tx: Queryable, idHash: string): Promise<boolean> {
  const rows = await tx.query('DELETE FROM web_session WHERE id_hash = $1 RETURNING 1', [idHash]);
  return rows.length > 0;
}

/** Expired sessions and failures past the window, removed (a sign-in does it, so the tables stay small). */
export async function sweepWebSignIn(tx: Queryable): Promise<void> {
  await tx.query('DELETE FROM web_session WHERE expires_at <= now()');
  await tx.query('DELETE FROM web_login_failure WHERE failed_at <= now() - make_interval(secs => $1)', [loginThrottle.windowSeconds]);
}

/** The throttling keys of a sign-in attempt: the account (as typed, lower-cased) and the address. */
export const throttleKeys = (login: string, address: string): string[] => [`account:${login.trim().toLowerCase()}`, `address:${address}`];

/** Whether any of the keys has had as many failures as the throttle allows within its window. */
export async function isThrottled(db: Queryable, keys: string[]): Promise<boolean> {
  const [row] = await db.query<{ most: string | null }>(
    `SELECT max(n) AS most FROM (
       SELECT count(*) AS n FROM web_login_failure
        WHERE key = ANY($1::text[]) AND failed_at > now() - make_interval(secs => $2) GROUP BY key) counts`,
    [keys, loginThrottle.windowSeconds],
  );
  return Number(row?.most ?? 0) >= loginThrottle.failures;
}

export async function recordLoginFailure(tx: Queryable, keys: string[]): Promise<void> {
  await tx.query('INSERT INTO web_login_failure (key) SELECT unnest($1::text[])', [keys]);
}
