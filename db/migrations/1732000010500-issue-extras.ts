import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What issues carry besides their timeline: reactions, subscriptions (Gitea's issue_watch), tracked times and
 * stopwatches; dependencies may not point at their own issue; attachments of issues and comments follow them.
 */
export class IssueExtras1732000010500 implements MigrationInterface {
  name = 'IssueExtras1732000010500';

  async up(db: QueryRunner): Promise<void> {
    // comment_id is null for a reaction to the issue itself; one reaction of a kind per user and target.
    await db.query(`
      CREATE TABLE reaction (
        id bigserial PRIMARY KEY,
        type text NOT NULL,
        issue_id bigint NOT NULL REFERENCES issue(id) ON DELETE CASCADE,
        comment_id bigint REFERENCES comment(id) ON DELETE CASCADE,
        user_id bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
        original_author_id bigint NOT NULL DEFAULT 0,
        original_author text NOT NULL DEFAULT '',
        created timestamptz NOT NULL DEFAULT now(),
        UNIQUE NULLS NOT DISTINCT (issue_id, comment_id, user_id, type, original_author_id)
      )`);
    await db.query(`CREATE INDEX reaction_comment ON reaction (comment_id) WHERE comment_id IS NOT NULL`);
    // An explicit subscription (is_watching) or an explicit unsubscription (not is_watching) of a user to an issue.
    await db.query(`
      CREATE TABLE issue_watch (
        id bigserial PRIMARY KEY,
        issue_id bigint NOT NULL REFERENCES issue(id) ON DELETE CASCADE,
        user_id bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
        is_watching boolean NOT NULL,
        created timestamptz NOT NULL DEFAULT now(),
        updated timestamptz NOT NULL DEFAULT now(),
        UNIQUE (issue_id, user_id)
      )`);
    await db.query(`CREATE INDEX issue_watch_user ON issue_watch (user_id)`);
    // Seconds spent on an issue; deleting one only marks it, as Gitea does (the timeline keeps pointing at it).
    await db.query(`
      CREATE TABLE tracked_time (
        id bigserial PRIMARY KEY,
        issue_id bigint NOT NULL REFERENCES issue(id) ON DELETE CASCADE,
        user_id bigint REFERENCES "user"(id) ON DELETE SET NULL,
        time bigint NOT NULL,
        created timestamptz NOT NULL DEFAULT now(),
        deleted boolean NOT NULL DEFAULT false
      )`);
    await db.query(`CREATE INDEX tracked_time_issue ON tracked_time (issue_id, created) WHERE NOT deleted`);
    await db.query(`CREATE INDEX tracked_time_user ON tracked_time (user_id, created) WHERE NOT deleted`);
    await db.query(`
      CREATE TABLE stopwatch (
        id bigserial PRIMARY KEY,
        issue_id bigint NOT NULL REFERENCES issue(id) ON DELETE CASCADE,
        user_id bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
        created timestamptz NOT NULL DEFAULT now(),
        UNIQUE (user_id, issue_id)
      )`);
    await db.query(`ALTER TABLE issue_dependency ADD CONSTRAINT issue_dependency_not_itself CHECK (issue_id <> dependency_id)`);
    // Attachment rows go with their issue or comment; the files are removed by the operation that deletes them.
    await db.query(`ALTER TABLE attachment ADD CONSTRAINT attachment_issue_fk FOREIGN KEY (issue_id) REFERENCES issue(id) ON DELETE CASCADE`);
    await db.query(`ALTER TABLE attachment ADD CONSTRAINT attachment_comment_fk FOREIGN KEY (comment_id) REFERENCES comment(id) ON DELETE CASCADE`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE attachment DROP CONSTRAINT attachment_issue_fk, DROP CONSTRAINT attachment_comment_fk`);
    await db.query(`ALTER TABLE issue_dependency DROP CONSTRAINT issue_dependency_not_itself`);
    await db.query(`DROP TABLE stopwatch, tracked_time, issue_watch, reaction`);
  }
}
