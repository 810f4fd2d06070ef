import { randomUUID } from 'node:crypto';
import { mirrorJobExpirySeconds } from '../../../jobs/catalogue.js';
import { workerAlive } from '../../../jobs/lost-jobs.js';
import type { Queryable, Tx } from '../../data-source.js';

/**
 * A mirror being synced is leased, not locked: a short transaction marks it with a lease (a token, the holder's
 * worker process, an expiry), git transfers with no transaction open, and a second short transaction records the
 * outcome and ends the lease. One lease at a time, so two workers never transfer into or out of one mirror at
 * once; a request that finds the mirror leased sets `rerun` and the holder transfers once more after its own. A
 * lease is free once it expired, or at once when its holder's worker process is gone (its lock released), so a
 * killed sync never wedges its mirror. The lease outlives the job's expiry, which outlives git's own timeout.
 */
export type LeasedTable = 'mirror' | 'push_mirror';

/** What names a row of each leased table. */
const keyOf: Record<LeasedTable, string> = { mirror: 'repo_id', push_mirror: 'id' };

export interface Lease {
  table: LeasedTable;
  id: number;
  token: string;
}

/** SQL that is true when the row's lease may be taken. */
export const leaseFree = (alias: string): string =>
  `(${alias}.lease_until IS NULL OR ${alias}.lease_until <= now() OR (${alias}.lease_worker IS NOT NULL AND NOT ${workerAlive(`${alias}.lease_worker`)}))`;

/**
 * Takes the lease of the row and answers the row, or answers null: when the row is gone, or leased by a live holder
 * (which is then asked to run once more). One statement, which locks the row first, so it is ordered with the
 * holder's end of its lease and a request is never lost between the two; it needs no transaction around it.
 */
export async function takeLease<T>(db: Queryable, table: LeasedTable, id: number, workerId: number | null): Promise<{ lease: Lease; row: T } | null> {
  const key = keyOf[table];
  const token = randomUUID();
  const [row] = await db.query<T>(
    `WITH current AS (SELECT ${key}, ${leaseFree(table)} AS free FROM ${table} WHERE ${key} = $1 FOR UPDATE),
     taken AS (
       UPDATE ${table} t SET lease_until = now() + make_interval(secs => $2), lease_token = $3, lease_worker = $4, rerun = false
       FROM current WHERE t.${key} = current.${key} AND current.free RETURNING t.*),
     asked AS (UPDATE ${table} t SET rerun = true FROM current WHERE t.${key} = current.${key} AND NOT current.free RETURNING 1)
     SELECT * FROM taken`,
    [id, mirrorJobExpirySeconds, token, workerId],
  );
  return row ? { lease: { table, id, token }, row } : null;
}

/**
 * Locks the leased row for recording the outcome and answers it, if the lease is still this one (a lease that
 * expired may have gone to another holder, whose transfer then is the one to record); `rerun` says whether another
 * run was asked for meanwhile (nothing changes it while the row is locked).
 */
export async function lockLeased<T>(tx: Tx, lease: Lease): Promise<(T & { rerun: boolean }) | null> {
  const [row] = await tx.query<T & { rerun: boolean }>(
    `SELECT * FROM ${lease.table} WHERE ${keyOf[lease.table]} = $1 AND lease_token = $2 FOR UPDATE`, [lease.id, lease.token],
  );
  return row ?? null;
}

/** The assignments that end a lease, for the UPDATE that records its outcome on the row `lockLeased` answered. */
/** SET clause recording a sync's end on its mirror row: when it ended, how long it took (the parameter `seconds`), a failure counted. */
export const syncEnded = (seconds: string, failed: boolean): string =>
  `last_sync_at = now(), last_sync_seconds = ${seconds}::float8${failed ? ', failed_syncs = failed_syncs + 1' : ''}`;

export const leaseEnded = 'lease_until = NULL, lease_token = NULL, lease_worker = NULL, rerun = false';

/** Ends the lease of a transfer that failed unexpectedly, so the mirror is free again at once. */
export async function endLease(db: Queryable, lease: Lease): Promise<void> {
  await db.query(`UPDATE ${lease.table} SET ${leaseEnded} WHERE ${keyOf[lease.table]} = $1 AND lease_token = $2`, [lease.id, lease.token]);
}
