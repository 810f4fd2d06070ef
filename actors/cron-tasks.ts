import { inTx, type Store } from '../db/data-source.js';
import { duePlans } from '../db/models/actions/schedules.js';
import { recordCronRun } from '../db/models/instance/cron-tasks.js';
import { deleteUnlinkedAttachments } from '../db/models/instance/cleanup/attachments.js';
import { cleanupHookTasks } from '../db/models/instance/cleanup/hook-tasks.js';
import { deleteOldReadNotifications } from '../db/models/instance/cleanup/notifications.js';
import { deleteUnreferencedPackageBlobs } from '../db/models/instance/cleanup/package-blobs.js';
import { enqueueDueMirrors } from '../db/models/mirrors/pull-mirrors.js';
import { cleanupContainerUploads } from '../db/models/packages/container.js';
import { parseDuration } from '../db/models/repos/repo-edit.js';
import type { JobName } from '../jobs/catalogue.js';
import { jobNames } from '../jobs/catalogue.js';
import { enqueue } from '../jobs/queue.js';
import { maintainQueues } from '../jobs/queue-vacuum.js';
import type { Actor, ActorDeps, Outcome } from './actor.js';

/** One actor per periodic task (db/models/instance/cron-tasks.ts): each counts its run as it starts, then does its work. */
function cronActor<N extends JobName>(job: N, work: (deps: ActorDeps) => Promise<number>): Actor<N> {
  return {
    name: job,
    job,
    handle: async (payload, deps): Promise<Outcome> => {
      if (!(await recordCronRun(deps.db, job, (payload as { slot?: string }).slot))) return 'skipped';
      return (await work(deps)) > 0 ? 'done' : 'skipped';
    },
  };
}

/**
 * A `schedule-planner` job for each actions plan that is due, naming the plan's slot. Several clocks may queue the
 * same slot; the planner makes one run of it.
 */
export async function enqueueDuePlans(store: Pick<Store, 'ds' | 'boss' | 'db'>, now = new Date()): Promise<number> {
  const due = await duePlans(store.db, now);
  if (due.length === 0) return 0;
  await inTx(store, async (tx) => {
    for (const plan of due) await enqueue(tx, 'schedule-planner', { planId: plan.id, slot: plan.slot.toISOString() });
  });
  return due.length;
}

/** Gitea's update_mirrors: enqueues the pull-mirror syncs and push-mirror pushes that are due, nothing else. */
export const updateMirrors = cronActor('update-mirrors', async (deps) => {
  const due = await inTx(deps, (tx) => enqueueDueMirrors(tx));
  return due.pull + due.push;
});

/** Gitea's start_schedule_tasks: the actions plans that are due (nothing while [actions] ENABLED is off). */
export const startScheduleTasks = cronActor('start-schedule-tasks', async (deps) =>
  (deps.config.actions.enabled ? enqueueDuePlans(deps) : 0));

export const queueMaintenance = cronActor('queue-maintenance', async (deps) => {
  await maintainQueues(deps.boss, jobNames);
  return 1;
});

/** Gitea's cleanup_packages: abandoned container uploads and unreferenced uploaded blobs, then package blobs no file names. */
export const cleanupPackages = cronActor('cleanup-packages', async (deps) => {
  const olderThan = parseDuration(deps.config['cron.cleanup_packages'].olderThan);
  return inTx(deps, async (tx) => (await cleanupContainerUploads(tx, deps.blobs)) + (await deleteUnreferencedPackageBlobs(tx, deps.blobs, olderThan)));
});

export const cleanupHookTaskTable = cronActor('cleanup-hook-tasks', async (deps) => {
  const settings = deps.config['cron.cleanup_hook_task_table'];
  return cleanupHookTasks(deps.db, { type: settings.cleanupType, olderThanSeconds: parseDuration(settings.olderThan), numberToKeep: settings.numberToKeep });
});

export const cleanupAttachments = cronActor('cleanup-attachments', async (deps) =>
  inTx(deps, (tx) => deleteUnlinkedAttachments(tx, deps.blobs, parseDuration(deps.config['cron.delete_unlinked_attachments'].olderThan))));

export const cleanupNotifications = cronActor('cleanup-notifications', async (deps) =>
  deleteOldReadNotifications(deps.db, parseDuration(deps.config['cron.delete_old_notifications'].olderThan)));

export const cronActors = [updateMirrors, startScheduleTasks, queueMaintenance, cleanupPackages, cleanupHookTaskTable, cleanupAttachments, cleanupNotifications];
