import test from 'ava';
import { startHearth } from '../helpers/hearth.js';

test('healthz, version and an unknown route', async (t) => {
  const hearth = await startHearth(t);
  const health = await hearth.call('GET', '/api/healthz');
  t.is(health.status, 200);
  t.is(health.body.status, 'pass');
  const version = await hearth.call('GET', '/version');
  t.is(version.status, 200);
  t.regex(version.body.version, /^1\.22\./);
  const missing = await hearth.call('GET', '/no/such/route');
  t.is(missing.status, 404);
  t.deepEqual(Object.keys(missing.body).sort(), ['errors', 'message', 'url']);
});
