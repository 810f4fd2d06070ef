import test from 'ava';
import { startHearth } from '../helpers/hearth.js';
import { describeTotals, fuzz } from './harness.js';

/**
 * `npm test` sends a few generated bad requests to every declared operation; `npm run fuzz` (HEARTH_FUZZ_RUNS=20)
 * sends many more and prints the totals. Either fails on a 5xx, a leak of internals, a refused request that changed
 * state, or fixtures that did not survive.
 */
const perOperation = Number(process.env.HEARTH_FUZZ_RUNS ?? 2);
const seed = Number(process.env.HEARTH_FUZZ_SEED ?? 20261124);

test('no generated bad request gets a 5xx, leaks internals, or changes state when refused', async (t) => {
  if (perOperation > 2) t.timeout(60 * 60_000);
  const hearth = await startHearth(t);
  const totals = await fuzz(hearth, { perOperation, seed }, process.env.HEARTH_FUZZ_PROGRESS ? (line) => console.log(line) : undefined);
  const report = describeTotals(totals);
  if (perOperation > 2) console.log(`\nFuzz totals (seed ${seed}, ${perOperation} per operation and caller mix):\n${report}\n`);
  t.log(report);
  t.deepEqual(totals.findings.map((f) => `${f.operation} [${f.kind} as ${f.caller}] ${f.status}: ${f.problem.slice(0, 160)}`), []);
  t.true(totals.fixturesIntact, totals.fixtureProblems.join('; '));
  t.true(totals.requests >= totals.operations * perOperation * 0.99);
});
