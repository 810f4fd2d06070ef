import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One row per cron task that has run: how often and when it last started, written by the task itself as it starts
 * (db/models/instance/cron-tasks.ts), with the
 * last clock slot it ran for, so a slot queued by several workers' clocks runs once. The admin cron list reads every task's figures in one statement, never the
 * job tables, whose archive grows with every job run.
 */
export class CronTaskRuns1732000019600 implements MigrationInterface {
  name = 'CronTaskRuns1732000019600';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE cron_task_run (
      name text PRIMARY KEY,
      exec_times bigint NOT NULL DEFAULT 0,
      prev timestamptz NOT NULL,
      last_slot timestamptz
    )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE cron_task_run');
  }
}
