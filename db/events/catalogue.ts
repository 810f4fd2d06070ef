import { z } from 'zod';

const id = z.number().int().positive();
const name = z.string().min(1);
const objectId = z.string().regex(/^([0-9a-f]{40}|[0-9a-f]{64})$/);
const accessMode = z.number().int().nonnegative();

const oauth2Application = z.strictObject({ owner_id: id, application_id: id, client_id: z.string() });
const gpgKey = z.strictObject({ owner_id: id, gpg_key_id: id, key_id: z.string() });
const blocking = z.strictObject({ blocker_id: id, blockee_id: id });
const publicKey = z.strictObject({ owner_id: id, public_key_id: id, fingerprint: z.string() });
const deployKey = z.strictObject({ deploy_key_id: id, fingerprint: z.string() });
const transferRecipient = z.strictObject({ recipient_id: id, recipient: name });
const repository = z.strictObject({ owner_id: id, owner: name, name });
const release = z.strictObject({ release_id: id, tag_name: z.string() });
const protection = z.strictObject({ protection_id: id, rule_name: z.string() });
const team = z.strictObject({ org_id: id, team_id: id, name });
const teamMember = z.strictObject({ org_id: id, team_id: id, user_id: id });
const teamRepo = z.strictObject({ org_id: id, team_id: id });
const actionsLevel = z.strictObject({ owner_id: z.number().int().nonnegative(), repo_id: z.number().int().nonnegative() });
const actionsItem = actionsLevel.extend({ name });
/** An issue or pull request (`is_pull`) by id and index in the event's repository. */
const issueFacts = { issue_id: id, index: id, is_pull: z.boolean() };
const issue = z.strictObject(issueFacts);
const issueState = z.strictObject({ ...issueFacts, commit_id: objectId.optional() });
const timestamp = z.iso.datetime({ offset: true }).nullable();
const comment = z.strictObject({ ...issueFacts, comment_id: id });

/**
 * Every kind of domain event with its payload, declared once. The repository and the doer are columns of the
 * row (`repoId`, `doerId`); a payload names the other things involved by id (with a name where the thing may
 * be gone when the event is read), the old values of what changed under `previous`, and the causing commit.
 */
