import { commentTypeNames } from '../../db/models/issues/issue-row.js';
import type { TimelineView } from '../../db/views/timeline.js';
import type { ApiLabel } from './label.js';
import { renderTeam, type ApiTeam } from './team.js';
import { issueHtmlUrl, renderIssue, renderIssueLabel, renderMilestone, renderPerson, type ApiIssue, type ApiMilestone } from './issue.js';
import { iso } from './time.js';
import { renderUser, type ApiUser, type RenderContext } from './user.js';

/** The TimelineComment definition of the Gitea 1.22 API description (what Hearth records of it). */
export interface ApiTimelineComment {
  id: number;
  type: string;
  user: ApiUser;
  body: string;
  created_at: string;
  updated_at: string;
  html_url: string;
  issue_url: string;
  pull_request_url: string;
  old_project_id: number;
  project_id: number;
  old_title: string;
  new_title: string;
  old_ref: string;
  new_ref: string;
  ref_action: string;
  ref_commit_sha: string;
  review_id: number;
  removed_assignee: boolean;
  label: ApiLabel | null;
  assignee: ApiUser | null;
  assignee_team: ApiTeam | null;
  resolve_doer: null;
  milestone: ApiMilestone | null;
  old_milestone: ApiMilestone | null;
  tracked_time: null;
  dependent_issue: ApiIssue | null;
  ref_issue: ApiIssue | null;
  ref_comment: null;
}

const refActions = ['', 'closes', 'reopens', 'neutered'];

/** Gitea's ToTimelineComment. */
export function renderTimelineComment(view: TimelineView, ctx: RenderContext): ApiTimelineComment {
  const { comment, issue, repo } = view;
  const issueUrl = issueHtmlUrl(repo, issue, ctx);
  return {
    id: comment.id,
    type: commentTypeNames[comment.type] ?? String(comment.type),
    user: renderPerson(view.poster, ctx),
    body: comment.content,
    created_at: iso(comment.created),
    updated_at: iso(comment.updated),
    html_url: `${issueUrl}#issuecomment-${comment.id}`,
    issue_url: issue.is_pull ? '' : issueUrl,
    pull_request_url: issue.is_pull ? issueUrl : '',
    old_project_id: 0,
    project_id: 0,
    old_title: comment.old_title,
    new_title: comment.new_title,
    old_ref: comment.old_ref,
    new_ref: comment.new_ref,
    ref_action: refActions[comment.ref_action] ?? '',
    ref_commit_sha: comment.commit_sha,
    review_id: comment.review_id ?? 0,
    removed_assignee: comment.removed_assignee,
    label: view.label ? renderIssueLabel(view.label, repo, ctx) : null,
    assignee: view.assignee ? renderUser(view.assignee, null, ctx) : null,
    assignee_team: view.assigneeTeam ? renderTeam(view.assigneeTeam, null, ctx) : null,
    resolve_doer: null,
    milestone: view.milestone ? renderMilestone(view.milestone) : null,
    old_milestone: view.oldMilestone ? renderMilestone(view.oldMilestone) : null,
    tracked_time: null,
    dependent_issue: view.dependentIssue ? renderIssue(view.dependentIssue, ctx) : null,
    ref_issue: view.refIssue ? renderIssue(view.refIssue, ctx) : null,
    ref_comment: null,
  };
}
