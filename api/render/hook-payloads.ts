import type { HookEventType } from '../../db/models/hooks/hook-events.js';
import type { UserRow } from '../../db/models/users/user-row.js';
import type { PushCommitView, PushView } from '../../db/views/hook-sources.js';
import type { ReleaseView } from '../../db/views/releases.js';
import type { RepoView } from '../../db/views/repo.js';
import { gitTime, pathEscapeSegments, renderVerification, type ApiPayloadCommit, type ApiPayloadUser, type ApiVerification } from './git.js';
import type { ApiIssueCommentPayload, ApiIssuePayload, ApiPackagePayload } from './issue-hook-payloads.js';
import { renderRelease, type ApiRelease } from './release.js';
import { renderRepository, type ApiRepository } from './repository.js';
import { renderUser, type ApiUser, type RenderContext } from './user.js';

export interface ApiPushPayload {
  ref: string;
  before: string;
  after: string;
  compare_url: string;
  commits: ApiPayloadCommit[];
  total_commits: number;
  head_commit: ApiPayloadCommit | null;
  repository: ApiRepository;
  pusher: ApiUser;
  sender: ApiUser;
}

export interface ApiCreatePayload {
  sha: string;
  ref: string;
  ref_type: 'branch' | 'tag';
  repository: ApiRepository;
  sender: ApiUser;
}

export interface ApiDeletePayload {
  ref: string;
  ref_type: 'branch' | 'tag';
  pusher_type: 'user';
  repository: ApiRepository;
  sender: ApiUser;
}

export interface ApiForkPayload {
  forkee: ApiRepository;
  repository: ApiRepository;
  sender: ApiUser;
}

export interface ApiRepositoryPayload {
  action: 'created' | 'deleted';
  repository: ApiRepository;
  organization: ApiUser;
  sender: ApiUser;
}

export interface ApiReleasePayload {
  action: 'published' | 'updated' | 'deleted';
  release: ApiRelease;
  repository: ApiRepository;
  sender: ApiUser;
}

export interface ApiWikiPayload {
  action: 'created' | 'edited' | 'deleted';
  repository: ApiRepository;
  sender: ApiUser;
  page: string;
  comment: string;
}

/** Every payload Hearth sends, tagged with its webhook event type; formatters for other hook types read them. */
export type HookPayload =
  | { type: 'push'; body: ApiPushPayload }
  | { type: 'create'; body: ApiCreatePayload }
  | { type: 'delete'; body: ApiDeletePayload }
  | { type: 'fork'; body: ApiForkPayload }
  | { type: 'repository'; body: ApiRepositoryPayload }
  | { type: 'release'; body: ApiReleasePayload }
  | { type: 'wiki'; body: ApiWikiPayload }
  | { type: 'issues' | 'issue_assign' | 'issue_label' | 'issue_milestone'; body: ApiIssuePayload }
  | { type: 'issue_comment' | 'pull_request_comment'; body: ApiIssueCommentPayload }
  | { type: 'package'; body: ApiPackagePayload }
  | {
    type: 'pull_request' | 'pull_request_sync' | 'pull_request_assign' | 'pull_request_label' | 'pull_request_milestone'
      | 'pull_request_review_approved' | 'pull_request_review_rejected' | 'pull_request_review_comment'
      | 'pull_request_review_request';
    body: import('./pull-payloads.js').ApiPullRequestPayload;
  };

/** The webhook event type of a payload, checked against Gitea's list at compile time. */
export type PayloadEventType = HookPayload['type'] & HookEventType;

/** Users in payloads appear as Gitea's notifier shows them: to nobody in particular. */
const user = (row: UserRow, ctx: RenderContext): ApiUser => renderUser(row, null, ctx);

/** Short names of refs as Gitea's RefName.ShortName: `refs/heads/x` → `x`, `refs/tags/v1` → `v1`. */
export function refShortName(ref: string): string {
  for (const prefix of ['refs/heads/', 'refs/tags/', 'refs/remotes/']) if (ref.startsWith(prefix)) return ref.slice(prefix.length);
  return ref;
}

export function refType(ref: string): 'branch' | 'tag' {
  return ref.startsWith('refs/tags/') ? 'tag' : 'branch';
}

function renderPayloadCommit(view: PushCommitView, repoHtml: string): ApiPayloadCommit {
  const { commit } = view;
  const pick = (status: string): string[] => view.files.filter((f) => f.status === status).map((f) => f.filename);
  return {
    id: commit.oid,
    message: commit.message,
    url: `${repoHtml}/commit/${encodeURIComponent(commit.oid)}`,
    author: { name: commit.author.name, email: commit.author.email, username: view.authorUsername },
    committer: { name: commit.committer.name, email: commit.committer.email, username: view.committerUsername },
    verification: null,
    timestamp: gitTime(commit.author),
    added: pick('added'),
    removed: pick('removed'),
    modified: pick('modified'),
  };
}