const payloads = {
  'user.oauth2_application_created': oauth2Application,
  'user.oauth2_application_updated': oauth2Application,
  'user.oauth2_application_deleted': oauth2Application,
  'user.gpg_key_added': gpgKey.extend({ verified: z.boolean() }),
  'user.gpg_key_verified': gpgKey,
  'user.gpg_key_removed': gpgKey,
  'user.blocked': blocking,
  'user.unblocked': blocking,
  'user.public_key_added': publicKey,
  'user.public_key_removed': publicKey,

  'repository.created': repository,
  'repository.deleted': repository,
  'repository.renamed': z.strictObject({ previous: z.strictObject({ name }), name }),
  'repository.forked': repository.extend({ base_repo_id: id }),
  'repository.migrated': repository,
  'repository.default_branch_changed': z.strictObject({ previous: z.strictObject({ default_branch: name }), default_branch: name }),
  'repository.transfer_pending': transferRecipient,
  'repository.transfer_rejected': transferRecipient,
  'repository.transferred': z.strictObject({ previous: z.strictObject({ owner_id: id, owner: name }), owner_id: id, owner: name, name }),
  'repository.collaborator_added': z.strictObject({ user_id: id, mode: accessMode }),
  'repository.collaborator_changed': z.strictObject({ user_id: id, previous: z.strictObject({ mode: accessMode }), mode: accessMode }),
  'repository.collaborator_removed': z.strictObject({ user_id: id }),
  'repository.deploy_key_added': deployKey,
  'repository.deploy_key_removed': deployKey,

  // One ref update: git pushes, and branches created or deleted through the API.
  push: z.strictObject({ ref: z.string().min(1), before: objectId, after: objectId, commits: z.number().int().nonnegative() }),
  'branch_protection.created': protection,
  'branch_protection.edited': protection,
  'branch_protection.deleted': protection,
  'commit_status.created': z.strictObject({ commit_status_id: id, sha: objectId, index: id, state: z.string(), context: z.string() }),

  'release.published': release,
  'release.updated': release,
  'release.deleted': release,

  // A package version published or deleted (Gitea's package webhook event, action created/deleted).
  package: z.strictObject({
    action: z.enum(['created', 'deleted']), owner_id: id, package_id: id, version_id: id, type: name, name, version: name,
  }),
  // Actions secrets, variables and runner registration tokens of an owner (repo_id 0), a repository (owner_id 0) or the instance (both 0).
  'actions.secret_created': actionsItem.extend({ secret_id: id }),
  'actions.secret_updated': actionsItem.extend({ secret_id: id }),
  'actions.secret_deleted': actionsItem.extend({ secret_id: id }),
  'actions.variable_created': actionsItem.extend({ variable_id: id }),
  'actions.variable_updated': actionsItem.extend({ variable_id: id, previous: z.strictObject({ name, data: z.string() }).partial() }),
  'actions.variable_deleted': actionsItem.extend({ variable_id: id }),
  'actions.runner_token_created': actionsLevel.extend({ token_id: id }),
  'actions.runner_token_reset': actionsLevel.extend({ token_id: id }),

  'issue.opened': issue,
  'issue.edited': z.strictObject({
    ...issueFacts,
    previous: z.strictObject({ title: z.string(), body: z.string(), ref: z.string(), due_date: timestamp }).partial(),
  }),
  // The causing commit when a push or a merge closed or reopened it.
  'issue.closed': issueState,
  'issue.reopened': issueState,
  'issue.deleted': z.strictObject({ ...issueFacts, title: z.string() }),
  'issue.labelled': z.strictObject({ ...issueFacts, label_ids: z.array(id).min(1) }),
  // `cleared` when every label was removed at once (Gitea's ClearIssueLabels, webhook action label_cleared).
  // `with_added` when the same change added labels too (a replacement, or an exclusive label pushing another out).
  'issue.unlabelled': z.strictObject({
    ...issueFacts, label_ids: z.array(id).min(1), cleared: z.literal(true).optional(), with_added: z.literal(true).optional(),
  }),
  'issue.assigned': z.strictObject({ ...issueFacts, assignee_id: id }),
  'issue.unassigned': z.strictObject({ ...issueFacts, assignee_id: id }),
  'issue.milestoned': z.strictObject({ ...issueFacts, milestone_id: id, previous: z.strictObject({ milestone_id: id.nullable() }) }),
  'issue.demilestoned': z.strictObject({ ...issueFacts, milestone_id: id }),
  'comment.created': comment,
  'comment.edited': comment.extend({ previous: z.strictObject({ body: z.string() }) }),
  'comment.deleted': comment.extend({ body: z.string() }),
  // A reaction to the issue itself (comment_id null) or to one of its comments.
  'issue.reaction_added': z.strictObject({ ...issueFacts, comment_id: id.nullable(), reaction_id: id, content: name }),
  'issue.reaction_removed': z.strictObject({ ...issueFacts, comment_id: id.nullable(), content: name }),
  // The event's issue now depends on (is blocked by) the issue dependency_id, of any repository.
  'issue.dependency_added': z.strictObject({ ...issueFacts, dependency_id: id, dependency_repo_id: id }),
  'issue.dependency_removed': z.strictObject({ ...issueFacts, dependency_id: id, dependency_repo_id: id }),

  // A wiki page by its web path (Gitea's sub_url), with the commit message (none for a deletion).
  'wiki.created': z.strictObject({ page: z.string().min(1), comment: z.string() }),
  'wiki.edited': z.strictObject({ page: z.string().min(1), comment: z.string() }),
  'wiki.deleted': z.strictObject({ page: z.string().min(1), comment: z.string() }),
  // Pull request reviews: a submitted verdict or comment (`comment_id`: its timeline entry), a dismissal, a deletion,
  // and review requests of a user or a team (a team's request: one event per member it reaches, reviewer_id that member).
  'pull_review.approved': z.strictObject({ ...issueFacts, review_id: id, comment_id: id }),
  'pull_review.rejected': z.strictObject({ ...issueFacts, review_id: id, comment_id: id }),
  'pull_review.commented': z.strictObject({ ...issueFacts, review_id: id, comment_id: id }),
  'pull_review.dismissed': z.strictObject({ ...issueFacts, review_id: id, comment_id: id }),
  'pull_review.deleted': z.strictObject({ ...issueFacts, review_id: id }),
  'pull_review.requested': z.strictObject({ ...issueFacts, reviewer_id: id.nullable(), team_id: id.nullable(), comment_id: id }),
  'pull_review.request_removed': z.strictObject({ ...issueFacts, reviewer_id: id.nullable(), team_id: id.nullable(), comment_id: id }),
  // A merge scheduled for when the required checks pass (merge_when_checks_succeed), and its cancellation.
  'auto_merge.scheduled': z.strictObject({ ...issueFacts, merge_style: name }),
  'auto_merge.cancelled': issue,
  // Pull requests: the event's issue is the pull request's (is_pull). Closing, reopening, labels and assignees of a
  // pull request are its issue's events.
  'pull_request.opened': issue,
  'pull_request.edited': z.strictObject({ ...issueFacts, previous: z.strictObject({ base_branch: z.string() }) }),
  'pull_request.merged': z.strictObject({ ...issueFacts, merged_commit_id: objectId, style: z.string() }),
  // A push moved the head (or the base) of an open pull request.
  'pull_request.synchronized': z.strictObject({ ...issueFacts, before: objectId, after: objectId }),

  'organization.created': z.strictObject({ org_id: id, name, owner_id: id }),
  'organization.deleted': z.strictObject({ org_id: id, name }),
  'organization.member_removed': z.strictObject({ org_id: id, user_id: id }),
  'team.created': team,
  'team.edited': z.strictObject({
    org_id: id,
    team_id: id,
    previous: z.strictObject({
      name,
      description: z.string(),
      authorize: accessMode,
      includes_all_repositories: z.boolean(),
      can_create_org_repo: z.boolean(),
      units: z.record(z.string(), accessMode),
    }).partial(),
  }),
  'team.deleted': team,
  'team.member_added': teamMember,
  'team.member_removed': teamMember,
  'team.repo_added': teamRepo,
  'team.repo_removed': teamRepo,
} satisfies Record<string, z.ZodType>;

