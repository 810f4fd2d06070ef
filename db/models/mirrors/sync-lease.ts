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
 * Takes the lease of the row, or answers null: when the row is gone, or leased by a live holder (which is then
 * asked to run once more). The row lock of this transaction orders it with the holder's `endLease`, so a request
 * is never lost between the two.
 */
export async function takeLease(tx: Tx, table: LeasedTable, id: number, workerId: number | null): Promise<Lease | null> {
  const key = keyOf[table];
  const [row] = await tx.query<{ free: boolean }>(`SELECT ${leaseFree(table)} AS free FROM ${table} WHERE ${key} = $1 FOR UPDATE`, [id]);
  if (!row) return null;
  if (!row.free) {
    await tx.query(`UPDATE ${table} SET rerun = true WHERE ${key} = $1`, [id]);
    return null;
  }
  const token = randomUUID();
  await tx.query(
    `UPDATE ${table} SET lease_until = now() + make_interval(secs => $2), lease_token = $3, lease_worker = $4, rerun = false WHERE ${key} = $1`,
    [id, mirrorJobExpirySeconds, token, workerId],
  );
  return { table, id, token };
}

/**
 * Locks the leased row for recording the outcome, if the lease is still this one (a lease that expired may have
 * gone to another holder, whose transfer then is the one to record). Answers whether it is.
 */
export async function holdsLease(tx: Tx, lease: Lease): Promise<boolean> {
  const rows = await tx.query(`SELECT 1 FROM ${lease.table} WHERE ${keyOf[lease.table]} = $1 AND lease_token = $2 FOR UPDATE`, [lease.id, lease.token]);
  return rows.length > 0;
}

/** Ends the lease in the caller's transaction; answers whether another run was asked for meanwhile. */
export async function endLease(db: Queryable, lease: Lease): Promise<boolean> {
  const [row] = await db.query<{ rerun: boolean }>(
    `UPDATE ${lease.table} t SET lease_until = NULL, lease_token = NULL, lease_worker = NULL, rerun = false
     FROM ${lease.table} before WHERE before.${keyOf[lease.table]} = t.${keyOf[lease.table]}
       AND t.${keyOf[lease.table]} = $1 AND t.lease_token = $2
     RETURNING before.rerun`,
    [lease.id, lease.token],
  );
  return row?.rerun ?? false;
}
