import { badRequest, notFound } from '../../db/errors.js';
import { issuesUnitModeOf } from '../../db/models/access.js';
import type { IssueRow } from '../../db/models/issues/issue-row.js';
import { getIssueByIndex } from '../../db/models/issues/issues.js';
import { findRepo } from '../../db/models/repos/repos.js';
import { accessModes, type AccessMode, type RepoRow } from '../../db/models/repos/repo-row.js';
import type { Deps } from '../deps.js';
import type { LoadedRepo } from './repo.js';

/** Gitea's IssueMeta: an issue by index, in the repository `owner`/`repo` (the route's own when both are left out). */
export interface IssueMeta {
  index: number;
  owner?: string;
  repo?: string;
}

/** An issue of any repository, with the caller's mode in its unit (issues or pull requests). */
export interface IssueWithMode {
  issue: IssueRow;
  repo: RepoRow;
  mode: AccessMode;
}

/**
 * The issue an IssueMeta body names. Another repository needs [service] ALLOW_CROSS_REPOSITORY_DEPENDENCIES
 * (400 otherwise, as Gitea answers); a missing repository or issue, or one the caller cannot read, is a 404.
 */
export async function loadIssueFromMeta(deps: Deps, loaded: LoadedRepo, meta: IssueMeta): Promise<IssueWithMode> {
  const sameRepo = (meta.owner === undefined || meta.owner.toLowerCase() === loaded.repo.owner_name.toLowerCase())
    && (meta.repo === undefined || meta.repo.toLowerCase() === loaded.repo.name.toLowerCase());
  let repo = loaded.repo;
  if (!sameRepo) {
    if (!deps.config.service.allowCrossRepositoryDependencies) throw badRequest('CrossRepositoryDependencies not enabled');
    const other = await findRepo(deps.db, meta.owner ?? loaded.repo.owner_name, meta.repo ?? loaded.repo.name);
    if (!other) throw notFound(`repository ${meta.owner}/${meta.repo} does not exist`);
    repo = other;
  }
  const issue = await getIssueByIndex(deps.db, repo.id, meta.index);
  const mode = await issuesUnitModeOf(deps.db, loaded.caller.user, repo, issue.is_pull);
  if (mode < accessModes.read) throw notFound(`issue does not exist [repo_id: ${repo.id}, index: ${meta.index}]`);
  return { issue, repo, mode };
}
