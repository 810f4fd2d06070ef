import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Actions secrets and variables of users, organizations and repositories, and runner registration tokens of the
 * instance, an owner or a repository. A row belongs to an owner (`owner_id`) or a repository (`repo_id`), never both;
 * a registration token of the instance has neither (Gitea's 0). Secret values and tokens are sealed with
 * [security] SECRET_KEY; a token is found by the SHA-256 of its text, so the text is never compared in SQL.
 */
export class ActionsSecrets1732000014000 implements MigrationInterface {
  name = 'ActionsSecrets1732000014000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE secret (
        id bigserial PRIMARY KEY,
        owner_id bigint REFERENCES "user"(id) ON DELETE CASCADE,
        repo_id bigint REFERENCES repository(id) ON DELETE CASCADE,
        name text NOT NULL,
        data_sealed text NOT NULL,
        created timestamptz NOT NULL DEFAULT now(),
        updated timestamptz NOT NULL DEFAULT now(),
        CHECK ((owner_id IS NULL) <> (repo_id IS NULL))
      )`);
    await db.query('CREATE UNIQUE INDEX secret_owner_name ON secret (owner_id, name) WHERE owner_id IS NOT NULL');
    await db.query('CREATE UNIQUE INDEX secret_repo_name ON secret (repo_id, name) WHERE repo_id IS NOT NULL');
    await db.query(`
      CREATE TABLE action_variable (
        id bigserial PRIMARY KEY,
        owner_id bigint REFERENCES "user"(id) ON DELETE CASCADE,
        repo_id bigint REFERENCES repository(id) ON DELETE CASCADE,
        name text NOT NULL,
        data text NOT NULL,
        created timestamptz NOT NULL DEFAULT now(),
        updated timestamptz NOT NULL DEFAULT now(),
        CHECK ((owner_id IS NULL) <> (repo_id IS NULL))
      )`);
    await db.query('CREATE UNIQUE INDEX action_variable_owner_name ON action_variable (owner_id, name) WHERE owner_id IS NOT NULL');
    await db.query('CREATE UNIQUE INDEX action_variable_repo_name ON action_variable (repo_id, name) WHERE repo_id IS NOT NULL');
    await db.query(`
      CREATE TABLE action_runner_token (
        id bigserial PRIMARY KEY,
        owner_id bigint REFERENCES "user"(id) ON DELETE CASCADE,
        repo_id bigint REFERENCES repository(id) ON DELETE CASCADE,
        token_hash text NOT NULL UNIQUE,
        token_sealed text NOT NULL,
        is_active boolean NOT NULL DEFAULT true,
        created timestamptz NOT NULL DEFAULT now(),
        updated timestamptz NOT NULL DEFAULT now(),
        CHECK (owner_id IS NULL OR repo_id IS NULL)
      )`);
    // One active token per level: the instance, an owner, a repository.
    await db.query(`CREATE UNIQUE INDEX action_runner_token_active ON action_runner_token (COALESCE(owner_id, 0), COALESCE(repo_id, 0)) WHERE is_active`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE action_runner_token');
    await db.query('DROP TABLE action_variable');
    await db.query('DROP TABLE secret');
  }
}
