import { schedule, type ScheduledTask } from 'node-cron';
import type { Logger } from 'pino';
import { inTx, type Store } from '../db/data-source.js';
import { cronSchedules } from '../db/models/instance/cron-tasks.js';
import type { Config } from '../db/process/config.js';
import { enqueue, type JobSchedule } from '../jobs/queue.js';

export interface CronClock {
  /** The tasks this clock fires, with their expressions. */
  scheduled: JobSchedule[];
  stop(): Promise<void>;
}

/**
 * The worker's clock (node-cron): each enabled periodic task's job is queued on the task's `[cron.<task>] SCHEDULE`,
 * naming the time slot it fired for. Every worker runs this clock; the task's actor runs one job per slot
 * (recordCronRun), so two workers never run a tick twice. The clock only enqueues.
 */
export function startCronClock(store: Pick<Store, 'ds' | 'boss'>, config: Config, log: Logger): CronClock {
  const scheduled = cronSchedules(config).filter((entry) => entry.cron !== null);
  const tasks: ScheduledTask[] = scheduled.map((entry) =>
    schedule(entry.cron!, async (context) => {
      const slot = new Date(Math.floor(context.date.getTime() / 1000) * 1000).toISOString();
      try {
        await inTx(store, (tx) => enqueue(tx, entry.job, { slot }));
      } catch (error) {
        log.error({ err: error, job: entry.job, slot }, 'cron task could not be queued');
      }
    }, { timezone: 'UTC', name: entry.job, noOverlap: true }));
  return {
    scheduled,
    stop: async () => {
      await Promise.all(tasks.map((task) => task.destroy()));
    },
  };
}
