import { isWorkInProgress, pullStatus } from '../../db/models/pulls/pull-row.js';
import type { PullView } from '../../db/views/pulls.js';
import { issueHtmlUrl, renderIssue } from './issue.js';
import { renderRepository, type ApiRepository } from './repository.js';
import { iso } from './time.js';
import { renderUser, type ApiUser, type RenderContext } from './user.js';
import type { UserRow } from '../../db/models/users/user-row.js';
import type { ApiIssue } from './issue.js';

/** The PRBranchInfo definition of the Gitea 1.22 API description. */
export interface ApiPRBranchInfo {
  label: string;
  ref: string;
  sha: string;
  repo_id: number;
  repo: ApiRepository | null;
}

/** The PullRequest definition of the Gitea 1.22 API description. */
export interface ApiPullRequest {
  id: number;
  url: string;
  number: number;
  user: ApiUser;
  title: string;
  body: string;
  labels: ApiIssue['labels'];
  milestone: ApiIssue['milestone'];
  assignee: ApiUser | null;
  assignees: ApiUser[] | null;
  requested_reviewers: ApiUser[] | null;
  state: 'open' | 'closed';
  draft: boolean;
  is_locked: boolean;
  comments: number;
  review_comments: number;
  additions: number;
  deletions: number;
  changed_files: number;
  html_url: string;
  diff_url: string;
  patch_url: string;
  mergeable: boolean;
  merged: boolean;
  merged_at: string | null;
  merge_commit_sha: string | null;
  merged_by: ApiUser | null;
  allow_maintainer_edit: boolean;
  base: ApiPRBranchInfo;
  head: ApiPRBranchInfo;
  merge_base: string;
  due_date: string | null;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  pin_order: number;
}

/** Gitea's PullRequest.Mergeable: not while it is being checked, conflicts, fails, or is a work in progress. */
export function isMergeable(view: Pick<PullView, 'pull'> & { issue: { issue: { title: string } } }): boolean {
  const { status } = view.pull;
  return status !== pullStatus.checking && status !== pullStatus.conflict && status !== pullStatus.error && !isWorkInProgress(view.issue.issue.title);
}

/** Gitea's ToAPIPullRequest, as `viewer` sees it. */
export function renderPull(view: PullView, viewer: UserRow | null, ctx: RenderContext): ApiPullRequest {
  const { pull } = view;
  const issue = renderIssue(view.issue, ctx);
  const htmlUrl = issueHtmlUrl(view.issue.repo, view.issue.issue, ctx);
  const base = renderRepository(view.base, viewer, ctx);
  const reviewers = view.requestedReviewers.map((user) => renderUser(user, viewer, ctx));
  return {
    id: pull.id,
    url: htmlUrl,
    number: pull.index,
    user: issue.user,
    title: issue.title,
    body: issue.body,
    labels: issue.labels,
    milestone: issue.milestone,
    assignee: issue.assignee,
    assignees: issue.assignees,
    requested_reviewers: reviewers.length ? reviewers : null,
    state: issue.state,
    draft: isWorkInProgress(issue.title),
    is_locked: issue.is_locked,
    comments: issue.comments,
    review_comments: view.reviewComments,
    additions: view.stats.additions,
    deletions: view.stats.deletions,
    changed_files: view.stats.files,
    html_url: htmlUrl,
    diff_url: `${htmlUrl}.diff`,
    patch_url: `${htmlUrl}.patch`,
    mergeable: isMergeable(view),
    merged: pull.has_merged,
    merged_at: pull.has_merged && pull.merged_at ? iso(pull.merged_at) : null,
    merge_commit_sha: pull.has_merged ? pull.merged_commit_id : null,
    merged_by: pull.has_merged && view.merger ? renderUser(view.merger, viewer, ctx) : null,
    allow_maintainer_edit: pull.allow_maintainer_edit,
    base: { label: pull.base_branch, ref: pull.base_branch, sha: view.baseSha, repo_id: pull.base_repo_id, repo: base },
    head: {
      label: pull.head_branch,
      ref: view.headBranchExists ? pull.head_branch : `refs/pull/${pull.index}/head`,
      sha: view.headSha,
      repo_id: view.head ? view.head.repo.id : -1,
      repo: view.head ? renderRepository(view.head, viewer, ctx) : null,
    },
    merge_base: pull.merge_base,
    due_date: issue.due_date,
    created_at: issue.created_at,
    updated_at: issue.updated_at,
    closed_at: issue.closed_at,
    pin_order: issue.pin_order,
  };
}
