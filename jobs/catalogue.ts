import { z } from 'zod';
import type PgBoss from 'pg-boss';

/** One job kind: its queue name, the payload it carries, and how pg-boss treats it. Declared once, here. */
export interface JobDefinition<P> {
  name: string;
  payload: z.ZodType<P>;
  queue: Omit<PgBoss.Queue, 'name'>;
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
const branchSyncPayload = z.object({
  /** One id per accepted push: the sync emits that push's events once, however often the job runs. */
  pushId: z.uuid(),
  repoId: z.number().int().positive(),
  pusherId: z.number().int().positive(),
  updates: z.array(z.object({ ref: z.string().min(1), oldSha: objectId, newSha: objectId })).min(1),
});
export type BranchSyncPayload = z.infer<typeof branchSyncPayload>;

const notifyPayload = z.object({ eventId: z.number().int().positive() });
export type NotifyPayload = z.infer<typeof notifyPayload>;

const webhookDeliveryPayload = z.object({ taskId: z.number().int().positive() });
export type WebhookDeliveryPayload = z.infer<typeof webhookDeliveryPayload>;

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
  // One per domain event: fans it out to hook tasks, notification threads and mail in one transaction.
  notify: {
    name: 'notify',
    payload: notifyPayload,
    queue: { retryLimit: 10, retryDelay: 2, retryBackoff: true, expireInSeconds: 120 },
    concurrency: 2,
  } satisfies JobDefinition<NotifyPayload>,
  // One per hook task. Expiry is set per job from [webhook] DELIVER_TIMEOUT, so a worker killed mid-delivery
  // hands the task on soon after the request would have timed out.
  'webhook-delivery': {
    name: 'webhook-delivery',
    payload: webhookDeliveryPayload,
    queue: { retryLimit: 8, retryDelay: 5, retryBackoff: true, expireInSeconds: 60 },
    concurrency: 16,
  } satisfies JobDefinition<WebhookDeliveryPayload>,
} as const;

export type JobCatalogue = typeof jobs;
export type JobName = keyof JobCatalogue;
export type PayloadOf<N extends JobName> = z.infer<JobCatalogue[N]['payload']>;
export const jobNames = Object.keys(jobs) as JobName[];
