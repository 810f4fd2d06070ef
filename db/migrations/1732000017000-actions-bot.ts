import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the actions bot and pull request runs need: whether a run comes from a fork's pull request (its task token
 * then only reads, and it sees no secrets), and the instance's actions switch as the workers last saw it, so the
 * first worker to start after actions were switched on again makes the schedule plans anew.
 */
export class ActionsBot1732000017000 implements MigrationInterface {
  name = 'ActionsBot1732000017000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE action_run ADD COLUMN is_fork_pull_request boolean NOT NULL DEFAULT false');
    await db.query(`
      CREATE TABLE actions_state (
        id smallint PRIMARY KEY CHECK (id = 1),
        enabled boolean NOT NULL,
        changed timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query('INSERT INTO actions_state (id, enabled) VALUES (1, false)');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE actions_state');
    await db.query('ALTER TABLE action_run DROP COLUMN is_fork_pull_request');
  }
}
