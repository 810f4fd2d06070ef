import { schedule, type ScheduledTask } from 'node-cron';
import type { Logger } from 'pino';
import { inTx, type Store } from '../db/data-source.js';
import { applyActionsSwitch, duePlans } from '../db/models/actions/schedules.js';
import type { Config } from '../db/process/config.js';
import { enqueue } from '../jobs/queue.js';

/**
 * One tick of the actions clock: a `schedule-planner` job for each plan that is due, naming the plan's slot. The
 * clock only enqueues; several clocks (workers) may queue the same slot, and the planner makes one run of it.
 */
export async function enqueueDuePlans(store: Pick<Store, 'ds' | 'boss' | 'db'>, now = new Date()): Promise<number> {
  const due = await duePlans(store.db, now);
  if (due.length === 0) return 0;
  await inTx(store, async (tx) => {
    for (const plan of due) await enqueue(tx, 'schedule-planner', { planId: plan.id, slot: plan.slot.toISOString() });
  });
  return due.length;
}

/**
 * The worker's actions clock (node-cron, every minute), which also ticks once at start, so plans that fell due
 * while no worker ran fire without waiting for the next minute. At start the instance's switch is applied first:
 * with [actions] ENABLED off there is no clock, and the instance's plans are removed and its scheduled runs
 * cancelled; switched on again, every repository's plans are made anew from its default branch.
 */
export async function startActionsClock(store: Pick<Store, 'ds' | 'boss' | 'db'>, config: Config, log: Logger): Promise<ScheduledTask | null> {
  const replans = await inTx(store, (tx) => applyActionsSwitch(tx, config.actions.enabled));
  if (replans > 0) log.info({ repositories: replans }, 'actions switched on: schedule plans are made anew');
  if (!config.actions.enabled) return null;
  const tick = async (): Promise<void> => {
    try {
      const queued = await enqueueDuePlans(store);
      if (queued > 0) log.info({ queued }, 'schedule plans due');
    } catch (error) {
      log.error({ err: error }, 'actions clock tick failed');
    }
  };
  await tick();
  return schedule('* * * * *', tick, { timezone: 'UTC', noOverlap: true, name: 'actions-clock' });
}
