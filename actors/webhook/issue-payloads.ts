import type { Queryable } from '../../db/data-source.js';
import type { EventKind, KindAndPayload } from '../../db/events/catalogue.js';
import type { EventSnapshot } from '../../db/events/snapshot.js';
import { findIssueById } from '../../db/models/issues/issues.js';
import type { CommentRow } from '../../db/models/issues/issue-row.js';
import { accessModes, type AccessMode, type RepoRow } from '../../db/models/repos/repo-row.js';
import type { UserRow } from '../../db/models/users/user-row.js';
import { accessLevel, repoViewWithMode } from '../../db/views/hook-sources.js';
import { loadCommentViews, loadIssueView, type IssueView } from '../../db/views/issues.js';
import type { RepoView } from '../../db/views/repo.js';
import {
  renderIssueCommentPayload, renderIssuePayload, type ApiChanges, type IssueHookAction,
} from '../../api/render/issue-hook-payloads.js';
import type { HookPayload } from '../../api/render/hook-payloads.js';
import type { RenderContext } from '../../api/render/user.js';
import type { GitStore } from '../../db/git/store.js';
import { pullHookPayload, type PullPayloadType } from '../pull-hooks.js';

/** The issue and comment kinds that send a webhook (Gitea's webhook notifier methods for issues). */
export type IssueHookKind = Extract<
  EventKind,
  | 'issue.opened' | 'issue.edited' | 'issue.closed' | 'issue.reopened' | 'issue.labelled' | 'issue.unlabelled'
  | 'issue.assigned' | 'issue.unassigned' | 'issue.milestoned' | 'issue.demilestoned'
  | 'comment.created' | 'comment.edited' | 'comment.deleted'
>;

/** What an issue event's payload is rendered from. */
export interface IssueHookSource<K extends IssueHookKind = IssueHookKind> {
  event: KindAndPayload<K>;
  repo: RepoRow;
  doer: UserRow;
  snapshot: EventSnapshot;
}

type IssuePayloadType = Extract<HookPayload['type'], 'issues' | 'issue_assign' | 'issue_label' | 'issue_milestone'>;

/** Whose access the payload's `repository.permissions` shows, as Gitea's notifier picks it per method. */
type Perspective = 'poster' | 'doer' | 'none' | 'owner';

interface IssueRule {
  type: IssuePayloadType;
  action: IssueHookAction;
  perspective: Perspective;
  /** Where Gitea's notifier shows a pull request's permissions otherwise than an issue's. */
  pullPerspective?: Perspective;
  changes?: ApiChanges;
  commitId?: string;
}

/**
 * Gitea's webhook notifier for an issue event: the event type, action and whose permissions the repository shows;
 * null when Gitea sends nothing (an edit of the due date only).
 */
function issueRule(event: KindAndPayload<Exclude<IssueHookKind, `comment.${string}`>>): IssueRule | null {
  switch (event.kind) {
    case 'issue.opened':
      return { type: 'issues', action: 'opened', perspective: 'poster' };
    case 'issue.edited': {
      // one event per changed field, as Gitea sends them; it sends nothing for the ref or the due date
      const { title, body } = event.payload.previous;
      const changes: ApiChanges | null = title !== undefined ? { title: { from: title } } : body !== undefined ? { body: { from: body } } : null;
      return changes ? { type: 'issues', action: 'edited', perspective: 'poster', changes } : null;
    }
    case 'issue.closed':
    case 'issue.reopened':
      return {
        type: 'issues', action: event.kind === 'issue.closed' ? 'closed' : 'reopened', perspective: 'poster', commitId: event.payload.commit_id ?? '',
      };
    case 'issue.labelled':
      return { type: 'issue_label', action: 'label_updated', perspective: 'none', pullPerspective: 'owner' };
    case 'issue.unlabelled':
      if (event.payload.with_added) return null;
      return event.payload.cleared
        ? { type: 'issue_label', action: 'label_cleared', perspective: 'poster' }
        : { type: 'issue_label', action: 'label_updated', perspective: 'none', pullPerspective: 'owner' };
    case 'issue.assigned':
      return { type: 'issue_assign', action: 'assigned', perspective: 'doer' };
    case 'issue.unassigned':
      return { type: 'issue_assign', action: 'unassigned', perspective: 'doer' };
    case 'issue.milestoned':
      return { type: 'issue_milestone', action: 'milestoned', perspective: 'doer' };
    case 'issue.demilestoned':
      return { type: 'issue_milestone', action: 'demilestoned', perspective: 'doer' };
  }
}

