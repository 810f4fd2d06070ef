import type { StopwatchView } from '../../db/models/issues/stopwatches.js';
import type { TrackedTimeRow } from '../../db/models/issues/tracked-times.js';
import type { UserRow } from '../../db/models/users/user-row.js';
import type { ApiIssue } from './issue.js';
import { iso } from './time.js';

/** The TrackedTime definition of the Gitea 1.22 API description. */
export interface ApiTrackedTime {
  id: number;
  created: string;
  time: number;
  user_id: number;
  user_name: string;
  issue_id: number;
  issue: ApiIssue | null;
}

/** Gitea's ToTrackedTime: the user by name (a deleted account is its ghost), the issue rendered. */
export function renderTrackedTime(time: TrackedTimeRow, user: UserRow | null, issue: ApiIssue | null): ApiTrackedTime {
  return {
    id: time.id,
    created: iso(time.created),
    time: time.time,
    user_id: time.user_id ?? -1,
    user_name: user?.name ?? 'Ghost',
    issue_id: time.issue_id,
    issue,
  };
}

/** The StopWatch definition of the Gitea 1.22 API description. */
export interface ApiStopWatch {
  created: string;
  seconds: number;
  duration: string;
  issue_index: number;
  issue_title: string;
  repo_owner_name: string;
  repo_name: string;
}

export function renderStopwatch(stopwatch: StopwatchView): ApiStopWatch {
  return {
    created: iso(stopwatch.created),
    seconds: stopwatch.seconds,
    duration: durationText(stopwatch.seconds),
    issue_index: stopwatch.issue_index,
    issue_title: stopwatch.issue_title,
    repo_owner_name: stopwatch.repo_owner_name,
    repo_name: stopwatch.repo_name,
  };
}

/** Gitea's SecToTime: the two most significant units, e.g. "1 minute 6 seconds", "14 hours 33 minutes", "2 weeks 4 days". */
export function durationText(duration: number): string {
  let days = Math.floor(duration / 86400);
  const years = Math.floor(days / 365);
  days -= years * 365;
  const months = Math.floor((days * 12) / 365);
  days -= Math.floor((months * 365) / 12);
  const weeks = Math.floor(days / 7);
  days -= weeks * 7;
  const hours = Math.floor(duration / 3600) % 24;
  const minutes = Math.floor(duration / 60) % 60;
  const seconds = duration % 60;
  const pairs: [number, string][][] = [
    [[years, 'year'], [months, 'month']],
    [[months, 'month'], [weeks, 'week']],
    [[weeks, 'week'], [days, 'day']],
    [[days, 'day'], [hours, 'hour']],
    [[hours, 'hour'], [minutes, 'minute']],
  ];
  const shown = pairs.find(([[lead]]) => lead > 0) ?? [[minutes, 'minute'], [seconds, 'second']];
  return shown.filter(([value]) => value > 0).map(([value, unit]) => `${value} ${unit}${value > 1 ? 's' : ''}`).join(' ');
}
