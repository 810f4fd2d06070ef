import type { DoctorCheck, DoctorContext, Finding } from './check.js';
import { doctorChecks } from './index.js';

/** What one check found, and with `fix`, what it repaired and what a second look still finds. */
export interface CheckReport {
  check: DoctorCheck;
  found: Finding[];
  /** Repairs made; 0 without `fix`. */
  fixed: number;
  /** What remains: `found` without `fix`, what a second `find` finds after it. */
  remaining: Finding[];
}

/**
 * Runs every check (or the given ones) in order; with `fix`, repairs what each found before the next check runs and
 * looks again. `onStart` hears each check as it begins, `onReport` its report as it is made.
 */
export async function runDoctor(
  ctx: DoctorContext,
  options: { fix: boolean; checks?: DoctorCheck[]; onStart?: (check: DoctorCheck) => void; onReport?: (report: CheckReport) => void },
): Promise<CheckReport[]> {
  const reports: CheckReport[] = [];
  for (const check of options.checks ?? doctorChecks) {
    options.onStart?.(check);
    const found = await check.find(ctx);
    let fixed = 0;
    let remaining = found;
    if (options.fix && found.length > 0) {
      fixed = await check.fix(ctx, found);
      remaining = await check.find(ctx);
    }
    const report = { check, found, fixed, remaining };
    options.onReport?.(report);
    reports.push(report);
  }
  return reports;
}
