import { inTx } from '../../../data-source.js';
import { enqueueMany } from '../../../../jobs/queue.js';
import type { DoctorCheck, Finding } from './check.js';

/**
 * How far back events are checked: pg-boss keeps a finished job in its archive for 7 days (its `deleteAfterDays`),
 * after which an event's `notify` job is gone whatever happened; a day less leaves room for the archive's own clock.
 */
export const eventWindowDays = 6;

/**
 * Domain events of the last days with no `notify` job, waiting, running, finished or archived: emit inserts both in
 * one transaction, so one without the other is damage (a job deleted by hand, a restore of one table). The fix
 * queues their `notify` jobs; the notifier makes each hook task and thread once per event, however often it runs.
 */
export const events: DoctorCheck<Finding & { eventId: number }> = {
  name: 'events',
  title: 'domain events without their notify job',
  async find({ store }) {
    const rows = await store.db.query<{ id: string; kind: string }>(
      `SELECT e.id::text, e.kind FROM domain_event e
        WHERE e.created > now() - make_interval(days => $1)
          AND e.id NOT IN (SELECT (data->>'eventId')::bigint FROM pgboss.job WHERE name = 'notify' AND data ? 'eventId'
                           UNION ALL SELECT (data->>'eventId')::bigint FROM pgboss.archive WHERE name = 'notify' AND data ? 'eventId')
        ORDER BY e.id`,
      [eventWindowDays],
    );
    return rows.map((row) => ({ eventId: Number(row.id), subject: `event ${row.id} (${row.kind})`, problem: 'has no notify job' }));
  },
  async fix({ store }, findings) {
    await inTx(store, (tx) => enqueueMany(tx, 'notify', findings.map((finding) => ({ eventId: finding.eventId }))));
    return findings.length;
  },
};
