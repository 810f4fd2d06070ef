import type { IssueRow } from '../../../db/models/issues/issue-row.js';
import { loadIssueViews, type IssueRepo } from '../../../db/views/issues.js';
import type { Deps } from '../../deps.js';
import { renderIssue, type ApiIssue } from '../../render/issue.js';

/** Issues of one or more repositories, rendered in a fixed number of queries. */
export async function renderIssues(deps: Deps, issues: IssueRow[], repos: IssueRepo[]): Promise<ApiIssue[]> {
  return (await loadIssueViews(deps.db, issues, repos)).map((view) => renderIssue(view, deps.config));
}

export async function renderOneIssue(deps: Deps, issue: IssueRow, repo: IssueRepo): Promise<ApiIssue> {
  return (await renderIssues(deps, [issue], [repo]))[0];
}
