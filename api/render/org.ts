import type { OrgPermissions, OrgRow } from '../../db/models/orgs/orgs.js';
import { accessModes } from '../../db/models/repos/repo-row.js';
import { visibilities, type UserRow } from '../../db/models/users/user-row.js';
import { avatarUrl, type RenderContext } from './user.js';

/** The Organization definition of the Gitea 1.22 API description. */
export interface ApiOrganization {
  id: number;
  name: string;
  /** Deprecated: the same as `name`. */
  username: string;
  full_name: string;
  email: string;
  avatar_url: string;
  description: string;
  website: string;
  location: string;
  visibility: string;
  repo_admin_change_team_access: boolean;
}

/** Anonymous callers never see the organization's address. */
export function renderOrganization(org: OrgRow, viewer: UserRow | null, ctx: RenderContext): ApiOrganization {
  return {
    id: org.id,
    name: org.name,
    username: org.name,
    full_name: org.full_name,
    email: viewer ? org.email : '',
    avatar_url: avatarUrl(org, ctx.rootUrl),
    description: org.description,
    website: org.website,
    location: org.location,
    visibility: visibilities[org.visibility],
    repo_admin_change_team_access: org.repo_admin_change_team_access,
  };
}

/** The OrganizationPermissions definition. */
export interface ApiOrganizationPermissions {
  is_owner: boolean;
  is_admin: boolean;
  can_write: boolean;
  can_read: boolean;
  can_create_repository: boolean;
}

export function renderOrgPermissions(permissions: OrgPermissions): ApiOrganizationPermissions {
  const { mode } = permissions;
  return {
    is_owner: mode >= accessModes.owner,
    is_admin: mode >= accessModes.admin,
    can_write: mode >= accessModes.write,
    can_read: mode >= accessModes.read,
    can_create_repository: permissions.canCreateRepository,
  };
}
