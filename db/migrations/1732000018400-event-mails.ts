import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One row per domain event and mail recipient, inserted with the mail job (actors/notifier.ts): a notify job that
 * runs again after its commit finds the rows and queues no second mail. The rows go with their event.
 */
export class EventMails1732000018400 implements MigrationInterface {
  name = 'EventMails1732000018400';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE event_mail (
      event_id bigint NOT NULL REFERENCES domain_event(id) ON DELETE CASCADE,
      user_id bigint NOT NULL,
      PRIMARY KEY (event_id, user_id)
    )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE event_mail');
  }
}
