import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Tokens gain scopes; every token that existed before scopes keeps full access (`all`). */
export class TokenScopes1732000000001 implements MigrationInterface {
  name = 'TokenScopes1732000000001';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE access_token ADD COLUMN scope text`);
    await db.query(`UPDATE access_token SET scope = 'all'`);
    await db.query(`ALTER TABLE access_token ALTER COLUMN scope SET NOT NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE access_token DROP COLUMN scope`);
  }
}
