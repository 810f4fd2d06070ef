import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The OCI container registry: blob uploads in progress (their chunks sit in the blob store under temporary keys
 * until the upload ends), and internal package versions, hidden from listings, that hold an image's uploaded
 * blobs before a manifest names them (Gitea's `_upload` version).
 */
export class ContainerRegistry1732000015500 implements MigrationInterface {
  name = 'ContainerRegistry1732000015500';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE package_version ADD COLUMN is_internal boolean NOT NULL DEFAULT false`);
    await db.query(`
      CREATE TABLE package_blob_upload (
        id text PRIMARY KEY,
        owner_id bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
        image text NOT NULL,
        bytes_received bigint NOT NULL DEFAULT 0,
        chunks jsonb NOT NULL DEFAULT '[]',
        created timestamptz NOT NULL DEFAULT now(),
        updated timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX package_blob_upload_updated ON package_blob_upload (updated)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE package_blob_upload`);
    await db.query(`ALTER TABLE package_version DROP COLUMN is_internal`);
  }
}
