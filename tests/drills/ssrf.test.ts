import test from 'ava';
import { startHearth } from '../helpers/hearth.js';
import { avaEnv } from './drill.js';
import { ssrfDrill } from './ssrf.js';

// The short SSRF drill (npm run drill -- ssrf runs every spelling): a finding fails the test.
test('ssrf drill (short): forged targets refused with the reason recorded, allowed when the allow-lists name them', async (t) => {
  const env = avaEnv(t, 'ssrf', startHearth);
  await ssrfDrill(env);
  t.deepEqual(env.log.findings, []);
  t.true(env.log.checks > 20);
});
