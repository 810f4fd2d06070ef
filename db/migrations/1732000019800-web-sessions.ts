import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The web face's sign-in state, in PostgreSQL so that every web process shares it: sessions (the cookie's value is
 * kept only as its SHA-256; a session waiting for its second factor has `pending_two_factor`), and failed sign-ins
 * by account and by address, counted over a window to throttle guessing.
 */
export class WebSessions1732000019800 implements MigrationInterface {
  name = 'WebSessions1732000019800';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE web_session (
      id_hash text PRIMARY KEY,
      user_id bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
      pending_two_factor boolean NOT NULL DEFAULT false,
      remember boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL
    )`);
    await db.query('CREATE INDEX web_session_user ON web_session (user_id)');
    await db.query('CREATE INDEX web_session_expiry ON web_session (expires_at)');
    await db.query(`CREATE TABLE web_login_failure (
      key text NOT NULL,
      failed_at timestamptz NOT NULL DEFAULT now()
    )`);
    await db.query('CREATE INDEX web_login_failure_key ON web_login_failure (key, failed_at)');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE web_login_failure');
    await db.query('DROP TABLE web_session');
  }
}
