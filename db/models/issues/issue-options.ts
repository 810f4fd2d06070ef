import type { Tx } from '../../data-source.js';
import { badRequest } from '../../errors.js';
import type { RepoRow } from '../repos/repo-row.js';
import type { UserRow } from '../users/user-row.js';
import { resolveAssignees, setAssignees } from './issue-assignees.js';
import { resolveLabels } from './issue-labels.js';
import type { IssueRow } from './issue-row.js';
import { createIssue, editIssueText, lockIssue, setIssueClosed, setIssueDeadline, setIssueMilestone } from './issues.js';
import { resolveMilestone } from './milestones.js';

/** CreateIssueOption, with dates parsed. */
export interface CreateIssueOption {
  title: string;
  body?: string;
  ref?: string;
  assignee?: string;
  assignees?: string[];
  milestone?: number;
  labels?: number[];
  closed?: boolean;
  due_date?: Date;
}

/**
 * Gitea's CreateIssue: anyone who may read issues opens one; only writers set labels, milestone, assignees and
 * the due date (a reader's are ignored). Unknown labels, milestones or assignees, and users who cannot be
 * assigned, are a 422 before anything is written.
 */
export async function openIssue(tx: Tx, repo: RepoRow, doer: UserRow, option: CreateIssueOption, canWrite: boolean): Promise<IssueRow> {
  const labels = canWrite ? await resolveLabels(tx, repo, option.labels ?? []) : [];
  const milestone = canWrite && option.milestone ? await resolveMilestone(tx, repo.id, option.milestone) : null;
  const assignees = canWrite ? await resolveAssignees(tx, repo, false, option.assignee, option.assignees) : [];
  const issue = await createIssue(tx, repo, doer, {
    title: option.title, body: option.body, ref: option.ref, deadline: canWrite ? (option.due_date ?? null) : null,
    milestoneId: milestone?.id ?? null, labels, assignees,
  });
  return option.closed ? setIssueClosed(tx, repo, issue, doer, true) : issue;
}

/** EditIssueOption, with dates parsed. Only these fields can change (spec rule 10). */
export interface EditIssueOption {
  title?: string;
  body?: string;
  ref?: string;
  assignee?: string;
  assignees?: string[];
  milestone?: number;
  state?: 'open' | 'closed';
  due_date?: Date;
  unset_due_date?: boolean;
}

/** Gitea's deadline rule for edits: the date as given, at 23:59:59 of that day; the zero time removes it. */
export function endOfDay(date: Date): Date | null {
  if (date.getUTCFullYear() <= 1) return null;
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate(), 23, 59, 59));
}

/**
 * Gitea's EditIssue: the poster or a writer may edit; title, body and ref for both, the due date, assignees and
 * milestone only for writers, then the state (closing with open dependencies is a 412). Everything is
 * checked before the first write, so a refused edit changes nothing.
 */
export async function editIssue(tx: Tx, repo: RepoRow, issue: IssueRow, doer: UserRow, option: EditIssueOption, canWrite: boolean): Promise<IssueRow> {
  let row = await lockIssue(tx, issue);
  const deadlineGiven = canWrite && (option.due_date !== undefined || option.unset_due_date !== undefined);
  if (deadlineGiven && !option.unset_due_date && option.due_date === undefined) throw badRequest('The due_date cannot be empty');
  const assignees = canWrite && (option.assignees !== undefined || option.assignee !== undefined)
    ? await resolveAssignees(tx, repo, row.is_pull, option.assignee, option.assignees)
    : undefined;
  const milestoneId = canWrite && option.milestone !== undefined
    ? (option.milestone > 0 ? (await resolveMilestone(tx, repo.id, option.milestone)).id : null)
    : undefined;
  row = await editIssueText(tx, repo, row, doer, { title: option.title || undefined, body: option.body, ref: option.ref });
  if (deadlineGiven) row = await setIssueDeadline(tx, repo, row, doer, option.unset_due_date ? null : endOfDay(option.due_date!));
  if (assignees) await setAssignees(tx, repo, row, doer, assignees);
  if (milestoneId !== undefined) row = await setIssueMilestone(tx, repo, row, doer, milestoneId);
  if (option.state !== undefined) row = await setIssueClosed(tx, repo, row, doer, option.state === 'closed');
  return lockIssue(tx, row);
}
