import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The kind of service a migrated repository came from (Gitea's `original_service_type`, by name: `git`, `gitea`,
 * `forgejo`, `gogs`, …; empty for a repository made here). Gitea names what the source's people did with it, e.g. a
 * migrated reaction's user `alice(gitea)`.
 */
export class OriginalService1732000018200 implements MigrationInterface {
  name = 'OriginalService1732000018200';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE repository ADD COLUMN original_service_type text NOT NULL DEFAULT ''`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE repository DROP COLUMN original_service_type');
  }
}
