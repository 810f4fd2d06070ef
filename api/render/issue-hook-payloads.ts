import type { UserRow } from '../../db/models/users/user-row.js';
import type { CommentView, IssueView } from '../../db/views/issues.js';
import type { PackageView } from '../../db/views/packages.js';
import type { RepoView } from '../../db/views/repo.js';
import { renderComment, renderIssue, type ApiComment, type ApiIssue } from './issue.js';
import { renderPackage, type ApiPackage } from './package.js';
import { renderRepository, type ApiRepository } from './repository.js';
import { renderUser, type ApiUser, type RenderContext } from './user.js';

/** Gitea's HookIssueAction values an issue payload carries. */
export type IssueHookAction =
  | 'opened' | 'edited' | 'closed' | 'reopened' | 'assigned' | 'unassigned' | 'label_updated' | 'label_cleared'
  | 'milestoned' | 'demilestoned';

/** Gitea's ChangesPayload: the old value of each changed field. */
export interface ApiChanges {
  title?: { from: string };
  body?: { from: string };
  ref?: { from: string };
}

/** Gitea's IssuePayload (events issues, issue_assign, issue_label, issue_milestone). */
export interface ApiIssuePayload {
  action: IssueHookAction;
  number: number;
  changes?: ApiChanges;
  issue: ApiIssue;
  repository: ApiRepository;
  sender: ApiUser;
  commit_id: string;
}

/** Gitea's IssueCommentPayload (issue_comment, and pull_request_comment on a pull request). */
export interface ApiIssueCommentPayload {
  action: 'created' | 'edited' | 'deleted';
  issue: ApiIssue;
  comment: ApiComment;
  changes?: ApiChanges;
  repository: ApiRepository;
  sender: ApiUser;
  is_pull: boolean;
}

/** Gitea's PackagePayload: Gitea's notifier leaves repository and organization empty. */
export interface ApiPackagePayload {
  action: 'created' | 'deleted';
  repository: ApiRepository | null;
  package: ApiPackage;
  organization: ApiUser | null;
  sender: ApiUser;
}

const person = (row: UserRow, ctx: RenderContext): ApiUser => renderUser(row, null, ctx);

/** Gitea's notifier: the issue as ToAPIIssue renders it, the repository with the access mode given in `repo`. */
export function renderIssuePayload(
  action: IssueHookAction, issue: IssueView, repo: RepoView, doer: UserRow, ctx: RenderContext,
  extra: { changes?: ApiChanges; commitId?: string } = {},
): ApiIssuePayload {
  return {
    action,
    number: issue.issue.index,
    ...(extra.changes ? { changes: extra.changes } : {}),
    issue: renderIssue(issue, ctx),
    repository: renderRepository(repo, null, ctx),
    sender: person(doer, ctx),
    commit_id: extra.commitId ?? '',
  };
}

export function renderIssueCommentPayload(
  action: 'created' | 'edited' | 'deleted', issue: IssueView, comment: CommentView, repo: RepoView, doer: UserRow, ctx: RenderContext,
  changes?: ApiChanges,
): ApiIssueCommentPayload {
  return {
    action,
    issue: renderIssue(issue, ctx),
    comment: renderComment(comment, null, ctx),
    ...(changes ? { changes } : {}),
    repository: renderRepository(repo, null, ctx),
    sender: person(doer, ctx),
    is_pull: issue.issue.is_pull,
  };
}

export function renderPackagePayload(action: 'created' | 'deleted', pkg: PackageView, doer: UserRow, ctx: RenderContext): ApiPackagePayload {
  return { action, repository: null, package: renderPackage(pkg, doer, ctx), organization: null, sender: person(doer, ctx) };
}
