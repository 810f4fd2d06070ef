import type { DoctorCheck, Finding } from './check.js';

/**
 * Jobs still active past their expiry: pg-boss's maintenance (a worker's supervisor, or the queue_maintenance task)
 * has not run since. The fix is that maintenance's expiry: each is retried, or failed when out of attempts.
 */
export const expiredJobs: DoctorCheck<Finding & { id: string }> = {
  name: 'expired-jobs',
  title: 'jobs active past their expiry',
  async find({ store }) {
    const rows = await store.db.query<{ id: string; name: string; late: string }>(
      `SELECT id::text, name, date_trunc('second', now() - (started_on + expire_in))::text AS late
         FROM pgboss.job WHERE state = 'active' AND started_on + expire_in < now() ORDER BY name, started_on`,
    );
    return rows.map((row) => ({ id: row.id, subject: `job ${row.name} ${row.id}`, problem: `active ${row.late} past its expiry` }));
  },
  async fix({ store }, findings) {
    if (findings.length === 0) return 0;
    // pg-boss 10 promotes expire() onto the instance; its type declarations leave it out
    await (store.boss as unknown as { expire(): Promise<void> }).expire();
    const [{ left }] = await store.db.query<{ left: number }>(
      `SELECT count(*)::int AS left FROM pgboss.job WHERE state = 'active' AND id = ANY($1::uuid[])`, [findings.map((f) => f.id)],
    );
    return findings.length - left;
  },
};
