import type { OwnedPublicKey } from '../../db/models/users/public-keys.js';
import { accessModes } from '../../db/models/repos/repo-row.js';
import type { UserRow } from '../../db/models/users/user-row.js';
import { iso } from './time.js';
import { renderUser, type ApiUser, type RenderContext } from './user.js';

/** The PublicKey definition. */
export interface ApiPublicKey {
  id: number;
  key: string;
  url: string;
  title: string;
  fingerprint: string;
  created_at: string;
  user?: ApiUser;
  read_only?: boolean;
  key_type?: string;
}

/**
 * A user's SSH key. As in Gitea, its owner and kind are shown only to the owner and to site administrators,
 * and `read_only` only when true (user keys may always write).
 */
export function renderPublicKey({ key, owner }: OwnedPublicKey, viewer: UserRow | null, ctx: RenderContext): ApiPublicKey {
  const rendered: ApiPublicKey = {
    id: key.id,
    key: key.content,
    url: `${ctx.rootUrl}api/v1/user/keys/${key.id}`,
    title: key.name,
    fingerprint: key.fingerprint,
    created_at: iso(key.created),
  };
  if (viewer && (viewer.is_admin || viewer.id === key.owner_id)) {
    rendered.user = renderUser(owner, owner, ctx);
    if (key.mode === accessModes.read) rendered.read_only = true;
    rendered.key_type = 'user';
  }
  return rendered;
}
