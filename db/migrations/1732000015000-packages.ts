import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Package registries: packages owned by users and organizations, their versions and files, and the blobs the
 * files point at (stored once per SHA-256 in the blob store, under `blob_key`). Properties hold what an
 * ecosystem keeps beside a version (npm dist-tags on the package).
 */
export class Packages1732000015000 implements MigrationInterface {
  name = 'Packages1732000015000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE package (
        id bigserial PRIMARY KEY,
        owner_id bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
        repo_id bigint REFERENCES repository(id) ON DELETE SET NULL,
        type text NOT NULL,
        name text NOT NULL,
        lower_name text NOT NULL,
        semver_compatible boolean NOT NULL DEFAULT false,
        created timestamptz NOT NULL DEFAULT now(),
        UNIQUE (owner_id, type, lower_name)
      )`);
    await db.query(`
      CREATE TABLE package_version (
        id bigserial PRIMARY KEY,
        package_id bigint NOT NULL REFERENCES package(id) ON DELETE CASCADE,
        creator_id bigint REFERENCES "user"(id) ON DELETE SET NULL,
        version text NOT NULL,
        lower_version text NOT NULL,
        metadata jsonb NOT NULL DEFAULT '{}',
        download_count bigint NOT NULL DEFAULT 0,
        created timestamptz NOT NULL DEFAULT now(),
        UNIQUE (package_id, lower_version)
      )`);
    await db.query(`
      CREATE TABLE package_blob (
        id bigserial PRIMARY KEY,
        blob_key text NOT NULL UNIQUE,
        size bigint NOT NULL,
        hash_md5 text NOT NULL,
        hash_sha1 text NOT NULL,
        hash_sha256 text NOT NULL UNIQUE,
        hash_sha512 text NOT NULL,
        created timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`
      CREATE TABLE package_file (
        id bigserial PRIMARY KEY,
        version_id bigint NOT NULL REFERENCES package_version(id) ON DELETE CASCADE,
        blob_id bigint NOT NULL REFERENCES package_blob(id),
        name text NOT NULL,
        lower_name text NOT NULL,
        composite_key text NOT NULL DEFAULT '',
        is_lead boolean NOT NULL DEFAULT false,
        created timestamptz NOT NULL DEFAULT now(),
        UNIQUE (version_id, lower_name, composite_key)
      )`);
    await db.query(`CREATE INDEX package_file_blob_id ON package_file (blob_id)`);
    await db.query(`
      CREATE TABLE package_property (
        id bigserial PRIMARY KEY,
        package_id bigint NOT NULL REFERENCES package(id) ON DELETE CASCADE,
        name text NOT NULL,
        value text NOT NULL,
        UNIQUE (package_id, name)
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE package_property, package_file, package_blob, package_version, package`);
  }
}
