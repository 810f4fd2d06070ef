import type { IssueRow } from '../../../db/models/issues/issue-row.js';
import type { ListedIssue } from '../../../db/models/issues/issue-list.js';
import { issuesWithVersions, loadIssueViews, type IssueRepo } from '../../../db/views/issues.js';
import type { Deps } from '../../deps.js';
import { JsonText } from '../../http/pagination.js';
import { renderIssue, type ApiIssue } from '../../render/issue.js';
import { renderedIssuesOf } from './rendered-issues.js';

/** Issues of one or more repositories, rendered in a fixed number of queries. */
export async function renderIssues(deps: Deps, issues: IssueRow[], repos: IssueRepo[]): Promise<ApiIssue[]> {
  return (await loadIssueViews(deps.db, issues, repos)).map((view) => renderIssue(view, deps.config));
}

export async function renderOneIssue(deps: Deps, issue: IssueRow, repo: IssueRepo): Promise<ApiIssue> {
  return (await renderIssues(deps, [issue], [repo]))[0];
}

/**
 * A page of one repository's issues as JSON text: an issue whose view has the version it had when last rendered is
 * answered with that text; the others are loaded, rendered and kept (in one more round trip, whatever their number).
 */
export async function renderIssuePage(deps: Deps, listed: ListedIssue[], repo: IssueRepo): Promise<JsonText> {
  const rendered = renderedIssuesOf(deps.config);
  // the repository's names are in every issue's addresses, and are not in the view's version
  const versionOf = (viewVersion: string): string => `${repo.owner_name}/${repo.name}:${viewVersion}`;
  const texts = listed.map((issue) => rendered.get(issue.id, versionOf(issue.view_version)));
  const missing = listed.filter((_, i) => texts[i] === undefined).map((issue) => issue.id);
  if (missing.length > 0) {
    const rows = await issuesWithVersions(deps.db, missing);
    const versions = new Map(rows.map((row) => [row.id, row.view_version]));
    const fresh = new Map<number, string>();
    for (const view of await loadIssueViews(deps.db, rows, [repo])) {
      const json = JSON.stringify(renderIssue(view, deps.config));
      fresh.set(view.issue.id, json);
      rendered.set(view.issue.id, versionOf(versions.get(view.issue.id)!), json);
    }
    listed.forEach((issue, i) => (texts[i] ??= fresh.get(issue.id)));
  }
  // an issue deleted between the two reads is left out
  return new JsonText(`[${texts.filter((text) => text !== undefined).join(',')}]`);
}
