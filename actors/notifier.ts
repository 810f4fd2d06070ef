import { batched, batchedPerDb } from '../db/batch.js';
import { inTx, type Queryable } from '../db/data-source.js';
import { parseEvent, type EventKind, type EventPayload, type KindAndPayload } from '../db/events/catalogue.js';
import { reviveSnapshot, type EventSnapshot } from '../db/events/snapshot.js';
import { branchPasses, hookWants } from '../db/models/hooks/hook-events.js';
import { insertHookTasks, insertHookTasksTogether, type ClaimedDelivery, type NewHookTask } from '../db/models/hooks/hook-tasks.js';
import { activeHooksFor } from '../db/models/hooks/webhooks.js';
import { accessModes, repoRowFromJson, type AccessMode, type RepoRow } from '../db/models/repos/repo-row.js';
import { findRepoById } from '../db/models/repos/repos.js';
import { findUsersByIds } from '../db/models/users/users.js';
import { findIssueById } from '../db/models/issues/issues.js';
import { claimEventMails, upsertThreads, type ThreadChange } from '../db/models/notifications/notifications.js';
import { loadIssueAudience, type AudienceMember } from '../db/views/issue-audience.js';
import { renderIssueMail, type IssueMailAction } from '../api/render/issue-mail.js';
import { enqueue, enqueueMany } from '../jobs/queue.js';
import type { MailPayload } from '../jobs/catalogue.js';
import { userRowFromJson, userTypes, type UserRow } from '../db/models/users/user-row.js';
import { accessLevel, loadPushView, repoViewWithMode, repoViewWithOwner } from '../db/views/hook-sources.js';
import { anonymousAccessOf, anonymousAccessSql, type AccessColumns, type OwnerAndAccess } from '../db/models/access.js';
import type { RepoView } from '../db/views/repo.js';
import { findReleaseView, loadReleaseView } from '../db/views/releases.js';
import { formatPayload } from '../api/render/hook-formats/index.js';
import {
  renderCreatePayload, renderDeletePayload, renderForkPayload, renderPushPayload, renderReleasePayload, renderRepositoryPayload,
  refShortName, type HookPayload, renderWikiPayload,
} from '../api/render/hook-payloads.js';
import { renderPackagePayload } from '../api/render/issue-hook-payloads.js';
import { loadPackageViews } from '../db/views/packages.js';
import { findPackageVersion } from '../db/models/packages/packages.js';
import { issueHookPayload, type IssueHookKind } from './webhook/issue-payloads.js';
import type { Actor, ActorDeps } from './actor.js';
import { reviewHooks, reviewRequestHooks } from './review-hooks.js';
import { pullHooks } from './pull-hooks.js';
import { reactionJobs } from './reactions.js';

/** A stored domain event, typed by its kind. */
interface StoredEvent<K extends EventKind = EventKind> {
  id: number;
  kind: K;
  payload: EventPayload<K>;
  repo: RepoRow | null;
  /** The repository's owner, loaded with the event (see repoView). */
  repoOwner: OwnerAndAccess | null;
  doer: UserRow | null;
  snapshot: EventSnapshot;
}

/** The event's repository as a payload shows it, with the permissions of `mode`: its owner came with the event. */
function repoView(db: Queryable, { repo, repoOwner }: StoredEvent, mode: AccessMode): Promise<RepoView> {
  if (!repo) throw new Error('the event has no repository');
  return repoOwner ? repoViewWithOwner(db, repo, repoOwner, mode) : repoViewWithMode(db, repo, mode);
}

/** One payload to deliver: the repository whose hooks (with its owner's and the system's) receive it, and the branch filters apply to. */
interface Delivery {
  payload: HookPayload;
  /** Null for an event of an owner (a package not linked to a repository): its owner's and the system's hooks. */
  repo: RepoRow | null;
  ownerId?: number;
  branch: string | null;
}

/**
 * Who an issue event notifies (Gitea's notification and mail notifiers): everyone following the issue, or only the
 * user it names (an assignee); threads always, mail as Gitea sends it.
 */
