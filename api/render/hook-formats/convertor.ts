import type {
  ApiCreatePayload, ApiDeletePayload, ApiForkPayload, ApiPushPayload, ApiReleasePayload, ApiRepositoryPayload, ApiWikiPayload, HookPayload,
} from '../hook-payloads.js';
import type { ApiIssueCommentPayload, ApiIssuePayload, ApiPackagePayload } from '../issue-hook-payloads.js';
import type { ApiPullRequestPayload } from '../pull-payloads.js';

/** The review event types Gitea's convertors hand their Review method. */
export type ReviewEventType = 'pull_request_review_approved' | 'pull_request_review_rejected' | 'pull_request_review_comment';

/** What a formatter needs besides the payload: the instance's address and the hook's own settings (its meta). */
export interface FormatContext {
  appUrl: string;
  meta: Record<string, string>;
}

/** Gitea's payloadConvertor: one message of the hook type's format per kind of payload. */
export interface Convertor<T> {
  create(p: ApiCreatePayload): T;
  delete(p: ApiDeletePayload): T;
  fork(p: ApiForkPayload): T;
  push(p: ApiPushPayload): T;
  repository(p: ApiRepositoryPayload): T;
  release(p: ApiReleasePayload): T;
  issue(p: ApiIssuePayload): T;
  issueComment(p: ApiIssueCommentPayload): T;
  package(p: ApiPackagePayload): T;
  pullRequest(p: ApiPullRequestPayload): T;
  review(p: ApiPullRequestPayload, event: ReviewEventType): T;
  wiki(p: ApiWikiPayload): T;
}

/** Gitea's newPayload: the convertor's message for a payload, by event type. */
export function convert<T>(c: Convertor<T>, payload: HookPayload): T {
  switch (payload.type) {
    case 'create': return c.create(payload.body);
    case 'delete': return c.delete(payload.body);
    case 'fork': return c.fork(payload.body);
    case 'push': return c.push(payload.body);
    case 'repository': return c.repository(payload.body);
    case 'release': return c.release(payload.body);
    case 'issues': case 'issue_assign': case 'issue_label': case 'issue_milestone': return c.issue(payload.body);
    case 'issue_comment': case 'pull_request_comment': return c.issueComment(payload.body);
    case 'package': return c.package(payload.body);
    case 'pull_request': case 'pull_request_assign': case 'pull_request_label': case 'pull_request_milestone': case 'pull_request_sync':
    case 'pull_request_review_request':
      return c.pullRequest(payload.body);
    case 'pull_request_review_approved': case 'pull_request_review_rejected': case 'pull_request_review_comment':
      return c.review(payload.body, payload.type);
    case 'wiki': return c.wiki(payload.body);
  }
}

/** Go's json.MarshalIndent(payload, "", "  "). */
export const indentJson = (value: unknown): string => JSON.stringify(value, null, 2);
