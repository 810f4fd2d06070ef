import { notFound } from '../../db/errors.js';
import { canSeeUser, getIndividualByName } from '../../db/models/users/users.js';
import type { UserRow } from '../../db/models/users/user-row.js';
import type { Caller } from '../auth/caller.js';
import type { Deps } from '../deps.js';

/** The user a path names, if the caller may see them; a missing and an invisible user answer the same 404. */
export async function loadUser(deps: Deps, caller: Caller, name: string): Promise<UserRow> {
  const user = await getIndividualByName(deps.db, name);
  if (!canSeeUser(caller.user, user)) throw notFound(`user ${name} does not exist`);
  return user;
}

/** After a `signedIn` guard the caller has a user; this narrows the type. */
export function doerOf(caller: Caller): UserRow {
  if (!caller.user) throw new Error('route declared without signedIn reached a handler anonymously');
  return caller.user;
}
