import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Pending repository transfers (Gitea's repo_transfer): at most one per repository; its existence is the
 * repository's "pending transfer" state. Team ids are kept for a recipient organization to grant on acceptance.
 */
export class RepoTransfers1732000006000 implements MigrationInterface {
  name = 'RepoTransfers1732000006000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE repo_transfer (
        id bigserial PRIMARY KEY,
        repo_id bigint NOT NULL UNIQUE REFERENCES repository(id) ON DELETE CASCADE,
        doer_id bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
        recipient_id bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
        team_ids bigint[] NOT NULL DEFAULT '{}',
        created timestamptz NOT NULL DEFAULT now(),
        updated timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX repo_transfer_recipient_id ON repo_transfer (recipient_id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE repo_transfer`);
  }
}