/** Gitea's webhook PushCommits: the repository with owner permissions, the pusher as sender. */
export function renderPushPayload(push: PushView, repo: RepoView, pusher: UserRow, ctx: RenderContext): ApiPushPayload {
  const html = `${ctx.rootUrl}${repo.owner.name}/${repo.repo.name}`;
  const compare = `${ctx.rootUrl}${encodeURIComponent(repo.owner.name)}/${encodeURIComponent(repo.repo.name)}/compare/${pathEscapeSegments(push.compareFrom)}...${pathEscapeSegments(push.after)}`;
  return {
    ref: push.ref,
    before: push.before,
    after: push.after,
    compare_url: compare,
    commits: push.commits.map((c) => renderPayloadCommit(c, html)),
    total_commits: push.totalCommits,
    head_commit: push.head ? renderPayloadCommit(push.head, html) : null,
    repository: renderRepository(repo, null, ctx),
    pusher: user(pusher, ctx),
    sender: user(pusher, ctx),
  };
}

export function renderCreatePayload(ref: string, sha: string, repo: RepoView, doer: UserRow, ctx: RenderContext): ApiCreatePayload {
  return { sha, ref: refShortName(ref), ref_type: refType(ref), repository: renderRepository(repo, null, ctx), sender: user(doer, ctx) };
}

export function renderDeletePayload(ref: string, repo: RepoView, doer: UserRow, ctx: RenderContext): ApiDeletePayload {
  return { ref: refShortName(ref), ref_type: refType(ref), pusher_type: 'user', repository: renderRepository(repo, null, ctx), sender: user(doer, ctx) };
}

/** Gitea sends the fork event to the base repository's hooks, with the base as `forkee` and the fork as `repository`. */
export function renderForkPayload(base: RepoView, fork: RepoView, doer: UserRow, ctx: RenderContext): ApiForkPayload {
  return { forkee: renderRepository(base, null, ctx), repository: renderRepository(fork, null, ctx), sender: user(doer, ctx) };
}

export function renderRepositoryPayload(action: 'created' | 'deleted', repo: RepoView, doer: UserRow, ctx: RenderContext): ApiRepositoryPayload {
  return { action, repository: renderRepository(repo, null, ctx), organization: user(repo.owner, ctx), sender: user(doer, ctx) };
}

export function renderReleasePayload(
  action: 'published' | 'updated' | 'deleted', release: ReleaseView, repo: RepoView, doer: UserRow, ctx: RenderContext,
): ApiReleasePayload {
  return {
    action,
    release: renderRelease(release, { repo: repo.repo, owner: repo.owner }, ctx),
    repository: renderRepository(repo, null, ctx),
    sender: user(doer, ctx),
  };
}

/** Gitea's WikiPayload: the page's web path, the commit message as the comment, the repository with owner permissions. */
export function renderWikiPayload(
  action: 'created' | 'edited' | 'deleted', page: string, comment: string, repo: RepoView, doer: UserRow, ctx: RenderContext,
): ApiWikiPayload {
  return { action, repository: renderRepository(repo, null, ctx), sender: user(doer, ctx), page, comment };
}

/**
 * Gitea's TestHook payload: a push of the chosen commit onto itself (`before` = `after`), the commit as
 * ToPayloadCommit shows it (with its verification, without file lists), the repository without permissions.
 */
export function renderTestPushPayload(ref: string, head: PushCommitView, repo: RepoView, doer: UserRow, ctx: RenderContext): ApiPushPayload {
  const html = `${ctx.rootUrl}${repo.owner.name}/${repo.repo.name}`;
  const commit: ApiPayloadCommit = {
    ...renderPayloadCommit(head, html),
    verification: renderVerification(head.commit),
    added: null,
    removed: null,
    modified: null,
  };
  const sha = head.commit.oid;
  return {
    ref,
    before: sha,
    after: sha,
    compare_url: `${ctx.rootUrl}${encodeURIComponent(repo.owner.name)}/${encodeURIComponent(repo.repo.name)}/compare/${sha}...${sha}`,
    commits: [commit],
    total_commits: 1,
    head_commit: commit,
    repository: renderRepository(repo, null, ctx),
    pusher: user(doer, ctx),
    sender: user(doer, ctx),
  };
}
