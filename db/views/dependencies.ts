import type { Queryable } from '../data-source.js';
import { issuesUnitModeOf } from '../models/access.js';
import { listDependencyIssues, type DependencyDirection } from '../models/issues/dependencies.js';
import type { IssueRow } from '../models/issues/issue-row.js';
import { accessModes, type RepoRow } from '../models/repos/repo-row.js';
import { findReposByIds } from '../models/repos/repos.js';
import type { UserRow } from '../models/users/user-row.js';

/**
 * One side of an issue's dependencies as `viewer` may see it: issues of repositories (or units) the viewer cannot
 * read are left out, decided once per repository and unit. `repos` holds the repositories of the issues kept.
 */
export async function loadVisibleDependencies(
  db: Queryable, issueId: number, direction: DependencyDirection, viewer: UserRow | null,
): Promise<{ issues: IssueRow[]; repos: RepoRow[] }> {
  const issues = await listDependencyIssues(db, issueId, direction);
  const repoIds = [...new Set(issues.map((issue) => issue.repo_id))];
  const repos = await findReposByIds(db, repoIds);
  const readable = new Map<string, boolean>();
  for (const repo of repos) {
    for (const isPull of [false, true]) {
      if (!issues.some((issue) => issue.repo_id === repo.id && issue.is_pull === isPull)) continue;
      readable.set(`${repo.id}:${isPull}`, (await issuesUnitModeOf(db, viewer, repo, isPull)) >= accessModes.read);
    }
  }
  return { issues: issues.filter((issue) => readable.get(`${issue.repo_id}:${issue.is_pull}`)), repos };
}
