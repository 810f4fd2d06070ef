import type { EventKind, EventPayload } from '../db/events/catalogue.js';
import { wantsActions } from '../db/models/actions/triggers.js';
import { scheduledMergeOfIssue, scheduledMergesOfBranch, scheduledMergesOfCommit } from '../db/models/automerge/scheduled-merges.js';
import { commitPushMirrors } from '../db/models/mirrors/push-mirrors.js';
import type { JobName, PayloadOf } from '../jobs/catalogue.js';
import type { ActorDeps } from './actor.js';

/** A job a reaction queues: the notifier inserts it in its own transaction, with the event's threads and mails. */
export type ReactionJob = { [N in JobName]: { name: N; payload: PayloadOf<N> } }[JobName];

/** The event a reaction sees: its id, kind, payload, repository and doer (ids). */
export interface ReactingEvent<K extends EventKind = EventKind> {
  id: number;
  kind: K;
  payload: EventPayload<K>;
  repoId: number | null;
  doerId: number | null;
}

/**
 * What an event causes beside webhooks, threads and mail: the jobs to queue, read without a transaction (an event
 * with none keeps the notifier's one-statement fan-out). Every job it queues is idempotent, so a notify job that
 * runs again queues nothing harmful.
 */
type Reaction<K extends EventKind> = (event: ReactingEvent<K>, deps: ActorDeps) => Promise<ReactionJob[]>;

const nothing = null;
const autoMergeChecks = (pullIds: number[]): ReactionJob[] => pullIds.map((pullId) => ({ name: 'pull-auto-merge', payload: { pullId } }));

/** Pushes, pull request activity and default-branch changes reach the actions area (runs and schedule plans), while actions are on. */
function actionsTrigger(event: ReactingEvent, { config }: ActorDeps): ReactionJob[] {
  if (!config.actions.enabled || event.repoId === null || !wantsActions(event)) return [];
  const { id, kind, payload, repoId, doerId } = event;
  return [{ name: 'actions-trigger', payload: { eventId: id, kind, payload, repoId, doerId } }];
}
const actions: Reaction<EventKind> = async (event, deps) => actionsTrigger(event, deps);
/** A review verdict or comment may complete what the pull request's scheduled merge waits for. */
const reviewed: Reaction<'pull_review.approved' | 'pull_review.rejected' | 'pull_review.commented'> = async ({ payload }, { db }) =>
  autoMergeChecks(await scheduledMergeOfIssue(db, payload.issue_id));

/**
 * Every event kind with its reactions, checked exhaustively as the fan-outs are: a kind added to the catalogue
 * without an entry here fails the type check. `nothing` for a kind that causes no job.
 */
export const reactions: { [K in EventKind]: Reaction<K> | null } = {
  // a moved head or base may complete what a scheduled merge waits for (Gitea's AddToQueueIfMergeable); push mirrors
  // with sync_on_commit push; workflows run
  push: async (event, deps) => {
    if (event.repoId === null) return [];
    const branch = event.payload.ref.startsWith('refs/heads/') ? event.payload.ref.slice('refs/heads/'.length) : null;
    const [mirrors, merges] = await Promise.all([
      commitPushMirrors(deps.db, event.repoId),
      branch === null ? [] : scheduledMergesOfBranch(deps.db, event.repoId, branch),
    ]);
    return [
      ...mirrors.map((pushMirrorId): ReactionJob => ({ name: 'push-mirror', payload: { pushMirrorId } })),
      ...autoMergeChecks(merges),
      ...actionsTrigger(event, deps),
    ];
  },
  'repository.default_branch_changed': actions,
  // Gitea's StartPRCheckAndAutoMergeBySHA
  'commit_status.created': async ({ repoId, payload }, { db }) => (repoId === null ? [] : autoMergeChecks(await scheduledMergesOfCommit(db, repoId, payload.sha))),
  'pull_review.approved': reviewed,
  'pull_review.rejected': reviewed,
  'pull_review.commented': reviewed,
  // the first check, for checks that already passed
  'auto_merge.scheduled': async ({ payload }, { db }) => autoMergeChecks(await scheduledMergeOfIssue(db, payload.issue_id)),

  // pull request activity (for pull requests only: see pullActivityOf)
  'pull_request.opened': actions,
  'pull_request.synchronized': actions,
  'pull_request.edited': actions,
  'pull_request.merged': actions,
  'issue.closed': actions,
  'issue.reopened': actions,
  'issue.edited': actions,
  'issue.assigned': actions,
  'issue.unassigned': actions,
  'issue.labelled': actions,
  'issue.unlabelled': actions,
  'issue.milestoned': actions,
  'issue.demilestoned': actions,
  'pull_review.requested': actions,
  'pull_review.request_removed': actions,

  'user.oauth2_application_created': nothing,
  'user.oauth2_application_updated': nothing,
  'user.oauth2_application_deleted': nothing,
  'user.gpg_key_added': nothing,
  'user.gpg_key_verified': nothing,
  'user.gpg_key_removed': nothing,
  'user.blocked': nothing,
  'user.unblocked': nothing,
  'user.public_key_added': nothing,
  'user.public_key_removed': nothing,
  'repository.created': nothing,
  'repository.deleted': nothing,
  'repository.renamed': nothing,
  'repository.forked': nothing,
  'repository.migrated': nothing,
  'repository.transfer_pending': nothing,
  'repository.transfer_rejected': nothing,
  'repository.transferred': nothing,
  'repository.collaborator_added': nothing,
  'repository.collaborator_changed': nothing,
  'repository.collaborator_removed': nothing,
  'repository.deploy_key_added': nothing,
  'repository.deploy_key_removed': nothing,
  'branch_protection.created': nothing,
  'branch_protection.edited': nothing,
  'branch_protection.deleted': nothing,
  'release.published': nothing,
  'release.updated': nothing,
  'release.deleted': nothing,
  package: nothing,
  'actions.secret_created': nothing,
  'actions.secret_updated': nothing,
  'actions.secret_deleted': nothing,
  'actions.variable_created': nothing,
  'actions.variable_updated': nothing,
  'actions.variable_deleted': nothing,
  'actions.runner_token_created': nothing,
  'actions.runner_token_reset': nothing,
  'issue.opened': nothing,
  'issue.deleted': nothing,
  'comment.created': nothing,
  'comment.edited': nothing,
  'comment.deleted': nothing,
  'issue.reaction_added': nothing,
  'issue.reaction_removed': nothing,
  'issue.dependency_added': nothing,
  'issue.dependency_removed': nothing,
  'wiki.created': nothing,
  'wiki.edited': nothing,
  'wiki.deleted': nothing,
  'pull_review.dismissed': nothing,
  'pull_review.deleted': nothing,
  'auto_merge.cancelled': nothing,
  'organization.created': nothing,
  'organization.deleted': nothing,
  'organization.member_removed': nothing,
  'team.created': nothing,
  'team.edited': nothing,
  'team.deleted': nothing,
  'team.member_added': nothing,
  'team.member_removed': nothing,
  'team.repo_added': nothing,
  'team.repo_removed': nothing,
};

/** The jobs an event causes beside its webhooks, threads and mail. */
export function reactionJobs(event: ReactingEvent, deps: ActorDeps): Promise<ReactionJob[]> {
  const reaction = reactions[event.kind] as Reaction<EventKind> | null;
  return reaction ? reaction(event, deps) : Promise.resolve([]);
}
