import { notFound } from '../../db/errors.js';
import { canSeeOrg, type OrgRow } from '../../db/models/orgs/orgs.js';
import { canSeeUser, findUserByName } from '../../db/models/users/users.js';
import { userTypes, type UserRow } from '../../db/models/users/user-row.js';
import type { Caller } from '../auth/caller.js';
import type { Deps } from '../deps.js';

/**
 * The user or organization `{username}` names (Gitea's UserAssignmentAPI), if the caller may see it; a missing and
 * an invisible one answer the same 404.
 */
export async function loadUser(deps: Deps, caller: Caller, name: string): Promise<UserRow> {
  const user = await findUserByName(deps.db, name);
  const visible = user && (user.type === userTypes.organization ? await canSeeOrg(deps.db, caller.user, user as OrgRow) : canSeeUser(caller.user, user));
  if (!user || !visible) throw notFound(`user ${name} does not exist`);
  return user;
}

/** After a `signedIn` guard the caller has a user; this narrows the type. */
export function doerOf(caller: Caller): UserRow {
  if (!caller.user) throw new Error('route declared without signedIn reached a handler anonymously');
  return caller.user;
}
