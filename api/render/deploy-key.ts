import type { DeployKeyRow } from '../../db/models/repos/deploy-keys.js';
import { accessModes } from '../../db/models/repos/repo-row.js';
import type { UserRow } from '../../db/models/users/user-row.js';
import type { RepoView } from '../../db/views/repo.js';
import { renderRepository, type ApiRepository } from './repository.js';
import { iso } from './time.js';
import type { RenderContext } from './user.js';

/** The DeployKey definition. */
export interface ApiDeployKey {
  id: number;
  key_id: number;
  key: string;
  url: string;
  title: string;
  fingerprint: string;
  created_at: string;
  read_only: boolean;
  repository?: ApiRepository;
}

/** `view` is the key's repository; as in Gitea, it is included only for a site administrator or the repository's owner. */
export function renderDeployKey(key: DeployKeyRow, view: RepoView, viewer: UserRow | null, ctx: RenderContext): ApiDeployKey {
  const { repo, owner } = view;
  const rendered: ApiDeployKey = {
    id: key.id,
    key_id: key.key_id,
    key: key.content,
    url: `${ctx.rootUrl}api/v1/repos/${owner.name}/${repo.name}/keys/${key.id}`,
    title: key.name,
    fingerprint: key.fingerprint,
    created_at: iso(key.created),
    read_only: key.mode === accessModes.read,
  };
  if (viewer && (viewer.is_admin || viewer.id === repo.owner_id)) rendered.repository = renderRepository(view, viewer, ctx);
  return rendered;
}
