import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Pull request reviews (Gitea's review table: pending, approve, comment, reject and review requests of users and
 * teams), the columns of code comments in the comment table (Gitea keeps them there as comment type 21, with
 * their review), and scheduled auto-merges (Gitea's pull_auto_merge).
 */
export class Reviews1732000012500 implements MigrationInterface {
  name = 'Reviews1732000012500';

  async up(db: QueryRunner): Promise<void> {
    // type: Gitea's ReviewType (0 pending, 1 approve, 2 comment, 3 reject, 4 request). A team review request names
    // the team and no user; a reviewer whose account is gone leaves reviewer_id null (Gitea's ghost).
    await db.query(`
      CREATE TABLE review (
        id bigserial PRIMARY KEY,
        type integer NOT NULL CHECK (type BETWEEN 0 AND 4),
        reviewer_id bigint REFERENCES "user"(id) ON DELETE SET NULL,
        reviewer_team_id bigint REFERENCES team(id) ON DELETE CASCADE,
        original_author text NOT NULL DEFAULT '',
        original_author_id bigint NOT NULL DEFAULT 0,
        issue_id bigint NOT NULL REFERENCES issue(id) ON DELETE CASCADE,
        content text NOT NULL DEFAULT '',
        official boolean NOT NULL DEFAULT false,
        commit_id text NOT NULL DEFAULT '',
        stale boolean NOT NULL DEFAULT false,
        dismissed boolean NOT NULL DEFAULT false,
        created timestamptz NOT NULL DEFAULT now(),
        updated timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX review_issue ON review (issue_id, reviewer_id)`);
    // One started (pending) review per reviewer and pull request: concurrent first comments join the same one.
    await db.query(`CREATE UNIQUE INDEX review_one_pending ON review (issue_id, reviewer_id) WHERE type = 0`);
    // line: the new file's line, or minus the old file's line (Gitea's signed Line); patch: the diff around it.
    await db.query(`
      ALTER TABLE comment
        ADD COLUMN tree_path text NOT NULL DEFAULT '',
        ADD COLUMN line bigint NOT NULL DEFAULT 0,
        ADD COLUMN patch text NOT NULL DEFAULT '',
        ADD COLUMN invalidated boolean NOT NULL DEFAULT false,
        ADD COLUMN resolve_doer_id bigint REFERENCES "user"(id) ON DELETE SET NULL,
        ADD COLUMN assignee_team_id bigint`);
    await db.query(`CREATE INDEX comment_review ON comment (review_id) WHERE review_id IS NOT NULL`);
    await db.query(`
      CREATE TABLE pull_auto_merge (
        id bigserial PRIMARY KEY,
        pull_id bigint NOT NULL UNIQUE REFERENCES pull_request(id) ON DELETE CASCADE,
        doer_id bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
        merge_style text NOT NULL,
        message text NOT NULL DEFAULT '',
        delete_branch_after_merge boolean NOT NULL DEFAULT false,
        created timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE pull_auto_merge`);
    await db.query(`DROP INDEX comment_review`);
    await db.query(`
      ALTER TABLE comment DROP COLUMN tree_path, DROP COLUMN line, DROP COLUMN patch, DROP COLUMN invalidated,
        DROP COLUMN resolve_doer_id, DROP COLUMN assignee_team_id`);
    await db.query(`DROP TABLE review`);
  }
}