export type EventKind = keyof typeof payloads;
export type EventPayload<K extends EventKind> = z.infer<(typeof payloads)[K]>;
export type ReleaseEventKind = Extract<EventKind, `release.${string}`>;
export type IssueEventKind = Extract<EventKind, `issue.${string}` | `comment.${string}`>;

export const eventKinds: readonly EventKind[] = Object.keys(payloads) as EventKind[];

/** A kind with its payload; for a union of kinds, the union of such pairs, so the kind tells the payload. */
export type KindAndPayload<K extends EventKind = EventKind> = { [P in K]: { kind: P; payload: EventPayload<P> } }[K];

/** A domain event as `emit` takes it and the `domain_event` row holds it. */
export type DomainEvent<K extends EventKind = EventKind> = KindAndPayload<K> & { repoId?: number | null; doerId?: number | null };

function isEventKind(kind: string): kind is EventKind {
  return Object.hasOwn(payloads, kind);
}

/** The payload checked against its kind's schema: the error lists what does not match. */
export function checkPayload<K extends EventKind>(kind: K, payload: unknown): z.ZodSafeParseResult<EventPayload<K>> {
  return payloads[kind].safeParse(payload) as z.ZodSafeParseResult<EventPayload<K>>;
}

/** A stored kind and payload, typed; null for a kind the catalogue does not know or a payload that does not match it. */
export function parseEvent(kind: string, payload: unknown): KindAndPayload | null {
  if (!isEventKind(kind)) return null;
  const checked = checkPayload(kind, payload);
  return checked.success ? ({ kind, payload: checked.data } as KindAndPayload) : null;
}
