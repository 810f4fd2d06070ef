import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Leases on pull and push mirrors (db/models/mirrors/sync-lease.ts): a git transfer marks its mirror as being
 * synced until `lease_until`, by the holder `lease_token` running in the worker process `lease_worker`, instead of
 * holding the row locked (and a connection) for the transfer; `rerun` asks the holder for one more transfer.
 */
export class MirrorLeases1732000017200 implements MigrationInterface {
  name = 'MirrorLeases1732000017200';

  async up(db: QueryRunner): Promise<void> {
    for (const table of ['mirror', 'push_mirror']) {
      await db.query(`ALTER TABLE ${table} ADD COLUMN lease_until timestamptz, ADD COLUMN lease_token uuid, ADD COLUMN lease_worker integer,
        ADD COLUMN rerun boolean NOT NULL DEFAULT false`);
    }
  }

  async down(db: QueryRunner): Promise<void> {
    for (const table of ['mirror', 'push_mirror']) {
      await db.query(`ALTER TABLE ${table} DROP COLUMN lease_until, DROP COLUMN lease_token, DROP COLUMN lease_worker, DROP COLUMN rerun`);
    }
  }
}