interface NotificationRule<K extends EventKind> {
  receiver?(payload: EventPayload<K>): number;
  commentId?(payload: EventPayload<K>): number;
  /** Only when the payload says so (an edit notifies when the title changed). */
  when?(payload: EventPayload<K>): boolean;
  mail: IssueMailAction['kind'] | null;
}

/** How one kind of event fans out: the webhook payloads it causes (none for most account events) and whom it notifies. */
interface Fanout<K extends EventKind> {
  hooks(event: StoredEvent<K>, deps: ActorDeps): Promise<Delivery[]>;
  notification?: NotificationRule<K>;
}

const noHooks = async (): Promise<Delivery[]> => [];
const none: Fanout<EventKind> = { hooks: noHooks };
/** An issue or comment event: its webhook payload as Gitea's notifier builds it, and notifications as `rule` says. */
const issueEvent = <K extends IssueHookKind>(notification?: NotificationRule<K>): Fanout<K> => ({
  async hooks({ kind, payload, repo, doer, snapshot }, { db, git, config }) {
    if (!repo || !doer) return [];
    const event = { kind, payload } as KindAndPayload<IssueHookKind>;
    const hookPayload = await issueHookPayload({ db, git }, config, { event, repo, doer, snapshot });
    return hookPayload ? [{ payload: hookPayload, repo, branch: null }] : [];
  },
  notification,
});
const zeroSha = /^0+$/;

/** A release event renders the release as it is now, or as it was when it was deleted. */
function releaseFanout(action: 'published' | 'updated' | 'deleted'): Fanout<'release.published' | 'release.updated' | 'release.deleted'> {
  return {
    async hooks(event, { db, config }) {
      const { repo, doer, payload, snapshot } = event;
      if (!repo || !doer) return [];
      const [release, view] = await Promise.all([
        snapshot.release ? loadReleaseView(db, snapshot.release) : findReleaseView(db, payload.release_id),
        accessLevel(db, doer, repo).then((mode) => repoView(db, event, mode)),
      ]);
      if (!release) return [];
      return [{ payload: { type: 'release', body: renderReleasePayload(action, release, view, doer, config) }, repo, branch: null }];
    },
  };
}

/** Gitea's webhook notifier sends wiki changes to the repository's hooks listening to `wiki`. */
function wikiFanout(action: 'created' | 'edited' | 'deleted'): Fanout<'wiki.created' | 'wiki.edited' | 'wiki.deleted'> {
  return {
    async hooks(event, { db, config }) {
      const { repo, doer, payload } = event;
      if (!repo || !doer) return [];
      const view = await repoView(db, event, accessModes.owner);
      return [{ payload: { type: 'wiki', body: renderWikiPayload(action, payload.page, payload.comment, view, doer, config) }, repo, branch: null }];
    },
  };
}

const repositoryCreated: Fanout<'repository.created' | 'repository.migrated'> = {
  async hooks(event, { db, config }) {
    const { repo, doer } = event;
    if (!repo || !doer) return [];
    const view = await repoView(db, event, accessModes.owner);
    return [{ payload: { type: 'repository', body: renderRepositoryPayload('created', view, doer, config) }, repo, branch: null }];
  },
};

/**
 * Every event kind with its fan-out, checked exhaustively: a kind added to the catalogue without an entry here
 * fails the type check. Account and organization events reach no webhook (Gitea sends none for them).
 */
