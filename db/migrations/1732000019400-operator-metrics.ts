import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the queue monitor and /metrics read: the worker processes alive now (jobs/worker-heartbeat.ts), how long each
 * mirror's last sync took and how many have failed, and the hook task indexes that keep the last hour of deliveries
 * and the waiting ones cheap to count at every scrape.
 */
export class OperatorMetrics1732000019400 implements MigrationInterface {
  name = 'OperatorMetrics1732000019400';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE worker_process (
        id integer PRIMARY KEY,
        host text NOT NULL,
        pid integer NOT NULL,
        actors text[] NOT NULL,
        queues jsonb NOT NULL,
        started timestamptz NOT NULL DEFAULT now(),
        heartbeat timestamptz NOT NULL DEFAULT now()
      )`);
    for (const table of ['mirror', 'push_mirror']) {
      await db.query(`ALTER TABLE ${table} ADD COLUMN last_sync_at timestamptz, ADD COLUMN last_sync_seconds double precision,
        ADD COLUMN failed_syncs bigint NOT NULL DEFAULT 0`);
    }
    await db.query(`CREATE INDEX hook_task_delivered ON hook_task (delivered) WHERE delivered IS NOT NULL`);
    await db.query(`CREATE INDEX hook_task_waiting ON hook_task (created) WHERE NOT is_delivered`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX hook_task_waiting`);
    await db.query(`DROP INDEX hook_task_delivered`);
    for (const table of ['mirror', 'push_mirror']) {
      await db.query(`ALTER TABLE ${table} DROP COLUMN last_sync_at, DROP COLUMN last_sync_seconds, DROP COLUMN failed_syncs`);
    }
    await db.query(`DROP TABLE worker_process`);
  }
}
