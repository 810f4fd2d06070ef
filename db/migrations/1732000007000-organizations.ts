import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Organizations (rows of "user" with type 1), their members, teams with per-unit permissions and repositories,
 * labels (shared by repositories and organizations) and user blocks.
 */
export class Organizations1732000007000 implements MigrationInterface {
  name = 'Organizations1732000007000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "user" ADD COLUMN repo_admin_change_team_access boolean NOT NULL DEFAULT false`);
    await db.query(`CREATE INDEX user_type ON "user" (type, lower_name)`);
    await db.query(`
      CREATE TABLE org_user (
        org_id bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
        uid bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
        is_public boolean NOT NULL DEFAULT false,
        created timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (org_id, uid)
      )`);
    await db.query(`CREATE INDEX org_user_uid ON org_user (uid)`);
    await db.query(`
      CREATE TABLE team (
        id bigserial PRIMARY KEY,
        org_id bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
        lower_name text NOT NULL,
        name text NOT NULL,
        description text NOT NULL DEFAULT '',
        authorize smallint NOT NULL DEFAULT 1,
        includes_all_repositories boolean NOT NULL DEFAULT false,
        can_create_org_repo boolean NOT NULL DEFAULT false,
        created timestamptz NOT NULL DEFAULT now(),
        updated timestamptz NOT NULL DEFAULT now(),
        UNIQUE (org_id, lower_name)
      )`);
    await db.query(`
      CREATE TABLE team_user (
        team_id bigint NOT NULL REFERENCES team(id) ON DELETE CASCADE,
        org_id bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
        uid bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
        created timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (team_id, uid)
      )`);
    await db.query(`CREATE INDEX team_user_uid ON team_user (uid, org_id)`);
    await db.query(`
      CREATE TABLE team_repo (
        team_id bigint NOT NULL REFERENCES team(id) ON DELETE CASCADE,
        org_id bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
        repo_id bigint NOT NULL REFERENCES repository(id) ON DELETE CASCADE,
        PRIMARY KEY (team_id, repo_id)
      )`);
    await db.query(`CREATE INDEX team_repo_repo_id ON team_repo (repo_id)`);
    await db.query(`
      CREATE TABLE team_unit (
        team_id bigint NOT NULL REFERENCES team(id) ON DELETE CASCADE,
        org_id bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
        type text NOT NULL,
        access_mode smallint NOT NULL,
        PRIMARY KEY (team_id, type)
      )`);
    await db.query(`
      CREATE TABLE label (
        id bigserial PRIMARY KEY,
        repo_id bigint REFERENCES repository(id) ON DELETE CASCADE,
        org_id bigint REFERENCES "user"(id) ON DELETE CASCADE,
        name text NOT NULL,
        exclusive boolean NOT NULL DEFAULT false,
        archived_at timestamptz,
        color text NOT NULL,
        description text NOT NULL DEFAULT '',
        num_issues integer NOT NULL DEFAULT 0,
        num_closed_issues integer NOT NULL DEFAULT 0,
        created timestamptz NOT NULL DEFAULT now(),
        updated timestamptz NOT NULL DEFAULT now(),
        CHECK ((repo_id IS NULL) <> (org_id IS NULL))
      )`);
    await db.query(`CREATE INDEX label_repo_id ON label (repo_id)`);
    await db.query(`CREATE INDEX label_org_id ON label (org_id)`);
    await db.query(`
      CREATE TABLE user_blocking (
        id bigserial PRIMARY KEY,
        blocker_id bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
        blockee_id bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
        note text NOT NULL DEFAULT '',
        created timestamptz NOT NULL DEFAULT now(),
        UNIQUE (blocker_id, blockee_id)
      )`);
    await db.query(`CREATE INDEX user_blocking_blockee_id ON user_blocking (blockee_id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE user_blocking, label, team_unit, team_repo, team_user, team, org_user`);
    await db.query(`DROP INDEX user_type`);
    await db.query(`ALTER TABLE "user" DROP COLUMN repo_admin_change_team_access`);
  }
}
