import { z } from 'zod';
import type PgBoss from 'pg-boss';

/** One job kind: its queue name, the payload it carries, and how pg-boss treats it. Declared once, here. */
export interface JobDefinition<P> {
  name: string;
  payload: z.ZodType<P>;
  /** Standard or short policy only: the job runner's fetch (jobs/lost-jobs.ts fetchClaimed) does not gate by key. */
  queue: Omit<PgBoss.Queue, 'name' | 'policy'> & { policy?: 'standard' | 'short' };
  /** Jobs that must not overlap for one subject share a singleton key. */
  singletonKey?: (payload: P) => string;
  /** Parallel handlers per worker process. */
  concurrency: number;
}

const mailPayload = z.object({
  to: z.array(z.string().min(1)).min(1),
  subject: z.string(),
  text: z.string(),
  html: z.string().optional(),
});
export type MailPayload = z.infer<typeof mailPayload>;

const objectId = z.string().regex(/^([0-9a-f]{40}|[0-9a-f]{64})$/);
/** A user's id, or the actions bot's (-2, Gitea's ActionsUserID), which pushes with a task token. */
const doerId = z.number().int().refine((id) => id > 0 || id === -2, 'a user id');
const branchSyncPayload = z.object({
  /** One id per accepted push: the sync emits that push's events once, however often the job runs. */
  pushId: z.uuid(),
  repoId: z.number().int().positive(),
  pusherId: doerId,
  updates: z.array(z.object({ ref: z.string().min(1), oldSha: objectId, newSha: objectId })).min(1),
  /** A pull mirror's sync: issues are neither referenced nor closed by its commits (Gitea's mirror sync). */
  mirrorSync: z.boolean().optional(),
});
export type BranchSyncPayload = z.infer<typeof branchSyncPayload>;

const migratePayload = z.object({ taskId: z.number().int().positive() });
export type MigratePayload = z.infer<typeof migratePayload>;
const mirrorSyncPayload = z.object({ repoId: z.number().int().positive() });
export type MirrorSyncPayload = z.infer<typeof mirrorSyncPayload>;
const pushMirrorPayload = z.object({ pushMirrorId: z.number().int().positive() });
export type PushMirrorPayload = z.infer<typeof pushMirrorPayload>;

/**
 * How long a mirror sync or push may run before pg-boss gives its job up (a killed worker's job included); the
 * scheduler leases a due mirror for as long, so a sync that died makes the mirror due again, never wedged.
 */
export const mirrorJobExpirySeconds = 900;

const pullAutoMergePayload = z.object({ pullId: z.number().int().positive() });
export type PullAutoMergePayload = z.infer<typeof pullAutoMergePayload>;
/** A periodic task's job carries nothing: what it does and its settings come from its `[cron.<task>]` section. */
/** A periodic task's run: the clock's time slot it fired for; none when an administrator ran it. */
const cronPayload = z.object({ slot: z.iso.datetime({ offset: true }).optional() });
export type CronPayload = z.infer<typeof cronPayload>;

const notifyPayload = z.object({ eventId: z.number().int().positive() });
export type NotifyPayload = z.infer<typeof notifyPayload>;

const webhookDeliveryPayload = z.object({ taskId: z.number().int().positive() });
export type WebhookDeliveryPayload = z.infer<typeof webhookDeliveryPayload>;

/** The event itself rides with the job (kind and payload checked against the event catalogue by the actor): no second read of `domain_event`. */
const actionsTriggerPayload = z.object({
  eventId: z.number().int().positive(),
  kind: z.string(),
  payload: z.unknown(),
  repoId: z.number().int().positive(),
  // the actions bot has a negative id, as in Gitea
  doerId: z.number().int().nullable(),
});
export type ActionsTriggerPayload = z.infer<typeof actionsTriggerPayload>;
const actionsReplanPayload = z.object({ repoId: z.number().int().positive() });
export type ActionsReplanPayload = z.infer<typeof actionsReplanPayload>;
/** One firing of a schedule plan in its time slot (an ISO timestamp). */
const schedulePlannerPayload = z.object({ planId: z.number().int().positive(), slot: z.iso.datetime({ offset: true }) });
export type SchedulePlannerPayload = z.infer<typeof schedulePlannerPayload>;

function cronJob<N extends string>(name: N, expireInSeconds: number) {
  return { name, payload: cronPayload, queue: { policy: 'short', retryLimit: 0, expireInSeconds }, concurrency: 1 } satisfies JobDefinition<CronPayload>;
}

