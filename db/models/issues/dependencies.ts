import type { Queryable, Tx } from '../../data-source.js';
import { conflict, invalid, notFound } from '../../errors.js';
import { emit } from '../../events/emit.js';
import type { UserRow } from '../users/user-row.js';
import { addTimelineComment, issueFacts } from './issue-facts.js';
import { commentType, type IssueRow } from './issue-row.js';

/**
 * The two lists of an issue: `dependencies` are the issues that block it, `blocks` the issues it blocks. A row
 * (issue_id, dependency_id) says dependency_id blocks issue_id, so each list is the other's mirror image.
 */
export type DependencyDirection = 'dependencies' | 'blocks';

/** The issues on one side of an issue (in any repository), oldest dependency first. */
export async function listDependencyIssues(db: Queryable, issueId: number, direction: DependencyDirection): Promise<IssueRow[]> {
  const [mine, theirs] = direction === 'dependencies' ? ['issue_id', 'dependency_id'] : ['dependency_id', 'issue_id'];
  return db.query<IssueRow>(
    `SELECT i.* FROM issue_dependency d JOIN issue i ON i.id = d.${theirs} WHERE d.${mine} = $1 ORDER BY d.id`,
    [issueId],
  );
}

/** Serializes dependency changes, so two concurrent additions cannot close a cycle between them. */
async function lockDependencies(tx: Tx): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtext('issue_dependency'))`);
}

/** The timeline entries on both issues, as Gitea writes them (each names the other issue). */
async function recordOnBoth(tx: Tx, blocked: IssueRow, blocker: IssueRow, doer: UserRow, type: number): Promise<void> {
  await addTimelineComment(tx, blocked, doer, { type, dependent_issue_id: blocker.id });
  await addTimelineComment(tx, blocker, doer, { type, dependent_issue_id: blocked.id });
}

/**
 * Makes `blocked` depend on `blocker`. An issue cannot depend on itself, and no dependency may close a cycle
 * (`blocker` depending, directly or through others, on `blocked`): both 422. An existing dependency is a 409.
 */
export async function addDependency(tx: Tx, blocked: IssueRow, blocker: IssueRow, doer: UserRow): Promise<void> {
  if (blocked.id === blocker.id) throw invalid('an issue cannot depend on itself');
  await lockDependencies(tx);
  const [cycle] = await tx.query(
    `WITH RECURSIVE reached(id) AS (
       SELECT dependency_id FROM issue_dependency WHERE issue_id = $1
       UNION SELECT d.dependency_id FROM issue_dependency d JOIN reached r ON d.issue_id = r.id
     ) SELECT 1 FROM reached WHERE id = $2`,
    [blocker.id, blocked.id],
  );
  if (cycle) throw invalid('circular dependencies are not allowed: the dependency already depends on this issue');
  const inserted = await tx.query(
    `INSERT INTO issue_dependency (user_id, issue_id, dependency_id) VALUES ($1, $2, $3) ON CONFLICT (issue_id, dependency_id) DO NOTHING RETURNING id`,
    [doer.id, blocked.id, blocker.id],
  );
  if (inserted.length === 0) throw conflict('issue dependency does already exist');
  await recordOnBoth(tx, blocked, blocker, doer, commentType.add_dependency);
  await emit(tx, {
    kind: 'issue.dependency_added', repoId: blocked.repo_id, doerId: doer.id,
    payload: { ...issueFacts(blocked), dependency_id: blocker.id, dependency_repo_id: blocker.repo_id },
  });
}

/** Removes the dependency of `blocked` on `blocker`: 404 when there is none. */
export async function removeDependency(tx: Tx, blocked: IssueRow, blocker: IssueRow, doer: UserRow): Promise<void> {
  await lockDependencies(tx);
  const removed = await tx.query('DELETE FROM issue_dependency WHERE issue_id = $1 AND dependency_id = $2 RETURNING id', [blocked.id, blocker.id]);
  if (removed.length === 0) throw notFound('issue dependency does not exist');
  await recordOnBoth(tx, blocked, blocker, doer, commentType.remove_dependency);
  await emit(tx, {
    kind: 'issue.dependency_removed', repoId: blocked.repo_id, doerId: doer.id,
    payload: { ...issueFacts(blocked), dependency_id: blocker.id, dependency_repo_id: blocker.repo_id },
  });
}
