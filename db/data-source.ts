import { DataSource, type EntityManager } from 'typeorm';
import type PgBoss from 'pg-boss';
import pg from 'pg';
import { migrations } from './migrations/index.js';
import type { JobTx } from '../jobs/queue.js';
import { idleConnectionMs, statementNames } from '../jobs/prepared-db.js';

export function createDataSource(url: string, applicationName = 'hearth'): DataSource {
  return new DataSource({
    type: 'postgres',
    url,
    entities: [],
    migrations,
    synchronize: false,
    migrationsRun: false,
    applicationName,
    extra: { max: 10, idleTimeoutMillis: idleConnectionMs },
  });
}

const migrationLock = 7_302_001;

/** Applies pending migrations; an advisory lock lets web and worker boot side by side. */
export async function migrate(ds: DataSource): Promise<void> {
  const runner = ds.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [migrationLock]);
    await ds.runMigrations({ transaction: 'each' });
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [migrationLock]).catch(() => undefined);
    await runner.release();
  }
}

export interface QueryOptions {
  /**
   * The statement's generic plan is good for every parameter: plan it once per connection, where PostgreSQL would
   * plan every execution anew because its generic estimate looks dearer (a LIMIT parameter is estimated at a tenth of
   * the rows). The pooled reader honours it; a transaction plans as usual.
   */
  planOnce?: boolean;
}

/** Anything that answers SQL with rows: a transaction, or the data source's pool for reads. */
export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[], options?: QueryOptions): Promise<T[]>;
}

/** A transaction handle: TypeORM's manager plus the executor pg-boss uses to insert jobs on the same connection. */
export interface Tx extends JobTx, Queryable {
  manager: EntityManager;
  /** Undo work outside the database (a git directory, a blob) if the transaction does not commit. */
  onRollback(undo: () => Promise<void>): void;
  /** Work outside the database that may only happen once the change is durable (removing a directory). */
  afterCommit(then: () => Promise<void>): void;
  /**
   * Lets the commit release this transaction's locks before its WAL is on disk (synchronous_commit off for it);
   * inTx still returns, and afterCommit work still runs, only once it is. For a transaction that ends holding a lock
   * that others queue on, so that the queue moves at the pace of the commits rather than of the disk's flushes.
   * Returns the SQL expression that turns synchronous_commit off: the caller evaluates it in its next statement
   * (saving a round trip while the lock is held). Left unevaluated, the commit just waits for its flush as usual.
   */
  releaseLocksBeforeFlush(): string;
}

/** What model operations need from their process: the database (and a pooled reader on it) and the queue. */
export interface Store {
  ds: DataSource;
  db: Queryable;
  boss: PgBoss;
}

const nameOf = statementNames();

/** A few connections that keep one generic plan per prepared statement, for reads marked `planOnce`. */
export function createPlanOncePool(url: string, applicationName: string): pg.Pool {
  return new pg.Pool({
    connectionString: url, max: 4, idleTimeoutMillis: idleConnectionMs, application_name: applicationName, options: '-c plan_cache_mode=force_generic_plan',
  });
}

/**
 * Reads straight from the data source's pg pool: one round trip, no query-runner bookkeeping on hot paths. Reads
 * marked `planOnce` go to `planOncePool` when there is one.
 */
export function poolReader(ds: DataSource, planOncePool?: pg.Pool): Queryable {
  const pool = (ds.driver as unknown as { master: pg.Pool }).master;
  return {
    query: async <T>(sql: string, params?: unknown[], options?: QueryOptions): Promise<T[]> =>
      (await (options?.planOnce && planOncePool ? planOncePool : pool).query({ name: nameOf(sql), text: sql, values: params })).rows as T[],
  };
}

/**
 * PostgreSQL's answers to a transaction that lost a race with a concurrent one: a unique key the other inserted first
 * (23505, when the model did not map it itself), a deadlock (40P01) or a serialization failure (40001).
 */
const lostRace = new Set(['23505', '40P01', '40001']);

function isLostRace(error: unknown): boolean {
  const code = (error as { code?: string; driverError?: { code?: string } } | null)?.code ?? (error as { driverError?: { code?: string } } | null)?.driverError?.code;
  return typeof code === 'string' && lostRace.has(code);
}

/**
 * Runs `work` in one transaction. A transaction that lost a race is undone and run once more: it then sees what the
 * winner committed and answers what it would have answered coming second (a 409 or 422 from the model's own checks,
 * or the idempotent success), so a race never surfaces as a database error.
 */
export async function inTx<T>(store: Pick<Store, 'ds' | 'boss'>, work: (tx: Tx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const hooks: Hooks = { undos: [], thens: [], flushAfterCommit: false };
    let result: T;
    try {
      result = await runTx(store, hooks, work);
    } catch (error) {
      for (const undo of hooks.undos.reverse()) await undo().catch(() => undefined);
      if (attempt === 1 && isLostRace(error)) continue;
      throw error;
    }
    if (hooks.flushAfterCommit) await flushWal(store);
    for (const then of hooks.thens) await then();
    return result;
  }
}

/**
 * Waits until every commit made so far is on disk: a transaction that writes (a logical message, which nothing
 * decodes) commits synchronously, and PostgreSQL flushes the WAL in order, so everything before it is flushed too.
 */
async function flushWal(store: Pick<Store, 'ds'>): Promise<void> {
  await store.ds.query(`SELECT pg_logical_emit_message(true, 'hearth', 'flush')`);
}

interface Hooks {
  undos: Array<() => Promise<void>>;
  thens: Array<() => Promise<void>>;
  flushAfterCommit: boolean;
}

async function runTx<T>(store: Pick<Store, 'ds' | 'boss'>, hooks: Hooks, work: (tx: Tx) => Promise<T>): Promise<T> {
  const { undos, thens } = hooks;
  return store.ds.transaction(async (manager) => {
    // the transaction's connection, spoken to directly: prepared statements, no query-runner bookkeeping per statement
    const client = (manager.queryRunner as unknown as { databaseConnection: pg.PoolClient }).databaseConnection;
    const query = async <R>(sql: string, params?: unknown[]): Promise<R[]> =>
      (await client.query({ name: nameOf(sql), text: sql, values: params })).rows as R[];
    const tx: Tx = {
      manager,
      boss: store.boss,
      query,
      jobDb: { executeSql: async (text, values) => ({ rows: await query(text, values) }) },
      onRollback: (undo) => undos.push(undo),
      afterCommit: (then) => thens.push(then),
      releaseLocksBeforeFlush: () => {
        hooks.flushAfterCommit = true;
        return `set_config('synchronous_commit', 'off', true)`;
      },
    };
    return work(tx);
  });
}

