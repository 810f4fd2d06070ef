import { forbidden, notFound } from '../../db/errors.js';
import { packageAccessOf } from '../../db/models/access.js';
import { accessModes } from '../../db/models/repos/repo-row.js';
import { findUserByName } from '../../db/models/users/users.js';
import type { UserRow } from '../../db/models/users/user-row.js';
import type { Caller } from '../auth/caller.js';
import type { Deps } from '../deps.js';

/**
 * The user or organization owning the packages of `/packages/{owner}` (Gitea's UserAssignmentAPI +
 * PackageAssignmentAPI + reqPackageAccess): 404 when missing, 403 below the mode the operation needs.
 */
export async function loadPackageOwner(deps: Deps, caller: Caller, name: string, needs: 'read' | 'write'): Promise<UserRow> {
  if (!deps.config.packages.enabled) throw notFound();
  const owner = await findUserByName(deps.db, name);
  if (!owner) throw notFound(`user ${name} does not exist`);
  const mode = await packageAccessOf(deps.db, caller.user, owner);
  if (mode < (needs === 'read' ? accessModes.read : accessModes.write)) throw forbidden('user should have specific permission or be a site admin');
  return owner;
}
