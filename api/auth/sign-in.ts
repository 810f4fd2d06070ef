import { verifyPassword } from '../../db/crypto.js';
import type { Queryable } from '../../db/data-source.js';
import { forbidden } from '../../db/errors.js';
import { findUserByLogin } from '../../db/models/users/users.js';
import type { UserRow } from '../../db/models/users/user-row.js';

/**
 * The rules a password sign-in follows wherever it happens (HTTP basic on the API and git, the web's sign-in form):
 * the user a login (name or e-mail) names, when the password is theirs; null otherwise.
 */
export async function userByPassword(db: Queryable, login: string, password: string): Promise<UserRow | null> {
  const user = await findUserByLogin(db, login);
  if (!user || !(await verifyPassword(password, user))) return null;
  return user;
}

export const prohibitedMessage = 'This account is prohibited from signing in, please contact your site administrator.';

/** An inactive user, or one prohibited from signing in, is refused (403) whatever proved who they are. */
export function refuseProhibited(user: UserRow): void {
  if (!user.is_active || user.prohibit_login) throw forbidden(prohibitedMessage);
}
