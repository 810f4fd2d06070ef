import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * OAuth2 grants (one per user and application, as Gitea's `oauth2_grant`) and their authorization codes. A code is
 * kept as its SHA-256 only; the grant's counter is the generation of its refresh token (a refresh token of an older
 * generation revokes the grant). Deleting the application or the user deletes the grants, and so every token of them.
 */
export class OAuth2Grants1732000020000 implements MigrationInterface {
  name = 'OAuth2Grants1732000020000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE oauth2_grant (
      id bigserial PRIMARY KEY,
      user_id bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
      application_id bigint NOT NULL REFERENCES oauth2_application(id) ON DELETE CASCADE,
      counter bigint NOT NULL DEFAULT 1,
      scope text NOT NULL DEFAULT '',
      nonce text NOT NULL DEFAULT '',
      created timestamptz NOT NULL DEFAULT now(),
      updated timestamptz NOT NULL DEFAULT now(),
      UNIQUE (user_id, application_id)
    )`);
    await db.query('CREATE INDEX oauth2_grant_application ON oauth2_grant (application_id)');
    await db.query(`CREATE TABLE oauth2_authorization_code (
      id bigserial PRIMARY KEY,
      grant_id bigint NOT NULL REFERENCES oauth2_grant(id) ON DELETE CASCADE,
      code_hash text NOT NULL UNIQUE,
      code_challenge text NOT NULL DEFAULT '',
      code_challenge_method text NOT NULL DEFAULT '',
      redirect_uri text NOT NULL,
      valid_until timestamptz NOT NULL,
      created timestamptz NOT NULL DEFAULT now()
    )`);
    await db.query('CREATE INDEX oauth2_authorization_code_grant ON oauth2_authorization_code (grant_id)');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE oauth2_authorization_code, oauth2_grant');
  }
}
