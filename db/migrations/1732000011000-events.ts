import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks at four levels (repository, owner, system), the hook tasks the notifier writes for them (one per event,
 * hook and webhook event, with its delivery UUID and the attempts made), and users' notification threads.
 */
export class Events1732000011000 implements MigrationInterface {
  name = 'Events1732000011000';

  async up(db: QueryRunner): Promise<void> {
    // The rows a deletion removed, as the notifier needs them to render the event after the commit.
    await db.query(`ALTER TABLE domain_event ADD COLUMN snapshot jsonb`);
    await db.query(`
      CREATE TABLE webhook (
        id bigserial PRIMARY KEY,
        repo_id bigint REFERENCES repository(id) ON DELETE CASCADE,
        owner_id bigint REFERENCES "user"(id) ON DELETE CASCADE,
        is_system boolean NOT NULL DEFAULT false,
        type text NOT NULL,
        url text NOT NULL,
        http_method text NOT NULL DEFAULT 'POST',
        content_type text NOT NULL CHECK (content_type IN ('json', 'form')),
        secret_sealed text NOT NULL DEFAULT '',
        authorization_sealed text NOT NULL DEFAULT '',
        meta jsonb NOT NULL DEFAULT '{}',
        push_only boolean NOT NULL DEFAULT false,
        send_everything boolean NOT NULL DEFAULT false,
        choose_events boolean NOT NULL DEFAULT true,
        events text[] NOT NULL DEFAULT '{}',
        branch_filter text NOT NULL DEFAULT '',
        is_active boolean NOT NULL DEFAULT false,
        last_status smallint NOT NULL DEFAULT 0,
        created timestamptz NOT NULL DEFAULT now(),
        updated timestamptz NOT NULL DEFAULT now(),
        CHECK (num_nonnulls(repo_id, owner_id) + is_system::int = 1)
      )`);
    await db.query(`CREATE INDEX webhook_repo ON webhook (repo_id) WHERE repo_id IS NOT NULL`);
    await db.query(`CREATE INDEX webhook_owner ON webhook (owner_id) WHERE owner_id IS NOT NULL`);
    await db.query(`
      CREATE TABLE hook_task (
        id bigserial PRIMARY KEY,
        hook_id bigint NOT NULL REFERENCES webhook(id) ON DELETE CASCADE,
        event_id bigint REFERENCES domain_event(id) ON DELETE SET NULL,
        repo_id bigint,
        uuid uuid NOT NULL UNIQUE,
        event_type text NOT NULL,
        payload text NOT NULL,
        is_delivered boolean NOT NULL DEFAULT false,
        is_succeed boolean NOT NULL DEFAULT false,
        refused text,
        attempts jsonb NOT NULL DEFAULT '[]',
        created timestamptz NOT NULL DEFAULT now(),
        delivered timestamptz
      )`);
    await db.query(`CREATE UNIQUE INDEX hook_task_fan_out ON hook_task (event_id, hook_id, event_type) WHERE event_id IS NOT NULL`);
    await db.query(`CREATE INDEX hook_task_hook ON hook_task (hook_id, id DESC)`);
    await db.query(`
      CREATE TABLE notification (
        id bigserial PRIMARY KEY,
        user_id bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
        repo_id bigint NOT NULL REFERENCES repository(id) ON DELETE CASCADE,
        status smallint NOT NULL,
        source smallint NOT NULL,
        issue_id bigint NOT NULL,
        commit_id text NOT NULL DEFAULT '',
        comment_id bigint,
        updated_by bigint,
        created timestamptz NOT NULL DEFAULT now(),
        updated timestamptz NOT NULL DEFAULT now(),
        UNIQUE (user_id, issue_id)
      )`);
    await db.query(`CREATE INDEX notification_user ON notification (user_id, status, updated DESC)`);
    // Gitea's EmailNotificationsPreference: which issue mails a user receives.
    await db.query(`ALTER TABLE "user" ADD COLUMN email_notifications_preference text NOT NULL DEFAULT 'enabled'
      CHECK (email_notifications_preference IN ('enabled', 'onmention', 'disabled', 'andyourown'))`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "user" DROP COLUMN email_notifications_preference`);
    await db.query(`DROP TABLE notification, hook_task, webhook`);
    await db.query(`ALTER TABLE domain_event DROP COLUMN snapshot`);
  }
}