async function modeOf(db: Queryable, repo: RepoRow, user: UserRow | null): Promise<AccessMode> {
  return user ? accessLevel(db, user, repo) : accessModes.none;
}

async function repoAs(db: Queryable, repo: RepoRow, user: UserRow | null): Promise<RepoView> {
  return repoViewWithMode(db, repo, await modeOf(db, repo, user));
}

/** The event type a pull request's issue event goes out as (Gitea's HookEventPullRequest…). */
const pullTypes: Record<IssuePayloadType, PullPayloadType> = {
  issues: 'pull_request',
  issue_assign: 'pull_request_assign',
  issue_label: 'pull_request_label',
  issue_milestone: 'pull_request_milestone',
};

async function loadIssue(db: Queryable, repo: RepoRow, issueId: number): Promise<IssueView | null> {
  const issue = await findIssueById(db, issueId);
  return issue ? loadIssueView(db, issue, { id: repo.id, name: repo.name, owner_name: repo.owner_name, owner_id: repo.owner_id }) : null;
}

function isCommentEvent(event: KindAndPayload<IssueHookKind>): event is KindAndPayload<Extract<IssueHookKind, `comment.${string}`>> {
  return event.kind.startsWith('comment.');
}

/**
 * The webhook payload of an issue or comment event, rendered with the API's renderers as Gitea's notifier does.
 * Issue events of pull requests send Gitea's PullRequestPayload as pull_request, pull_request_assign,
 * pull_request_label or pull_request_milestone (the pull request's opening is the pull request fan-out's);
 * comments on pull requests go out here as `pull_request_comment` with `is_pull`, as in Gitea.
 */
export async function issueHookPayload(
  deps: { db: Queryable; git: GitStore }, ctx: RenderContext, source: IssueHookSource,
): Promise<HookPayload | null> {
  const { db } = deps;
  const { event, repo, doer } = source;
  const issue = await loadIssue(db, repo, event.payload.issue_id);
  if (!issue) return null;
  if (isCommentEvent(event)) return commentPayload(db, ctx, source, event, issue);
  const rule = issueRule(event as KindAndPayload<Exclude<IssueHookKind, `comment.${string}`>>);
  if (!rule) return null;
  const perspective = issue.issue.is_pull ? rule.pullPerspective ?? rule.perspective : rule.perspective;
  const viewer = perspective === 'doer' ? doer : perspective === 'poster' ? issue.poster : null;
  if (issue.issue.is_pull) {
    if (rule.action === 'opened') return null;
    const mode = perspective === 'owner' ? accessModes.owner : await modeOf(db, repo, viewer);
    return pullHookPayload(deps, ctx, {
      repo, doer, issueId: issue.issue.id, type: pullTypes[rule.type], action: rule.action, mode, changes: rule.changes, commitId: rule.commitId,
    });
  }
  const repoView = await repoAs(db, repo, viewer);
  return {
    type: rule.type,
    body: renderIssuePayload(rule.action, issue, repoView, doer, ctx, { changes: rule.changes, commitId: rule.commitId }),
  };
}

async function commentPayload(
  db: Queryable, ctx: RenderContext, source: IssueHookSource, event: KindAndPayload<Extract<IssueHookKind, `comment.${string}`>>, issue: IssueView,
): Promise<HookPayload | null> {
  const { repo, doer, snapshot } = source;
  let row: CommentRow | undefined;
  if (event.kind === 'comment.deleted') row = snapshot.comment;
  else [row] = await db.query<CommentRow>('SELECT * FROM comment WHERE id = $1', [event.payload.comment_id]);
  if (!row) return null;
  const issueRepo = issue.repo;
  const [comment] = await loadCommentViews(db, [row], new Map([[issue.issue.id, issue.issue]]), issueRepo);
  const repoView = await repoAs(db, repo, doer);
  const action = event.kind === 'comment.created' ? 'created' : event.kind === 'comment.edited' ? 'edited' : 'deleted';
  const changes = event.kind === 'comment.edited' ? { body: { from: event.payload.previous.body } } : undefined;
  const body = renderIssueCommentPayload(action, issue, comment, repoView, doer, ctx, changes);
  return issue.issue.is_pull ? { type: 'pull_request_comment', body } : { type: 'issue_comment', body };
}
