import { inTx } from '../../../data-source.js';
import { enqueue } from '../../../../jobs/queue.js';
import { overdueAfterSeconds } from '../mirror-monitor.js';
import type { DoctorCheck, Finding } from './check.js';

interface MirrorFinding extends Finding {
  kind: 'pull' | 'push';
  /** The repository (pull) or the push mirror's id (push). */
  id: number;
  stuck: boolean;
}

/** Pull mirrors (`mirror`, by repository) and push mirrors (`push_mirror`, by id), with their job and its key. */
const mirrorRows = `
  SELECT 'pull' AS kind, m.repo_id AS id, m.repo_id, m.next_update, m.lease_until, 'mirror-sync' AS queue, 'mirror-' || m.repo_id AS key FROM mirror m
  UNION ALL
  SELECT 'push', p.id, p.repo_id, p.next_update, p.lease_until, 'push-mirror', 'push-mirror-' || p.id FROM push_mirror p`;

/**
 * Mirrors marked running (leased) with no job of theirs active, and mirrors overdue (due more than two sweeps ago)
 * with no job of theirs waiting or active. The fix ends the stale lease and queues the mirror's sync.
 */
export const mirrors: DoctorCheck<MirrorFinding> = {
  name: 'mirrors',
  title: 'mirrors overdue, or marked running with no live job',
  async find({ store }) {
    const rows = await store.db.query<{ kind: 'pull' | 'push'; id: string; owner: string; repo: string; stuck: boolean; overdue: boolean }>(
      `SELECT s.kind, s.id::text, r.owner_name AS owner, r.name AS repo, s.stuck, s.overdue FROM (
         SELECT m.*, m.leased AND NOT m.active AS stuck,
                m.next_update < now() - make_interval(secs => $1) AND NOT m.leased AND NOT m.waiting AND NOT m.active AS overdue
           FROM (SELECT x.*, coalesce(x.lease_until > now(), false) AS leased,
                   EXISTS (SELECT 1 FROM pgboss.job j WHERE j.name = x.queue AND j.singleton_key = x.key AND j.state = 'active') AS active,
                   EXISTS (SELECT 1 FROM pgboss.job j WHERE j.name = x.queue AND j.singleton_key = x.key AND j.state < 'active') AS waiting
                 FROM (${mirrorRows}) x) m
       ) s JOIN repository r ON r.id = s.repo_id
       WHERE s.stuck OR s.overdue ORDER BY r.owner_name, r.name, s.kind, s.id`,
      [overdueAfterSeconds],
    );
    return rows.map((row) => ({
      kind: row.kind, id: Number(row.id), stuck: row.stuck,
      subject: `${row.kind} mirror ${row.owner}/${row.repo}${row.kind === 'push' ? ` (#${row.id})` : ''}`,
      problem: row.stuck ? 'marked running, but no sync job of it is active' : 'overdue, and no sync of it is queued',
    }));
  },
  async fix({ store }, findings) {
    for (const finding of findings) {
      await inTx(store, async (tx) => {
        const table = finding.kind === 'pull' ? 'mirror' : 'push_mirror';
        const key = finding.kind === 'pull' ? 'repo_id' : 'id';
        if (finding.stuck) await tx.query(`UPDATE ${table} SET lease_until = NULL, lease_token = NULL, lease_worker = NULL WHERE ${key} = $1`, [finding.id]);
        if (finding.kind === 'pull') await enqueue(tx, 'mirror-sync', { repoId: finding.id });
        else await enqueue(tx, 'push-mirror', { pushMirrorId: finding.id });
      });
    }
    return findings.length;
  },
};
