import parser from 'cron-parser';
import type PgBoss from 'pg-boss';
import type { Queryable } from '../../data-source.js';
import { notFound } from '../../errors.js';

// Hearth's scheduled tasks are pg-boss schedules: a worker's clock sends the named job on each tick of its cron
// expression. This module reads them for the admin API; it defines none.

export interface CronTask {
  name: string;
  schedule: string;
  next: Date;
  /** When a run last started, if one has. */
  prev: Date | null;
  /** Runs that completed. */
  execTimes: number;
}

interface ScheduleRow {
  name: string;
  cron: string;
  timezone: string | null;
  data: object | null;
  options: PgBoss.ScheduleOptions | null;
}

/** The tasks by name, each with its next tick (computed as pg-boss's clock computes it) and its runs so far. */
export async function listCronTasks(boss: PgBoss, db: Queryable): Promise<CronTask[]> {
  const schedules = [...((await boss.getSchedules()) as unknown as ScheduleRow[])].sort((a, b) => a.name.localeCompare(b.name));
  // pgboss.job holds queued and recent jobs, pgboss.archive the older ones: together, every run. One statement for all tasks.
  const runs = await db.query<{ name: string; completed: number; last: Date | null }>(
    `SELECT name, count(*) FILTER (WHERE state = 'completed')::int AS completed, max(started_on) AS last
     FROM (SELECT name, state, started_on FROM pgboss.job WHERE name = ANY($1::text[])
           UNION ALL SELECT name, state, started_on FROM pgboss.archive WHERE name = ANY($1::text[])) runs
     GROUP BY name`,
    [schedules.map((schedule) => schedule.name)],
  );
  const byName = new Map(runs.map((row) => [row.name, row]));
  const tasks: CronTask[] = [];
  for (const schedule of schedules) {
    const ran = byName.get(schedule.name);
    const next = parser.parseExpression(schedule.cron, { tz: schedule.timezone ?? 'UTC' }).next().toDate();
    tasks.push({ name: schedule.name, schedule: schedule.cron, next, prev: ran?.last ?? null, execTimes: ran?.completed ?? 0 });
  }
  return tasks;
}

/** Runs a task now, outside its schedule: its job is sent with the schedule's data and options. Unknown names answer 404. */
export async function runCronTask(boss: PgBoss, name: string): Promise<void> {
  const schedule = ((await boss.getSchedules()) as unknown as ScheduleRow[]).find((row) => row.name === name);
  if (!schedule) throw notFound(`cron task ${name} does not exist`);
  await boss.send(name, schedule.data ?? {}, schedule.options ?? {});
}
