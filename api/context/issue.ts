import { forbidden, notFound } from '../../db/errors.js';
import { unitModeWithOwner } from '../../db/models/access.js';
import type { IssueRow } from '../../db/models/issues/issue-row.js';
import { getIssueByIndex } from '../../db/models/issues/issues.js';
import { accessModes, type AccessMode } from '../../db/models/repos/repo-row.js';
import type { Deps } from '../deps.js';
import type { LoadedRepo } from './repo.js';

/** An issue as a route loaded it, with the caller's mode in the unit it belongs to (issues, or pull requests). */
export interface LoadedIssue {
  issue: IssueRow;
  /** Gitea's CanReadIssuesOrPulls / CanWriteIssuesOrPulls, as a mode. */
  mode: AccessMode;
}

/** The caller's mode in the unit of issues (or of pull requests) of the guarded repository. */
export async function issueUnitMode(deps: Deps, repo: LoadedRepo, isPull: boolean): Promise<AccessMode> {
  return unitModeWithOwner(deps.db, repo.caller.user, repo.repo, repo.owner, isPull ? 'repo.pulls' : 'repo.issues', repo.repoMode);
}

/**
 * The issue or pull request `{index}` of a guarded repository (declare `ids: ['index']`): 404 when there is none
 * or the caller cannot read its unit; with `need: 'write'`, 403 unless the caller may write it.
 */
export async function loadIssue(deps: Deps, repo: LoadedRepo, index: number, need: 'read' | 'write' = 'read'): Promise<LoadedIssue> {
  const issue = await getIssueByIndex(deps.db, repo.repo.id, index);
  const mode = await issueUnitMode(deps, repo, issue.is_pull);
  if (mode < accessModes.read) throw notFound(`issue does not exist [repo_id: ${repo.repo.id}, index: ${index}]`);
  if (need === 'write' && mode < accessModes.write) throw forbidden('user should have permission to write issues or pull requests');
  return { issue, mode };
}