const fanouts: { [K in EventKind]: Fanout<K> } = {
  // Gitea's notifyPackage: the package's repository (when linked), its owner's and the system's hooks.
  package: {
    async hooks({ payload, doer, snapshot }, { db, config }) {
      if (!doer) return [];
      const rows = payload.action === 'deleted' ? snapshot.package : await findPackageVersion(db, payload.package_id, payload.version_id);
      const owner = (await findUsersByIds(db, [payload.owner_id])).get(payload.owner_id);
      if (!rows || !owner) return [];
      const [view] = await loadPackageViews(db, owner, [rows]);
      const repo = rows.pkg.repo_id ? await findRepoById(db, rows.pkg.repo_id) : null;
      return [{ payload: { type: 'package', body: renderPackagePayload(payload.action, view, doer, config) }, repo, ownerId: owner.id, branch: null }];
    },
  },
  // Gitea sends no webhook for reactions and dependencies, and notifies nobody.
  'issue.reaction_added': none,
  'issue.reaction_removed': none,
  'issue.dependency_added': none,
  'issue.dependency_removed': none,
  'user.oauth2_application_created': none,
  'user.oauth2_application_updated': none,
  'user.oauth2_application_deleted': none,
  'user.gpg_key_added': none,
  'user.gpg_key_verified': none,
  'user.gpg_key_removed': none,
  'user.blocked': none,
  'user.unblocked': none,
  'user.public_key_added': none,
  'user.public_key_removed': none,

  'repository.created': repositoryCreated,
  // Gitea's MigrateRepository notifies hooks as a created repository
  'repository.migrated': repositoryCreated,
  'repository.deleted': {
    async hooks({ snapshot, doer }, { db, config }) {
      const repo = snapshot.repository;
      if (!repo || !doer) return [];
      const view = await repoViewWithMode(db, repo, accessModes.owner);
      return [{ payload: { type: 'repository', body: renderRepositoryPayload('deleted', view, doer, config) }, repo, branch: null }];
    },
  },
  'repository.renamed': none,
  'repository.forked': {
    async hooks({ repo: fork, doer, payload }, { db, config }) {
      const base = await findRepoById(db, payload.base_repo_id);
      if (!fork || !doer || !base) return [];
      const [baseView, forkView, ownerView] = await Promise.all([
        repoViewWithMode(db, base, await accessLevel(db, doer, base)),
        repoViewWithMode(db, fork, await accessLevel(db, doer, fork)),
        repoViewWithMode(db, fork, accessModes.owner),
      ]);
      const deliveries: Delivery[] = [{ payload: { type: 'fork', body: renderForkPayload(baseView, forkView, doer, config) }, repo: base, branch: null }];
      if (ownerView.owner.type === userTypes.organization) {
        deliveries.push({ payload: { type: 'repository', body: renderRepositoryPayload('created', ownerView, doer, config) }, repo: fork, branch: null });
      }
      return deliveries;
    },
  },
  'repository.default_branch_changed': none,
  'repository.transfer_pending': none,
  'repository.transfer_rejected': none,
  'repository.transferred': none,
  'repository.collaborator_added': none,
  'repository.collaborator_changed': none,
  'repository.collaborator_removed': none,
  'repository.deploy_key_added': none,
  'repository.deploy_key_removed': none,

  // Gitea: a new ref sends create then push (a tag push lists no commits); a deleted ref sends delete only.
  push: {
    async hooks(event, { db, git, config }) {
      const { repo, doer, payload } = event;
      if (!repo || !doer) return [];
      const branch = payload.ref.startsWith('refs/heads/') ? refShortName(payload.ref) : null;
      if (zeroSha.test(payload.after)) {
        const view = await repoView(db, event, accessModes.none);
        return [{ payload: { type: 'delete', body: renderDeletePayload(payload.ref, view, doer, config) }, repo, branch }];
      }
      const deliveries: Delivery[] = [];
      if (zeroSha.test(payload.before)) {
        const view = await repoView(db, event, accessModes.none);
        deliveries.push({ payload: { type: 'create', body: renderCreatePayload(payload.ref, payload.after, view, doer, config) }, repo, branch });
      }
      const [push, view] = await Promise.all([loadPushView(db, git, repo, payload), repoView(db, event, accessModes.owner)]);
      deliveries.push({ payload: { type: 'push', body: renderPushPayload(push, view, doer, config) }, repo, branch: branch ?? payload.ref });
      return deliveries;
    },
  },
  'branch_protection.created': none,
  'branch_protection.edited': none,
  'branch_protection.deleted': none,
  'commit_status.created': none,

  'release.published': releaseFanout('published'),
  'release.updated': releaseFanout('updated'),
  'release.deleted': releaseFanout('deleted'),

  // Gitea sends no webhook for actions secrets, variables and runner tokens.
  'actions.secret_created': none,
  'actions.secret_updated': none,
  'actions.secret_deleted': none,
  'actions.variable_created': none,
  'actions.variable_updated': none,
  'actions.variable_deleted': none,
  'actions.runner_token_created': none,
  'actions.runner_token_reset': none,

  'issue.opened': issueEvent({ mail: 'opened' }),
  'issue.edited': issueEvent<'issue.edited'>({ when: (p) => p.previous.title !== undefined, mail: null }),
  'issue.closed': issueEvent({ mail: 'closed' }),
  'issue.reopened': issueEvent({ mail: 'reopened' }),
  'issue.deleted': none,
  'issue.labelled': issueEvent(),
  'issue.unlabelled': issueEvent(),
  'issue.assigned': issueEvent<'issue.assigned'>({ receiver: (p) => p.assignee_id, mail: 'assigned' }),
  'issue.unassigned': issueEvent(),
  'issue.milestoned': issueEvent(),
  'issue.demilestoned': issueEvent(),
  'comment.created': issueEvent<'comment.created'>({ commentId: (p) => p.comment_id, mail: 'commented' }),
  'comment.edited': issueEvent(),
  'comment.deleted': issueEvent(),

  'wiki.created': wikiFanout('created'),
  'wiki.edited': wikiFanout('edited'),
  'wiki.deleted': wikiFanout('deleted'),
  // Gitea's review notifications: a verdict reaches the review webhooks and mails and notifies the pull request's
  // followers; a review request reaches the review-request webhooks and notifies the requested user (for a team's
  // request, each member; a team's removal sends nothing).
  'pull_review.approved': { hooks: reviewHooks('pull_request_review_approved'), notification: { commentId: (p) => p.comment_id, mail: 'commented' } },
  'pull_review.rejected': { hooks: reviewHooks('pull_request_review_rejected'), notification: { commentId: (p) => p.comment_id, mail: 'commented' } },
  'pull_review.commented': { hooks: reviewHooks('pull_request_review_comment'), notification: { commentId: (p) => p.comment_id, mail: 'commented' } },
  'pull_review.dismissed': { hooks: noHooks, notification: { commentId: (p) => p.comment_id, mail: null } },
  'pull_review.deleted': none,
  'pull_review.requested': {
    hooks: reviewRequestHooks('review_requested'),
    notification: { receiver: (p) => p.reviewer_id ?? 0, when: (p) => p.reviewer_id !== null, commentId: (p) => p.comment_id, mail: null },
  },
  'pull_review.request_removed': { hooks: reviewRequestHooks('review_request_removed') },
  'auto_merge.scheduled': none,
  'auto_merge.cancelled': none,
  'pull_request.opened': { hooks: pullHooks('opened', 'pull_request'), notification: { mail: 'opened' } },
  'pull_request.edited': { hooks: pullHooks<EventPayload<'pull_request.edited'>>('edited', 'pull_request', (p) => ({ changes: { ref: { from: p.previous.base_branch } } })) },
  'pull_request.merged': { hooks: pullHooks('closed', 'pull_request'), notification: { mail: 'closed' } },
  'pull_request.synchronized': { hooks: pullHooks<EventPayload<'pull_request.synchronized'>>('synchronized', 'pull_request_sync', (p) => ({ commitId: p.after })) },

  'organization.created': none,
  'organization.deleted': none,
  'organization.member_removed': none,
  'team.created': none,
  'team.edited': none,
  'team.deleted': none,
  'team.member_added': none,
  'team.member_removed': none,
  'team.repo_added': none,
  'team.repo_removed': none,
};

