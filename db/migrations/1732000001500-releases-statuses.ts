import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Releases (and the tag releases that pushes create), their attachments, and commit statuses. */
export class ReleasesStatuses1732000001500 implements MigrationInterface {
  name = 'ReleasesStatuses1732000001500';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE release (
        id bigserial PRIMARY KEY,
        repo_id bigint NOT NULL REFERENCES repository(id) ON DELETE CASCADE,
        publisher_id bigint REFERENCES "user"(id) ON DELETE SET NULL,
        tag_name text NOT NULL,
        lower_tag_name text NOT NULL,
        target text NOT NULL DEFAULT '',
        title text NOT NULL DEFAULT '',
        sha1 text NOT NULL DEFAULT '',
        num_commits integer NOT NULL DEFAULT 0,
        note text NOT NULL DEFAULT '',
        is_draft boolean NOT NULL DEFAULT false,
        is_prerelease boolean NOT NULL DEFAULT false,
        is_tag boolean NOT NULL DEFAULT false,
        created timestamptz NOT NULL DEFAULT now(),
        UNIQUE (repo_id, lower_tag_name)
      )`);
    await db.query(`
      CREATE TABLE attachment (
        id bigserial PRIMARY KEY,
        uuid uuid NOT NULL UNIQUE,
        repo_id bigint REFERENCES repository(id) ON DELETE CASCADE,
        issue_id bigint,
        release_id bigint REFERENCES release(id) ON DELETE CASCADE,
        comment_id bigint,
        uploader_id bigint REFERENCES "user"(id) ON DELETE SET NULL,
        name text NOT NULL,
        download_count integer NOT NULL DEFAULT 0,
        size bigint NOT NULL DEFAULT 0,
        created timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX attachment_release ON attachment (release_id)`);
    await db.query(`
      CREATE TABLE commit_status (
        id bigserial PRIMARY KEY,
        index bigint NOT NULL,
        repo_id bigint NOT NULL REFERENCES repository(id) ON DELETE CASCADE,
        state text NOT NULL CHECK (state IN ('pending', 'success', 'error', 'failure', 'warning')),
        sha text NOT NULL,
        target_url text NOT NULL DEFAULT '',
        description text NOT NULL DEFAULT '',
        context text NOT NULL DEFAULT '',
        context_hash text NOT NULL DEFAULT '',
        creator_id bigint REFERENCES "user"(id) ON DELETE SET NULL,
        created timestamptz NOT NULL DEFAULT now(),
        updated timestamptz NOT NULL DEFAULT now(),
        UNIQUE (repo_id, sha, index)
      )`);
    await db.query(`CREATE INDEX commit_status_sha ON commit_status (repo_id, sha, context_hash, id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE commit_status, attachment, release`);
  }
}
