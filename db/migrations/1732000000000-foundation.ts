import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Users, their e-mail addresses, follows, login sources, two-factor enrolment and access tokens (before scopes). */
export class Foundation1732000000000 implements MigrationInterface {
  name = 'Foundation1732000000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE login_source (
        id bigserial PRIMARY KEY,
        type text NOT NULL CHECK (type IN ('local', 'ldap')),
        name text NOT NULL UNIQUE,
        is_active boolean NOT NULL DEFAULT true,
        cfg jsonb NOT NULL DEFAULT '{}',
        created timestamptz NOT NULL DEFAULT now(),
        updated timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`
      CREATE TABLE "user" (
        id bigserial PRIMARY KEY,
        lower_name text NOT NULL UNIQUE,
        name text NOT NULL,
        full_name text NOT NULL DEFAULT '',
        email text NOT NULL,
        keep_email_private boolean NOT NULL DEFAULT false,
        passwd text NOT NULL DEFAULT '',
        passwd_hash_algo text NOT NULL DEFAULT '',
        salt text NOT NULL DEFAULT '',
        must_change_password boolean NOT NULL DEFAULT false,
        login_source bigint NOT NULL DEFAULT 0,
        login_name text NOT NULL DEFAULT '',
        type smallint NOT NULL DEFAULT 0,
        location text NOT NULL DEFAULT '',
        website text NOT NULL DEFAULT '',
        description text NOT NULL DEFAULT '',
        language text NOT NULL DEFAULT '',
        theme text NOT NULL DEFAULT '',
        diff_view_style text NOT NULL DEFAULT '',
        visibility smallint NOT NULL DEFAULT 0,
        is_admin boolean NOT NULL DEFAULT false,
        is_active boolean NOT NULL DEFAULT true,
        prohibit_login boolean NOT NULL DEFAULT false,
        restricted boolean NOT NULL DEFAULT false,
        allow_git_hook boolean NOT NULL DEFAULT false,
        allow_import_local boolean NOT NULL DEFAULT false,
        allow_create_organization boolean NOT NULL DEFAULT true,
        max_repo_creation integer NOT NULL DEFAULT -1,
        hide_activity boolean NOT NULL DEFAULT false,
        num_followers integer NOT NULL DEFAULT 0,
        num_following integer NOT NULL DEFAULT 0,
        num_stars integer NOT NULL DEFAULT 0,
        num_repos integer NOT NULL DEFAULT 0,
        avatar text NOT NULL DEFAULT '',
        created timestamptz NOT NULL DEFAULT now(),
        updated timestamptz NOT NULL DEFAULT now(),
        last_login timestamptz
      )`);
    await db.query(`CREATE INDEX user_is_admin ON "user" (id) WHERE is_admin`);
    await db.query(`
      CREATE TABLE email_address (
        id bigserial PRIMARY KEY,
        uid bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
        email text NOT NULL,
        lower_email text NOT NULL UNIQUE,
        is_activated boolean NOT NULL DEFAULT true,
        is_primary boolean NOT NULL DEFAULT false
      )`);
    await db.query(`CREATE INDEX email_address_uid ON email_address (uid)`);
    await db.query(`
      CREATE TABLE follow (
        user_id bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
        follow_id bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
        created timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, follow_id)
      )`);
    await db.query(`CREATE INDEX follow_follow_id ON follow (follow_id)`);
    await db.query(`
      CREATE TABLE two_factor (
        uid bigint PRIMARY KEY REFERENCES "user"(id) ON DELETE CASCADE,
        secret text NOT NULL,
        created timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`
      CREATE TABLE access_token (
        id bigserial PRIMARY KEY,
        uid bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
        name text NOT NULL,
        token_hash text NOT NULL UNIQUE,
        token_salt text NOT NULL,
        token_last_eight text NOT NULL,
        created timestamptz NOT NULL DEFAULT now(),
        updated timestamptz NOT NULL DEFAULT now(),
        UNIQUE (uid, name)
      )`);
    await db.query(`CREATE INDEX access_token_last_eight ON access_token (token_last_eight)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE access_token, two_factor, follow, email_address, "user", login_source`);
  }
}