interface EventRow extends AccessColumns {
  id: string;
  kind: string;
  payload: unknown;
  snapshot: unknown;
  repo: Record<string, unknown> | null;
  doer: Record<string, unknown> | null;
  access_owner: Record<string, unknown> | null;
}

/**
 * Events by id with their repository and doer, in order, null where missing: the notify jobs of one fetch load theirs
 * in one statement.
 */
const eventRow = batchedPerDb((db: Queryable) => batched(async (ids: number[]) => {
  const rows = await db.query<EventRow>(
    `SELECT e.id, e.kind, e.payload, e.snapshot, row_to_json(r) AS repo, row_to_json(u) AS doer, ${anonymousAccessSql}
       FROM domain_event e LEFT JOIN repository r ON r.id = e.repo_id LEFT JOIN "user" o ON o.id = r.owner_id
       LEFT JOIN "user" u ON u.id = e.doer_id
      WHERE e.id = ANY($1::bigint[])`,
    [ids],
    // PostgreSQL would plan it anew for every event: its plan does not depend on the ids
    { planOnce: true },
  );
  const found = new Map(rows.map((row) => [Number(row.id), row]));
  return ids.map((id) => found.get(id) ?? null);
}));

async function loadEvent(db: Queryable, id: number): Promise<StoredEvent | null> {
  const row = await eventRow(db, id);
  if (!row) return null;
  const parsed = parseEvent(row.kind, row.payload);
  if (!parsed) return null;
  const repo = row.repo ? repoRowFromJson(row.repo) : null;
  return {
    id, ...parsed, repo,
    repoOwner: repo ? anonymousAccessOf(repo, row) : null,
    doer: row.doer ? userRowFromJson(row.doer) : null,
    snapshot: reviveSnapshot(row.snapshot),
  };
}

