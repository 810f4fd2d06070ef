import os from 'node:os';
import type { ExecutionContext } from 'ava';
import { startHearth } from '../helpers/hearth.js';
import { exitWith, withTemplateDatabase } from '../helpers/template-db.js';
import { DrillLog, type DrillEnv } from './drill.js';
import { hungDrill } from './hung.js';
import { ssrfDrill } from './ssrf.js';

/**
 * `npm run drill [-- NAME...]`: the reliability drills, full versions (their short versions run in `npm test`). Each
 * runs against Hearth's web app and actors on real sockets over a real PostgreSQL (embedded unless DATABASE_URL is
 * set), prints what it did and what it found, and the command exits non-zero on any finding.
 */
const drills: Record<string, (env: DrillEnv) => Promise<void>> = { ssrf: ssrfDrill, hung: hungDrill };
/** Drills the issue names that are not built yet: asked for, they fail rather than pass unrun. */
const notBuilt = ['crash', 'secrets', 'soak', 'scopes'];

async function runDrill(name: string, run: (env: DrillEnv) => Promise<void>): Promise<DrillLog> {
  const log = new DrillLog(name, (line) => console.log(line));
  const closers: Array<() => Promise<void> | void> = [];
  // startHearth takes a test's context for its teardown; the drill gives it one
  const context = { teardown: (close: () => Promise<void> | void) => closers.push(close) } as unknown as ExecutionContext;
  const started = Date.now();
  try {
    await run({ startHearth: (settings = {}) => startHearth(context, settings), teardown: (close) => closers.push(close), log, short: false });
  } catch (error) {
    log.check(false, 'the drill ran to its end', error instanceof Error ? (error.stack ?? error.message) : String(error));
  } finally {
    for (const close of closers.reverse()) await Promise.resolve(close()).catch(() => undefined);
  }
  log.figure('seconds', ((Date.now() - started) / 1000).toFixed(1));
  return log;
}

async function main(): Promise<number> {
  const asked = process.argv.slice(2);
  const unknown = asked.filter((name) => !(name in drills) && !notBuilt.includes(name));
  if (unknown.length > 0 || asked.includes('--help')) {
    console.error(`usage: npm run drill [-- ${Object.keys(drills).join('|')}]; not built yet: ${notBuilt.join(', ')}`);
    return 2;
  }
  const missing = asked.filter((name) => notBuilt.includes(name));
  if (missing.length > 0) {
    console.error(`not built yet: ${missing.join(', ')} (built: ${Object.keys(drills).join(', ')})`);
    return 1;
  }
  const chosen = asked.length > 0 ? asked : Object.keys(drills);
  console.log(`drills: ${chosen.join(', ')}; not built yet: ${notBuilt.join(', ')}`);

  return withTemplateDatabase(os.tmpdir(), async ({ adminUrl, template }) => {
    process.env.HEARTH_TEST_ADMIN_URL = adminUrl;
    process.env.HEARTH_TEST_TEMPLATE = template;
    const logs: DrillLog[] = [];
    for (const name of chosen) logs.push(await runDrill(name, drills[name]));
    console.log('\nsummary');
    for (const log of logs) console.log(`  ${log.name}: ${log.checks} checks, ${log.findings.length} findings, ${log.figures.seconds} s`);
    return logs.some((log) => log.findings.length > 0) ? 1 : 0;
  });
}

exitWith(main);
