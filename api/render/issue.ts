import type { IssueRow, MilestoneRow } from '../../db/models/issues/issue-row.js';
import type { LabelRow } from '../../db/models/orgs/labels.js';
import type { UserRow } from '../../db/models/users/user-row.js';
import type { CommentView, IssueRepo, IssueView } from '../../db/views/issues.js';
import { renderLabel, type ApiLabel } from './label.js';
import { renderAttachment, type ApiAttachment } from './release.js';
import { iso } from './time.js';
import { renderGhost, renderPublicUser, renderUser, type ApiUser, type RenderContext } from './user.js';

/** The Milestone definition of the Gitea 1.22 API description. */
export interface ApiMilestone {
  id: number;
  title: string;
  description: string;
  state: 'open' | 'closed';
  open_issues: number;
  closed_issues: number;
  created_at: string;
  updated_at: string | null;
  closed_at: string | null;
  due_on: string | null;
}

/** The Issue definition of the Gitea 1.22 API description. */
export interface ApiIssue {
  id: number;
  url: string;
  html_url: string;
  number: number;
  user: ApiUser;
  original_author: string;
  original_author_id: number;
  title: string;
  body: string;
  ref: string;
  assets: ApiAttachment[];
  labels: ApiLabel[];
  milestone: ApiMilestone | null;
  assignee: ApiUser | null;
  assignees: ApiUser[] | null;
  state: 'open' | 'closed';
  is_locked: boolean;
  comments: number;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  due_date: string | null;
  pull_request: { merged: boolean; merged_at: string | null; draft: boolean; html_url: string } | null;
  repository: { id: number; name: string; owner: string; full_name: string };
  pin_order: number;
}

/** The Comment definition of the Gitea 1.22 API description. */
export interface ApiComment {
  id: number;
  html_url: string;
  pull_request_url: string;
  issue_url: string;
  user: ApiUser;
  original_author: string;
  original_author_id: number;
  body: string;
  assets: ApiAttachment[];
  created_at: string;
  updated_at: string;
}

const fullNameOf = (repo: IssueRepo): string => `${encodeURIComponent(repo.owner_name)}/${encodeURIComponent(repo.name)}`;

/** The repository's API address: `…/api/v1/repos/{owner}/{repo}`. */
export const repoApiUrl = (repo: IssueRepo, { rootUrl }: RenderContext): string => `${rootUrl}api/v1/repos/${fullNameOf(repo)}`;

/** The issue's API address (pull requests' issues too: Gitea's Issue.APIURL). */
export const issueApiUrl = (repo: IssueRepo, issue: Pick<IssueRow, 'index'>, ctx: RenderContext): string => `${repoApiUrl(repo, ctx)}/issues/${issue.index}`;

/** The issue's web address: `/issues/N`, or `/pulls/N` for a pull request. */
export const issueHtmlUrl = (repo: IssueRepo, issue: Pick<IssueRow, 'index' | 'is_pull'>, { rootUrl }: RenderContext): string =>
  `${rootUrl}${fullNameOf(repo)}/${issue.is_pull ? 'pulls' : 'issues'}/${issue.index}`;

/** Labels of the repository link to `/repos/…/labels`, the organization's to `/orgs/…/labels`. */
export function renderIssueLabel(label: LabelRow, repo: IssueRepo, ctx: RenderContext): ApiLabel {
  const url = label.org_id !== null
    ? `${ctx.rootUrl}api/v1/orgs/${encodeURIComponent(repo.owner_name)}/labels`
    : `${repoApiUrl(repo, ctx)}/labels`;
  return renderLabel(label, url);
}

export function renderMilestone(milestone: MilestoneRow): ApiMilestone {
  return {
    id: milestone.id,
    title: milestone.name,
    description: milestone.content,
    state: milestone.is_closed ? 'closed' : 'open',
    open_issues: milestone.num_issues - milestone.num_closed_issues,
    closed_issues: milestone.num_closed_issues,
    created_at: iso(milestone.created),
    updated_at: iso(milestone.updated),
    closed_at: milestone.is_closed ? iso(milestone.closed_at) : null,
    due_on: milestone.deadline ? iso(milestone.deadline) : null,
  };
}

/** A user as issue JSON shows one, to nobody in particular; a deleted account is Gitea's ghost. */
export const renderPerson = (user: UserRow | null, ctx: RenderContext, viewer: UserRow | null = null): ApiUser =>
  user ? (viewer ? renderUser(user, viewer, ctx) : renderPublicUser(user, ctx)) : renderGhost(ctx);

/** Gitea's ToAPIIssue. */
export function renderIssue(view: IssueView, ctx: RenderContext): ApiIssue {
  const { issue, repo } = view;
  const assignees = view.assignees.map((user) => renderPublicUser(user, ctx));
  const htmlUrl = issueHtmlUrl(repo, issue, ctx);
  return {
    id: issue.id,
    url: issueApiUrl(repo, issue, ctx),
    html_url: htmlUrl,
    number: issue.index,
    user: renderPerson(view.poster, ctx),
    original_author: issue.original_author,
    original_author_id: issue.original_author_id,
    title: issue.title,
    body: issue.content,
    ref: issue.ref,
    assets: view.attachments.map((attachment) => renderAttachment(attachment, ctx)),
    labels: view.labels.map((label) => renderIssueLabel(label, repo, ctx)),
    milestone: view.milestone ? renderMilestone(view.milestone) : null,
    assignee: assignees[0] ?? null,
    assignees: assignees.length ? assignees : null,
    state: issue.is_closed ? 'closed' : 'open',
    is_locked: issue.is_locked,
    comments: issue.num_comments,
    created_at: iso(issue.created),
    updated_at: iso(issue.updated),
    closed_at: issue.closed_at ? iso(issue.closed_at) : null,
    due_date: issue.deadline ? iso(issue.deadline) : null,
    pull_request: issue.is_pull && view.pull
      ? { merged: view.pull.merged, merged_at: view.pull.merged_at ? iso(view.pull.merged_at) : null, draft: view.pull.draft, html_url: htmlUrl }
      : null,
    repository: { id: repo.id, name: repo.name, owner: repo.owner_name, full_name: `${repo.owner_name}/${repo.name}` },
    pin_order: issue.pin_order,
  };
}

/** Gitea's ToAPIComment: the poster as `viewer` may see them. */
export function renderComment(view: CommentView, viewer: UserRow | null, ctx: RenderContext): ApiComment {
  const { comment, issue, repo } = view;
  const issueUrl = issueHtmlUrl(repo, issue, ctx);
  return {
    id: comment.id,
    html_url: `${issueUrl}#issuecomment-${comment.id}`,
    pull_request_url: issue.is_pull ? issueUrl : '',
    issue_url: issue.is_pull ? '' : issueUrl,
    user: renderPerson(view.poster, ctx, viewer),
    original_author: comment.original_author,
    original_author_id: comment.original_author_id,
    body: comment.content,
    assets: view.attachments.map((attachment) => renderAttachment(attachment, ctx)),
    created_at: iso(comment.created),
    updated_at: iso(comment.updated),
  };
}
