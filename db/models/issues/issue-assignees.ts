import type { Queryable, Tx } from '../../data-source.js';
import { invalid } from '../../errors.js';
import { emit } from '../../events/emit.js';
import { accessModeOf } from '../access.js';
import { accessModes, type RepoRow } from '../repos/repo-row.js';
import { toUserRow, userTypes, type UserRow } from '../users/user-row.js';
import { commentType, type IssueRow } from './issue-row.js';
import { addTimelineComment, issueFacts } from './issue-facts.js';
import { autoSubscribe } from './subscriptions.js';

/**
 * Gitea's CanBeAssigned: an active individual with write access to the unit the item belongs to (collaborators,
 * members of teams with that access, the owner, site administrators).
 */
export async function canBeAssigned(db: Queryable, user: UserRow, repo: RepoRow, isPull: boolean): Promise<boolean> {
  if (user.type !== userTypes.individual || !user.is_active || user.prohibit_login) return false;
  return (await accessModeOf(db, user, repo, isPull ? 'repo.pulls' : 'repo.issues')) >= accessModes.write;
}

/**
 * Gitea's MakeIDsFromAPIAssigneesToAdd plus the assignability check: `assignee` and `assignees` by login,
 * merged without duplicates; an unknown login or a user who cannot be assigned is a 422.
 */
export async function resolveAssignees(db: Queryable, repo: RepoRow, isPull: boolean, assignee: string | undefined, assignees: string[] | undefined): Promise<UserRow[]> {
  const names = [...new Set([...(assignee ? [assignee] : []), ...(assignees ?? [])].filter(Boolean).map((name) => name.toLowerCase()))];
  if (names.length === 0) return [];
  const rows = (await db.query('SELECT * FROM "user" WHERE lower_name = ANY($1::text[])', [names])).map(toUserRow);
  const byName = new Map(rows.map((row) => [row.lower_name, row]));
  const users: UserRow[] = [];
  for (const name of names) {
    const user = byName.get(name);
    if (!user) throw invalid(`Assignee does not exist: [name: ${name}]`);
    if (!(await canBeAssigned(db, user, repo, isPull))) {
      throw invalid(`user does not have access to repository [user_id: ${user.id}, repo_name: ${repo.name}]`);
    }
    users.push(user);
  }
  return users;
}

/** Sets the issue's assignees to `users`: added and removed ones get their timeline entry and event. */
export async function setAssignees(tx: Tx, repo: RepoRow, issue: IssueRow, doer: UserRow, users: UserRow[]): Promise<void> {
  const current = (await tx.query<{ assignee_id: number }>(
    'SELECT assignee_id FROM issue_assignees WHERE issue_id = $1 FOR UPDATE', [issue.id],
  )).map((row) => row.assignee_id);
  const wanted = new Set(users.map((user) => user.id));
  for (const assigneeId of current.filter((id) => !wanted.has(id))) await changeAssignee(tx, repo, issue, doer, assigneeId, true);
  for (const assigneeId of [...wanted].filter((id) => !current.includes(id))) await changeAssignee(tx, repo, issue, doer, assigneeId, false);
}

async function changeAssignee(tx: Tx, repo: RepoRow, issue: IssueRow, doer: UserRow, assigneeId: number, removed: boolean): Promise<void> {
  await recordAssignee(tx, issue, doer, assigneeId, removed);
  await emitAssigneeChange(tx, repo, issue, doer, assigneeId, removed);
}

/** Assigns or unassigns (`removed`) one user with its timeline entry; an assignee is subscribed. */
export async function recordAssignee(tx: Tx, issue: IssueRow, doer: UserRow, assigneeId: number, removed: boolean): Promise<void> {
  if (removed) await tx.query('DELETE FROM issue_assignees WHERE issue_id = $1 AND assignee_id = $2', [issue.id, assigneeId]);
  else {
    await tx.query('INSERT INTO issue_assignees (issue_id, assignee_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [issue.id, assigneeId]);
    await autoSubscribe(tx, issue.id, assigneeId);
  }
  await addTimelineComment(tx, issue, doer, { type: commentType.assignees, assignee_id: assigneeId, removed_assignee: removed });
}

/** The event of recordAssignee. */
async function emitAssigneeChange(tx: Tx, repo: RepoRow, issue: IssueRow, doer: UserRow, assigneeId: number, removed: boolean): Promise<void> {
  await emit(tx, {
    kind: removed ? 'issue.unassigned' : 'issue.assigned', repoId: repo.id, doerId: doer.id, payload: { ...issueFacts(issue), assignee_id: assigneeId },
  });
}
