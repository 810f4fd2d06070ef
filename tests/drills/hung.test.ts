import test from 'ava';
import { startHearth } from '../helpers/hearth.js';
import { avaEnv } from './drill.js';
import { hungDrill } from './hung.js';

// The short hung remote drill ([git.timeout] 2 s; npm run drill -- hung runs it with 10 s): a finding fails the test.
test('hung remote drill (short): silent and trickling remotes end within their timeouts, connections closed, others keep syncing', async (t) => {
  const env = avaEnv(t, 'hung', startHearth);
  await hungDrill(env);
  t.deepEqual(env.log.findings, []);
});
