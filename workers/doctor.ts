import { SingleBar, Presets } from 'cli-progress';
import { pino } from 'pino';
import type { Store } from '../db/data-source.js';
import { buildServices } from '../db/services.js';
import { noProgress, type DoctorContext, type Progress } from '../db/models/instance/doctor/check.js';
import { runDoctor, type CheckReport } from '../db/models/instance/doctor/run.js';
import type { Config } from '../db/process/config.js';

/** Findings printed per check; the rest are counted. */
const shownPerCheck = 50;

/** A cli-progress bar on standard error, shown only when it is a terminal. */
function terminalProgress(stream: NodeJS.WriteStream, label: () => string): Progress {
  if (!stream.isTTY) return noProgress;
  let bar: SingleBar | null = null;
  return {
    start(total) {
      bar = new SingleBar({ stream, format: `  ${label()} [{bar}] {value}/{total}`, clearOnComplete: true, hideCursor: true }, Presets.shades_classic);
      bar.start(total, 0);
    },
    increment: () => bar?.increment(),
    stop() {
      bar?.stop();
      bar = null;
    },
  };
}

/** A check's report as lines an operator reads. */
export function describeReport(report: CheckReport, fix: boolean): string[] {
  const { check, found, fixed, remaining } = report;
  if (found.length === 0) return [`ok    ${check.name}: ${check.title}: nothing found`];
  const lines = [`${remaining.length === 0 ? 'fixed' : 'FOUND'} ${check.name}: ${check.title}: ${found.length} found`];
  for (const finding of found.slice(0, shownPerCheck)) lines.push(`      - ${finding.subject}: ${finding.problem}`);
  if (found.length > shownPerCheck) lines.push(`      ... and ${found.length - shownPerCheck} more`);
  if (fix) lines.push(`      ${fixed} fixed, ${remaining.length} remain${remaining.length > 0 ? ` (e.g. ${remaining[0].subject}: ${remaining[0].problem})` : ''}`);
  return lines;
}

/**
 * `hearth doctor [--fix]`: runs every check against the data directory and database, prints what each found (and
 * fixed), and answers the exit code: 0 when nothing remains wrong, 1 otherwise.
 */
export async function doctorCommand(
  store: Pick<Store, 'ds' | 'boss' | 'db'>, config: Config, options: { fix: boolean; out?: (line: string) => void; err?: NodeJS.WriteStream },
): Promise<number> {
  const out = options.out ?? ((line: string) => console.log(line));
  let current = '';
  const services = buildServices(config, pino({ level: 'silent' }));
  const ctx: DoctorContext = {
    store,
    git: services.git,
    blobs: services.blobs,
    dataDir: config.dataDir,
    progress: terminalProgress(options.err ?? process.stderr, () => current),
  };
  const reports = await runDoctor(ctx, {
    fix: options.fix,
    onStart: (check) => (current = check.name),
    onReport: (report) => describeReport(report, options.fix).forEach((line) => out(line)),
  }).finally(() => services.digests.close());
  const found = reports.reduce((sum, report) => sum + report.found.length, 0);
  const fixed = reports.reduce((sum, report) => sum + report.fixed, 0);
  const remaining = reports.reduce((sum, report) => sum + report.remaining.length, 0);
  out(options.fix
    ? `doctor: ${found} problem(s) found, ${fixed} fixed, ${remaining} remain`
    : `doctor: ${found} problem(s) found${found > 0 ? '; run `npm run hearth -- doctor --fix` to repair them' : ''}`);
  return remaining > 0 ? 1 : 0;
}
