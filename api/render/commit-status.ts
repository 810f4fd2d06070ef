import type { CommitStatusState } from '../../db/models/code/commit-statuses.js';
import type { RepoRow } from '../../db/models/repos/repo-row.js';
import type { UserRow } from '../../db/models/users/user-row.js';
import type { CommitStatusView } from '../../db/views/commit-statuses.js';
import type { ApiRepository } from './repository.js';
import { iso } from './time.js';
import { renderUser, type ApiUser, type RenderContext } from './user.js';

/** The CommitStatus definition of the Gitea 1.22 API description; `id` is the per-commit index, as in Gitea. */
export interface ApiCommitStatus {
  id: number;
  status: CommitStatusState;
  target_url: string;
  description: string;
  url: string;
  context: string;
  creator: ApiUser | null;
  created_at: string;
  updated_at: string;
}

/** The CombinedStatus definition. */
export interface ApiCombinedStatus {
  state: CommitStatusState;
  sha: string;
  total_count: number;
  statuses: ApiCommitStatus[];
  repository: ApiRepository;
  commit_url: string;
  url: string;
}

export function renderCommitStatus(
  { status, creator }: CommitStatusView,
  { repo, owner }: { repo: RepoRow; owner: UserRow },
  ctx: RenderContext,
): ApiCommitStatus {
  return {
    id: status.index,
    status: status.state,
    target_url: status.target_url,
    description: status.description,
    url: `${ctx.rootUrl}api/v1/repos/${owner.name}/${repo.name}/statuses/${encodeURIComponent(status.sha)}`,
    context: status.context,
    creator: creator ? renderUser(creator, null, ctx) : null,
    created_at: iso(status.created),
    updated_at: iso(status.updated),
  };
}

export function renderCombinedStatus(
  state: CommitStatusState,
  sha: string,
  totalCount: number,
  statuses: ApiCommitStatus[],
  repository: ApiRepository,
): ApiCombinedStatus {
  const commitUrl = `${repository.url}/commits/${encodeURIComponent(sha)}`;
  return { state, sha, total_count: totalCount, statuses, repository, commit_url: commitUrl, url: `${commitUrl}/status` };
}