/**
 * The fan-out of one hook payload: a task for each active hook of the repository, its owner and the system that
 * wants this event type and whose branch filter passes, in each hook's own format.
 */
async function hookTasksFor(db: Queryable, appUrl: string, event: StoredEvent, delivery: Delivery): Promise<NewHookTask[]> {
  const hooks = await activeHooksFor(db, delivery.repo, delivery.ownerId ?? null);
  const tasks: NewHookTask[] = [];
  // hooks of one type and settings get the same body: rendered once
  const bodies = new Map<string, string | null>();
  for (const hook of hooks) {
    if (!hookWants(hook, delivery.payload.type)) continue;
    if (delivery.branch !== null && !branchPasses(hook.branch_filter, delivery.branch)) continue;
    const key = `${hook.type}:${JSON.stringify(hook.meta ?? {})}`;
    if (!bodies.has(key)) bodies.set(key, formatPayload(hook, delivery.payload, appUrl));
    const body = bodies.get(key)!;
    if (body === null) continue;
    tasks.push({ hookId: hook.id, eventId: event.id, repoId: delivery.repo?.id ?? null, eventType: delivery.payload.type, payload: body });
  }
  return tasks;
}

/**
 * Turns one domain event into hook tasks with their delivery jobs (one insert statement each, whatever the number
 * of hooks), in one transaction. Payloads are rendered once per event; a repeated run adds nothing.
 */
