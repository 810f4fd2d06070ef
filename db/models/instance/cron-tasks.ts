import parser from 'cron-parser';
import type { Queryable, Tx } from '../../data-source.js';
import { notFound } from '../../errors.js';
import type { JobName } from '../../../jobs/catalogue.js';
import { enqueue, type JobSchedule } from '../../../jobs/queue.js';
import type { Config } from '../../process/config.js';

/**
 * Every periodic task of Hearth, as Gitea's admin cron lists them: a job kind each, which the workers' clock (node-cron) sends
 * on the task's `[cron.<task>] SCHEDULE` while `ENABLED`, and `POST /admin/cron/{task}` sends now. The task's actor
 * records each run as it starts (recordCronRun), so the list reads every task's runs in one statement.
 */
export const cronTasks = [
  { name: 'update_mirrors', job: 'update-mirrors' },
  { name: 'start_schedule_tasks', job: 'start-schedule-tasks' },
  { name: 'queue_maintenance', job: 'queue-maintenance' },
  { name: 'cleanup_packages', job: 'cleanup-packages' },
  { name: 'cleanup_hook_task_table', job: 'cleanup-hook-tasks' },
  { name: 'delete_unlinked_attachments', job: 'cleanup-attachments' },
  { name: 'delete_old_notifications', job: 'cleanup-notifications' },
] as const satisfies ReadonlyArray<{ name: string; job: JobName }>;

export type CronTaskName = (typeof cronTasks)[number]['name'];

export interface CronTask {
  name: CronTaskName;
  /** The cron expression; '-' for a task that is not enabled (as Gitea lists it). */
  schedule: string;
  /** The next tick; null when not enabled. */
  next: Date | null;
  /** When a run last started, if one has. */
  prev: Date | null;
  /** Runs started. */
  execTimes: number;
}

type CronSettings = { enabled: boolean; schedule: string };

function settingsOf(config: Config, name: CronTaskName): CronSettings {
  return config[`cron.${name}`];
}

/** What the workers' clock sends: each task's job on its schedule, none for a task that is not enabled. */
export function cronSchedules(config: Config): JobSchedule[] {
  return cronTasks.map((task) => {
    const settings = settingsOf(config, task.name);
    return { job: task.job, cron: settings.enabled ? settings.schedule : null };
  });
}

/** The tasks by name, each with its next tick (computed as pg-boss's clock computes it) and its runs so far. */
export async function listCronTasks(db: Queryable, config: Config, now = new Date()): Promise<CronTask[]> {
  const runs = await db.query<{ name: string; exec_times: number; prev: Date }>('SELECT name, exec_times::int, prev FROM cron_task_run');
  const byName = new Map(runs.map((row) => [row.name, row]));
  return [...cronTasks].sort((a, b) => a.name.localeCompare(b.name)).map((task) => {
    const settings = settingsOf(config, task.name);
    const ran = byName.get(task.name);
    const next = settings.enabled ? parser.parseExpression(settings.schedule, { tz: 'UTC', currentDate: now }).next().toDate() : null;
    return { name: task.name, schedule: settings.enabled ? settings.schedule : '-', next, prev: ran?.prev ?? null, execTimes: ran?.exec_times ?? 0 };
  });
}

/** Sends a task's job now, outside its schedule (through the caller's transaction). Unknown names answer 404. */
export async function runCronTask(tx: Tx, name: string): Promise<void> {
  const task = cronTasks.find((entry) => entry.name === name);
  if (!task) throw notFound(`cron task ${name} does not exist`);
  await enqueue(tx, task.job, {});
}

/**
 * Counts a run of the task whose job is `job` as it starts, and answers whether it should run: a run for a clock's
 * time slot runs once, however many workers' clocks queued that slot; a run an administrator asked for always runs.
 */
export async function recordCronRun(db: Queryable, job: JobName, slot?: string): Promise<boolean> {
  const task = cronTasks.find((entry) => entry.job === job);
  if (!task) throw new Error(`job ${job} is no cron task`);
  const counted = await db.query(
    `INSERT INTO cron_task_run (name, exec_times, prev, last_slot) VALUES ($1, 1, now(), $2)
     ON CONFLICT (name) DO UPDATE SET exec_times = cron_task_run.exec_times + 1, prev = now(),
       last_slot = coalesce(EXCLUDED.last_slot, cron_task_run.last_slot)
     WHERE EXCLUDED.last_slot IS NULL OR cron_task_run.last_slot IS NULL OR cron_task_run.last_slot < EXCLUDED.last_slot
     RETURNING 1`,
    [task.name, slot ?? null],
  );
  return counted.length === 1;
}
