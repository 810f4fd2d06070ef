import test from 'ava';
import { startHearth } from '../helpers/hearth.js';

test('reads marked planOnce run on connections that keep one generic plan; other reads plan as PostgreSQL chooses', async (t) => {
  const hearth = await startHearth(t);
  const setting = async (planOnce?: boolean) =>
    (await hearth.store.db.query<{ plan_cache_mode: string }>('SHOW plan_cache_mode', [], { planOnce }))[0].plan_cache_mode;
  t.is(await setting(true), 'force_generic_plan');
  t.is(await setting(), 'auto');
  t.is(await setting(false), 'auto');
});
