import type { CronTask } from '../../db/models/instance/cron-tasks.js';
import { iso } from './time.js';

/** The Cron definition. */
export interface ApiCron {
  name: string;
  schedule: string;
  next: string;
  prev: string;
  exec_times: number;
}

/** Gitea's zero time stands for a task that has not run yet, or has no next run (not enabled). */
const never = new Date('0001-01-01T00:00:00Z');

export function renderCron(task: CronTask): ApiCron {
  return { name: task.name, schedule: task.schedule, next: iso(task.next ?? never), prev: iso(task.prev ?? never), exec_times: task.execTimes };
}