export const jobs = {
  // Every push is synced (no singleton key); the actor serializes syncs of one repository itself.
  'branch-sync': {
    name: 'branch-sync',
    payload: branchSyncPayload,
    queue: { retryLimit: 10, retryDelay: 2, retryBackoff: true, expireInSeconds: 300 },
    concurrency: 2,
  } satisfies JobDefinition<BranchSyncPayload>,
  mail: {
    name: 'mail',
    payload: mailPayload,
    queue: { retryLimit: 5, retryDelay: 10, retryBackoff: true, expireInSeconds: 120 },
    concurrency: 2,
  } satisfies JobDefinition<MailPayload>,
  // The clone of a migration; the task row carries what to clone (credentials sealed), the payload only its id.
  migrate: {
    name: 'migrate',
    payload: migratePayload,
    queue: { retryLimit: 2, retryDelay: 30, expireInSeconds: 3600 },
    concurrency: 1,
  } satisfies JobDefinition<MigratePayload>,
  // 'short': at most one queued sync per mirror (more requests fold into it); the actor leases the mirror, so two
  // workers never fetch into one mirror at once. Failures are recorded; the next schedule retries.
  'mirror-sync': {
    name: 'mirror-sync',
    payload: mirrorSyncPayload,
    queue: { policy: 'short', retryLimit: 0, expireInSeconds: mirrorJobExpirySeconds },
    singletonKey: (payload) => `mirror-${payload.repoId}`,
    concurrency: 2,
  } satisfies JobDefinition<MirrorSyncPayload>,
  'push-mirror': {
    name: 'push-mirror',
    payload: pushMirrorPayload,
    queue: { policy: 'short', retryLimit: 3, retryDelay: 30, retryBackoff: true, expireInSeconds: mirrorJobExpirySeconds },
    singletonKey: (payload) => `push-mirror-${payload.pushMirrorId}`,
    concurrency: 2,
  } satisfies JobDefinition<PushMirrorPayload>,
  // Gitea's update_mirrors cron task: enqueues the syncs and pushes that are due.
  'update-mirrors': cronJob('update-mirrors', 120),
  // A scheduled merge checked after a commit status, a review or a test of its pull request: merged once the base
  // branch's protection passes. 'short': checks asked while one waits fold into it.
  'pull-auto-merge': {
    name: 'pull-auto-merge',
    payload: pullAutoMergePayload,
    queue: { policy: 'short', retryLimit: 3, retryDelay: 5, retryBackoff: true, expireInSeconds: 300 },
    singletonKey: (payload) => `pull-auto-merge-${payload.pullId}`,
    concurrency: 1,
  } satisfies JobDefinition<PullAutoMergePayload>,
  // The periodic tasks of the admin cron list (db/models/instance/cron-tasks.ts), each sent by the workers' clock on
  // its `[cron.<task>] SCHEDULE` or by `POST /admin/cron/{task}`. 'short': a run asked while one waits folds into it.
  'cleanup-packages': cronJob('cleanup-packages', 600),
  'cleanup-hook-tasks': cronJob('cleanup-hook-tasks', 600),
  'cleanup-attachments': cronJob('cleanup-attachments', 600),
  'cleanup-notifications': cronJob('cleanup-notifications', 600),
  'queue-maintenance': cronJob('queue-maintenance', 900),
  'start-schedule-tasks': cronJob('start-schedule-tasks', 120),
  // One per domain event: fans it out to hook tasks, notification threads and mail in one transaction. 16 at once:
  // the notify jobs of one fetch load their events, repositories, users and hooks, and insert their tasks, together.
  notify: {
    name: 'notify',
    payload: notifyPayload,
    queue: { retryLimit: 10, retryDelay: 2, retryBackoff: true, expireInSeconds: 120 },
    concurrency: 16,
  } satisfies JobDefinition<NotifyPayload>,
  // One per hook task. Expiry is set per job from [webhook] DELIVER_TIMEOUT, so a worker killed mid-delivery
  // hands the task on soon after the request would have timed out. 64 at once (the delivery agent's connections per
  // host): a fan-out's deliveries are fetched, loaded and recorded in a few statements, and slow receivers hold few of the slots.
  'webhook-delivery': {
    name: 'webhook-delivery',
    payload: webhookDeliveryPayload,
    queue: { retryLimit: 8, retryDelay: 5, retryBackoff: true, expireInSeconds: 60 },
    concurrency: 64,
  } satisfies JobDefinition<WebhookDeliveryPayload>,
  // One per push, pull request activity or default-branch change (a reaction in actors/reactions.ts): the runs and schedule plans it causes.
  'actions-trigger': {
    name: 'actions-trigger',
    payload: actionsTriggerPayload,
    queue: { retryLimit: 5, retryDelay: 5, retryBackoff: true, expireInSeconds: 300 },
    singletonKey: (payload) => `actions-event-${payload.eventId}`,
    concurrency: 2,
  } satisfies JobDefinition<ActionsTriggerPayload>,
  // One per repository with actions when a worker starts with actions switched on again: its plans made anew.
  'actions-replan': {
    name: 'actions-replan',
    payload: actionsReplanPayload,
    queue: { retryLimit: 3, retryDelay: 10, retryBackoff: true, expireInSeconds: 300 },
    concurrency: 2,
  } satisfies JobDefinition<ActionsReplanPayload>,
  // Queued by the actions clock of each worker for each due plan; the run is unique per plan and slot.
  'schedule-planner': {
    name: 'schedule-planner',
    payload: schedulePlannerPayload,
    queue: { retryLimit: 3, retryDelay: 10, expireInSeconds: 120 },
    singletonKey: (payload) => `plan-${payload.planId}-${payload.slot}`,
    concurrency: 2,
  } satisfies JobDefinition<SchedulePlannerPayload>,
} as const;

export type JobCatalogue = typeof jobs;
export type JobName = keyof JobCatalogue;
export type PayloadOf<N extends JobName> = z.infer<JobCatalogue[N]['payload']>;
export const jobNames = Object.keys(jobs) as JobName[];
