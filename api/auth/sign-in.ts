import { forbidden } from '../../db/errors.js';
import type { UserRow } from '../../db/models/users/user-row.js';

export const prohibitedMessage = 'This account is prohibited from signing in, please contact your site administrator.';

/** An inactive user, or one prohibited from signing in, is refused (403) whatever proved who they are. */
export function refuseProhibited(user: UserRow): void {
  if (!user.is_active || user.prohibit_login) throw forbidden(prohibitedMessage);
}
