import type { Logger } from 'pino';
import { inTx, type Store } from '../db/data-source.js';
import { applyActionsSwitch } from '../db/models/actions/schedules.js';
import { enqueueDuePlans } from '../actors/cron-tasks.js';
import type { Config } from '../db/process/config.js';
export { enqueueDuePlans };

/**
 * The actions clock at a worker's start; the ticks after it are the `start_schedule_tasks` cron task
 * (db/models/instance/cron-tasks.ts), every minute by default. The instance's switch is applied first: with
 * [actions] ENABLED off, the instance's plans are removed and its scheduled runs cancelled; switched on again, every
 * repository's plans are made anew from its default branch. Then, with actions on, one tick, so plans that fell due
 * while no worker ran fire without waiting for the next minute. Answers whether actions are on.
 */
export async function startActionsClock(store: Pick<Store, 'ds' | 'boss' | 'db'>, config: Config, log: Logger): Promise<boolean> {
  const replans = await inTx(store, (tx) => applyActionsSwitch(tx, config.actions.enabled));
  if (replans > 0) log.info({ repositories: replans }, 'actions switched on: schedule plans are made anew');
  if (!config.actions.enabled) return false;
  try {
    const queued = await enqueueDuePlans(store);
    if (queued > 0) log.info({ queued }, 'schedule plans due');
  } catch (error) {
    log.error({ err: error }, 'actions clock tick failed');
  }
  return true;
}