export const notifier: Actor<'notify'> = {
  name: 'notifier',
  job: 'notify',
  async handle({ eventId }, deps, job) {
    const event = await loadEvent(deps.db, eventId);
    if (!event) return 'skipped';
    const fanout = fanouts[event.kind] as Fanout<EventKind>;
    const deliveries = await fanout.hooks(event, deps);
    const tasks = (await Promise.all(deliveries.map((d) => hookTasksFor(deps.db, deps.config.rootUrl, event, d)))).flat();
    const [notices, jobs] = await Promise.all([
      fanout.notification ? noticesFor(deps, event, fanout.notification) : null,
      // what else the event causes (actors/reactions.ts): auto-merge checks, push mirrors, the actions trigger
      reactionJobs({ id: event.id, kind: event.kind, payload: event.payload, repoId: event.repo?.id ?? null, doerId: event.doer?.id ?? null }, deps),
    ]);
    if (tasks.length === 0 && !notices && jobs.length === 0) return 'skipped';
    const { deliverTimeoutSeconds } = deps.config.webhook;
    // hook tasks alone (most events) are one statement, which needs no transaction of its own and completes this
    // notify job; the deliveries this process has room for are claimed in it and start at once
    if (!notices && jobs.length === 0) {
      const reserved = deps.workerId === null ? 0 : (deps.deliveries?.reserve(tasks.length) ?? 0);
      let claimed: ClaimedDelivery[] = [];
      try {
        claimed = await insertHookTasksTogether(deps.db, {
          deliverTimeoutSeconds,
          claimingWorker: deps.workerId,
          tasks: tasks.map((task, i) => ({ ...task, claimed: i < reserved })),
          completes: job ? { queue: 'notify', jobIds: [job.id] } : null,
        });
      } finally {
        deps.deliveries?.start(claimed, reserved);
      }
      return job ? 'completed' : 'done';
    }
    await inTx(deps, async (tx) => {
      for (const queued of jobs) await enqueue(tx, queued.name, queued.payload);
      await insertHookTasks(tx, deliverTimeoutSeconds, tasks);
      if (notices) {
        await upsertThreads(tx, notices.threads);
        // one mail per event and recipient: a repeated run finds them marked and queues none again
        const unmailed = await claimEventMails(tx, event.id, notices.mails.map((m) => m.userId));
        await enqueueMany(tx, 'mail', notices.mails.filter((m) => unmailed.has(m.userId)).map((m) => m.mail));
      }
    });
    return 'done';
  },
};

interface Notices {
  threads: ThreadChange;
  mails: { userId: number; mail: MailPayload }[];
}

/** Threads and mails of an issue event: who follows the issue (or the one user the event names), never the doer. */
async function noticesFor(deps: ActorDeps, event: StoredEvent, rule: NotificationRule<EventKind>): Promise<Notices | null> {
  const payload = event.payload as { issue_id?: number; body?: string };
  if (!event.repo || !event.doer || typeof payload.issue_id !== 'number') return null;
  if (rule.when && !rule.when(event.payload)) return null;
  const issue = await findIssueById(deps.db, payload.issue_id);
  if (!issue) return null;
  const receiver = rule.receiver?.(event.payload);
  if (receiver === event.doer.id) return null;
  const audience = await loadIssueAudience(deps.db, event.repo, issue, event.doer.id, receiver);
  const commentId = rule.commentId?.(event.payload) ?? null;
  const threads: ThreadChange = {
    userIds: audience.map((m) => m.user.id), repoId: event.repo.id, issueId: issue.id, isPull: issue.is_pull, commentId, doerId: event.doer.id,
  };
  const mails: Notices['mails'] = [];
  if (rule.mail && deps.config.mailer.enabled) {
    let action: IssueMailAction = { kind: rule.mail } as IssueMailAction;
    if (rule.mail === 'commented') {
      const [comment] = await deps.db.query<{ content: string }>('SELECT content FROM comment WHERE id = $1', [commentId]);
      if (!comment) return { threads, mails };
      action = { kind: 'commented', body: comment.content, commentId: commentId! };
    }
    for (const member of audience) {
      if (!wantsMail(member, rule.mail)) continue;
      mails.push({ userId: member.user.id, mail: renderIssueMail(member.user, event.doer, event.repo, issue, action, deps.config) });
    }
  }
  return { threads, mails };
}

/** Gitea's rules: assignment mails unless mail is disabled; other issue mails when enabled, or on mention when mentioned. */
function wantsMail(member: AudienceMember, kind: IssueMailAction['kind']): boolean {
  if (!member.user.email) return false;
  if (kind === 'assigned') return member.mailPreference !== 'disabled';
  if (member.mailPreference === 'enabled' || member.mailPreference === 'andyourown') return true;
  return member.mailPreference === 'onmention' && member.mentioned;
}
