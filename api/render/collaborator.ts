import type { AccessMode } from '../../db/models/repos/repo-row.js';
import type { UserRow } from '../../db/models/users/user-row.js';
import { renderUser, type ApiUser, type RenderContext } from './user.js';

/** Gitea's names of access modes (perm.AccessMode.String()). */
export const accessModeNames = ['none', 'read', 'write', 'admin', 'owner'] as const;

/** The RepoCollaboratorPermission definition. */
export interface ApiRepoCollaboratorPermission {
  permission: string;
  role_name: string;
  user: ApiUser;
}

export function renderCollaboratorPermission(
  user: UserRow,
  mode: AccessMode,
  viewer: UserRow | null,
  ctx: RenderContext,
): ApiRepoCollaboratorPermission {
  const name = accessModeNames[mode];
  return { permission: name, role_name: name, user: renderUser(user, viewer, ctx) };
}
