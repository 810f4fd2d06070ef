import { forbidden, notFound } from '../../db/errors.js';
import type { CommentRow, IssueRow } from '../../db/models/issues/issue-row.js';
import { getRepoComment } from '../../db/models/issues/comments.js';
import { accessModes, type AccessMode } from '../../db/models/repos/repo-row.js';
import type { Deps } from '../deps.js';
import { issueUnitMode } from './issue.js';
import type { LoadedRepo } from './repo.js';

/** A comment as a route loaded it, with its issue and the caller's mode in the issue's unit. */
export interface LoadedComment {
  comment: CommentRow;
  issue: IssueRow;
  mode: AccessMode;
}

/**
 * The comment `{id}` of the guarded repository: 404 when it does not exist, belongs to another repository's issue or
 * its unit is unreadable to the caller; with `need: 'write'`, 403 unless the caller may write that unit.
 */
export async function loadComment(deps: Deps, repo: LoadedRepo, id: number, need: 'read' | 'write' = 'read'): Promise<LoadedComment> {
  const { comment, issue } = await getRepoComment(deps.db, repo.repo.id, id);
  const mode = await issueUnitMode(deps, repo, issue.is_pull);
  if (mode < accessModes.read) throw notFound(`comment does not exist [id: ${id}]`);
  if (need === 'write' && mode < accessModes.write) throw forbidden('user should have permission to write issues or pull requests');
  return { comment, issue, mode };
}
