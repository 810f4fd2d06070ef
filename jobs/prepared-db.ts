import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type PgBoss from 'pg-boss';
import pg from 'pg';

/**
 * How long a pooled connection stays open unused. Its prepared statements and their plans go with it: a connection
 * closed after pg's default 10 s idle is planned afresh once reopened, which at a steady trickle of requests is
 * often, and some plans cost tens of milliseconds (pg-boss's fetch across the job partitions).
 */
export const idleConnectionMs = 10 * 60_000;

/**
 * Statements prepared once per connection, named by their text, so PostgreSQL parses and plans them once rather than
 * on every execution. Texts past the first 2,000 a process meets run unnamed, so a query built with varying text
 * (an IN list spelled out, a column list) cannot grow every connection's statements without bound.
 */
export function statementNames(): (sql: string) => string | undefined {
  const names = new Map<string, string>();
  return (sql) => {
    let name = names.get(sql);
    if (!name && names.size < 2_000) {
      name = `h${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`;
      names.set(sql, name);
    }
    return name;
  };
}

/**
 * pg-boss names the jobs of a complete, fail, cancel, resume or delete with `id IN (SELECT UNNEST($2::uuid[]))`.
 * Planned generically (these statements are prepared), that may become a hash join over every job the queue keeps,
 * completed ones included (seen with about a thousand kept jobs: a millisecond a call); `= ANY` is planned as lookups in
 * the queue's primary key.
 */
export function withIdLookups(text: string): string {
  return text.replaceAll('id IN (SELECT UNNEST($2::uuid[]))', 'id = ANY($2::uuid[])');
}

/**
 * pg-boss's database (its own `Db`: a pool opened on start and closed on stop) with its statements prepared: a worker
 * runs the same fetch, claim and completion for every job, and planning the fetch over the partitioned job table
 * cost more than running it (see also withIdLookups). Statements without parameters (its migrations and queue DDL,
 * several commands in one text) go unprepared, as the extended protocol takes one command only.
 */
export class PreparedBossDb extends EventEmitter implements PgBoss.Db {
  readonly isOurs = true;
  /** The events pg-boss re-emits as its own. */
  readonly events = { error: 'error' };
  opened = false;
  private pool: pg.Pool | null = null;
  private readonly nameOf = statementNames();

  constructor(private readonly config: pg.PoolConfig) {
    super();
  }

  async open(): Promise<void> {
    this.pool = new pg.Pool(this.config);
    this.pool.on('error', (error) => this.emit('error', error));
    this.opened = true;
  }

  async close(): Promise<void> {
    if (!this.pool || !this.opened) return;
    this.opened = false;
    await this.pool.end();
  }

  async executeSql(text: string, values?: unknown[]): Promise<{ rows: any[] }> {
    if (!this.pool || !this.opened) throw new Error('the job queue database is not open');
    if (!values?.length) return this.pool.query(text);
    return this.pool.query({ name: this.nameOf(text), text: withIdLookups(text), values });
  }
}
