import type { Queryable } from '../../data-source.js';
import { selectPage, type PageWindow } from '../../sql.js';
import { readableReposCondition } from '../access.js';
import { issueConditions, type IssueFilter } from './issue-list.js';
import type { IssueRow } from './issue-row.js';

/** Gitea's SearchIssues options on top of the list filter. */
export interface IssueSearch extends Omit<IssueFilter, 'labelIds' | 'milestoneIds'> {
  viewerId: number | null;
  /** Any of these label names (repository or organization labels). */
  labelNames?: string[];
  /** Any of these milestone names. */
  milestoneNames?: string[];
  /** Issues of this repository come first. */
  priorityRepoId?: number;
  /** Repositories of this owner only. */
  ownerId?: number;
  /** Repositories of this team only. */
  teamId?: number;
}

/**
 * Issues and pull requests across the repositories the viewer may read (private ones only with access), in
 * repositories whose unit for them is on; newest first, `priorityRepoId`'s first of all.
 */
export async function searchIssues(db: Queryable, search: IssueSearch, page: PageWindow): Promise<{ rows: IssueRow[]; total: number }> {
  const params: unknown[] = [search.viewerId];
  const conditions = [readableReposCondition('r', '$1'), ...issueConditions(search, params)];
  conditions.push('((NOT i.is_pull AND r.has_issues) OR (i.is_pull AND r.has_pull_requests))');
  if (search.labelNames?.length) {
    conditions.push(`EXISTS (SELECT 1 FROM issue_label il JOIN label l ON l.id = il.label_id
      WHERE il.issue_id = i.id AND l.name = ANY($${params.push(search.labelNames)}::text[]))`);
  }
  if (search.milestoneNames?.length) {
    conditions.push(`EXISTS (SELECT 1 FROM milestone m WHERE m.id = i.milestone_id AND m.name = ANY($${params.push(search.milestoneNames)}::text[]))`);
  }
  if (search.ownerId !== undefined) conditions.push(`r.owner_id = $${params.push(search.ownerId)}`);
  if (search.teamId !== undefined) {
    const team = `$${params.push(search.teamId)}`;
    conditions.push(`EXISTS (SELECT 1 FROM team t WHERE t.id = ${team} AND t.org_id = r.owner_id
      AND (t.includes_all_repositories OR EXISTS (SELECT 1 FROM team_repo tr WHERE tr.team_id = t.id AND tr.repo_id = r.id)))`);
  }
  const orderParams: unknown[] = [];
  let orderBy = 'i.created DESC, i.id DESC';
  if (search.priorityRepoId !== undefined) {
    orderParams.push(search.priorityRepoId);
    orderBy = `(i.repo_id = $${params.length + 1}) DESC, ${orderBy}`;
  }
  return selectPage<IssueRow>(db, {
    select: 'i.*', from: `issue i JOIN repository r ON r.id = i.repo_id WHERE ${conditions.join(' AND ')}`, params, orderBy, orderParams, page,
  });
}
