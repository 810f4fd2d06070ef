import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Migrations and mirrors: a repository's status (being migrated), Gitea's task table for migrations (why one
 * failed stays after its repository is gone), pull-mirror credentials and last error, and push mirrors.
 * Credentials are AES-GCM sealed (db/crypto.ts); addresses are stored without them.
 */
export class Mirrors1732000013000 implements MigrationInterface {
  name = 'Mirrors1732000013000';

  async up(db: QueryRunner): Promise<void> {
    // 0 ready, 1 being migrated (Gitea's RepositoryReady / RepositoryBeingMigrated).
    await db.query(`ALTER TABLE repository ADD COLUMN status smallint NOT NULL DEFAULT 0`);
    // synced_refs: the branches and tags as the last recorded sync left them; the next sync records the difference.
    await db.query(`ALTER TABLE mirror ADD COLUMN credentials text, ADD COLUMN last_error text NOT NULL DEFAULT '',
      ADD COLUMN synced_refs jsonb NOT NULL DEFAULT '{}'`);
    await db.query(`CREATE INDEX mirror_next_update ON mirror (next_update) WHERE next_update IS NOT NULL`);
    await db.query(`
      CREATE TABLE migration_task (
        id bigserial PRIMARY KEY,
        doer_id bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
        owner_id bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
        repo_id bigint REFERENCES repository(id) ON DELETE SET NULL,
        repo_name text NOT NULL,
        clone_addr text NOT NULL,
        options jsonb NOT NULL DEFAULT '{}',
        credentials text,
        status text NOT NULL DEFAULT 'queued',
        message text NOT NULL DEFAULT '',
        created timestamptz NOT NULL DEFAULT now(),
        started timestamptz,
        ended timestamptz
      )`);
    await db.query(`CREATE INDEX migration_task_repo ON migration_task (repo_id)`);
    await db.query(`
      CREATE TABLE push_mirror (
        id bigserial PRIMARY KEY,
        repo_id bigint NOT NULL REFERENCES repository(id) ON DELETE CASCADE,
        remote_name text NOT NULL,
        remote_address text NOT NULL,
        credentials text,
        sync_on_commit boolean NOT NULL DEFAULT false,
        interval_seconds integer NOT NULL DEFAULT 0,
        next_update timestamptz,
        last_update timestamptz,
        last_error text NOT NULL DEFAULT '',
        created timestamptz NOT NULL DEFAULT now(),
        UNIQUE (repo_id, remote_name)
      )`);
    await db.query(`CREATE INDEX push_mirror_next_update ON push_mirror (next_update) WHERE next_update IS NOT NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE push_mirror, migration_task`);
    await db.query(`DROP INDEX mirror_next_update`);
    await db.query(`ALTER TABLE mirror DROP COLUMN credentials, DROP COLUMN last_error, DROP COLUMN synced_refs`);
    await db.query(`ALTER TABLE repository DROP COLUMN status`);
  }
}
