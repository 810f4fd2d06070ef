import { forbidden, notFound } from '../../db/errors.js';
import type { IssueRow } from '../../db/models/issues/issue-row.js';
import type { PullRow } from '../../db/models/pulls/pull-row.js';
import { getPullWithIssue } from '../../db/models/pulls/pulls.js';
import { accessModes, type AccessMode } from '../../db/models/repos/repo-row.js';
import type { UserRow } from '../../db/models/users/user-row.js';
import { loadPullViews } from '../../db/views/pulls.js';
import type { Deps } from '../deps.js';
import { renderPull, type ApiPullRequest } from '../render/pull.js';
import { issueUnitMode } from './issue.js';
import type { LoadedRepo } from './repo.js';

/** A pull request as a route loaded it: its row, its issue and the caller's mode in the pull request unit. */
export interface LoadedPull {
  pull: PullRow;
  issue: IssueRow;
  mode: AccessMode;
}

/**
 * The pull request `{index}` of a guarded repository: 404 when there is none (or the index is an issue's) or the
 * caller cannot read pull requests; with `need: 'write'`, 403 unless the caller may write them.
 */
export async function loadPull(deps: Deps, repo: LoadedRepo, index: number, need: 'read' | 'write' = 'read'): Promise<LoadedPull> {
  const mode = await issueUnitMode(deps, repo, true);
  if (mode < accessModes.read) throw notFound(`pull request does not exist [repo_id: ${repo.repo.id}, index: ${index}]`);
  const { pull, issue } = await getPullWithIssue(deps.db, repo.repo.id, index);
  if (need === 'write' && mode < accessModes.write) throw forbidden('user should have permission to write pull requests');
  return { pull, issue, mode };
}

/** Pull requests of the guarded repository rendered for the caller, in the given order. */
export async function renderPulls(deps: Deps, repo: LoadedRepo, pulls: Array<{ pull: PullRow; issue: IssueRow }>, viewer: UserRow | null): Promise<ApiPullRequest[]> {
  const issues = new Map(pulls.map(({ issue }) => [issue.id, issue]));
  const views = await loadPullViews(deps.db, deps.git, repo.repo, pulls.map(({ pull }) => pull), issues, viewer);
  return views.map((view) => renderPull(view, viewer, deps.config));
}

export async function renderOnePull(deps: Deps, repo: LoadedRepo, pull: PullRow, issue: IssueRow, viewer: UserRow | null): Promise<ApiPullRequest> {
  return (await renderPulls(deps, repo, [{ pull, issue }], viewer))[0];
}
