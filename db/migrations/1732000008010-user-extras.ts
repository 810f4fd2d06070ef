import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What users keep besides their profile: badges, SSH and GPG keys, OAuth2 applications; and an index for reading a
 * user's own domain events (heatmap, feeds).
 */
export class UserExtras1732000008010 implements MigrationInterface {
  name = 'UserExtras1732000008010';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE badge (
        id bigserial PRIMARY KEY,
        slug text NOT NULL UNIQUE,
        description text NOT NULL DEFAULT '',
        image_url text NOT NULL DEFAULT ''
      )`);
    await db.query(`
      CREATE TABLE user_badge (
        id bigserial PRIMARY KEY,
        badge_id bigint NOT NULL REFERENCES badge(id) ON DELETE CASCADE,
        user_id bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
        UNIQUE (user_id, badge_id)
      )`);

    // One key material has one owner: the fingerprint is unique here, and deploy_key is checked on both sides.
    await db.query(`
      CREATE TABLE public_key (
        id bigserial PRIMARY KEY,
        owner_id bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
        name text NOT NULL,
        fingerprint text NOT NULL UNIQUE,
        content text NOT NULL,
        mode smallint NOT NULL DEFAULT 2 CHECK (mode IN (1, 2)),
        created timestamptz NOT NULL DEFAULT now(),
        updated timestamptz NOT NULL DEFAULT now(),
        UNIQUE (owner_id, name)
      )`);

    // A primary key and its subkeys are rows; a subkey names its primary by key id and belongs to its row.
    await db.query(`
      CREATE TABLE gpg_key (
        id bigserial PRIMARY KEY,
        owner_id bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
        parent_id bigint REFERENCES gpg_key(id) ON DELETE CASCADE,
        key_id text NOT NULL,
        primary_key_id text NOT NULL DEFAULT '',
        content text NOT NULL,
        armored text NOT NULL DEFAULT '',
        emails jsonb NOT NULL DEFAULT '[]',
        verified boolean NOT NULL DEFAULT false,
        can_sign boolean NOT NULL DEFAULT false,
        can_encrypt_comms boolean NOT NULL DEFAULT false,
        can_encrypt_storage boolean NOT NULL DEFAULT false,
        can_certify boolean NOT NULL DEFAULT false,
        created timestamptz NOT NULL,
        expires timestamptz,
        added timestamptz NOT NULL DEFAULT now(),
        CHECK ((parent_id IS NULL) = (primary_key_id = ''))
      )`);
    await db.query(`CREATE UNIQUE INDEX gpg_key_primary_key_id ON gpg_key (key_id) WHERE parent_id IS NULL`);
    await db.query(`CREATE INDEX gpg_key_owner ON gpg_key (owner_id, id)`);
    await db.query(`CREATE INDEX gpg_key_parent ON gpg_key (parent_id)`);

    await db.query(`
      CREATE TABLE oauth2_application (
        id bigserial PRIMARY KEY,
        uid bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
        name text NOT NULL,
        client_id uuid NOT NULL UNIQUE,
        client_secret_hash text NOT NULL,
        client_secret_salt text NOT NULL,
        confidential_client boolean NOT NULL DEFAULT false,
        redirect_uris text[] NOT NULL DEFAULT '{}',
        created timestamptz NOT NULL DEFAULT now(),
        updated timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX oauth2_application_uid ON oauth2_application (uid, id)`);

    await db.query(`CREATE INDEX domain_event_doer ON domain_event (doer_id, created)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX domain_event_doer`);
    await db.query(`DROP TABLE oauth2_application, gpg_key, public_key, user_badge, badge`);
  }
}
