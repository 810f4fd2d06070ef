import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issues and pull requests (one table, one index sequence per repository), their per-repository index counter,
 * milestones, assignees, labels, comments (Gitea's typed timeline), mentions and dependencies.
 */
export class Issues1732000010000 implements MigrationInterface {
  name = 'Issues1732000010000';

  async up(db: QueryRunner): Promise<void> {
    // The last index handed out per repository; the row is locked by the creating transaction, so indexes are gap-free.
    await db.query(`
      CREATE TABLE issue_index (
        repo_id bigint PRIMARY KEY REFERENCES repository(id) ON DELETE CASCADE,
        max_index bigint NOT NULL DEFAULT 0
      )`);
    await db.query(`
      CREATE TABLE milestone (
        id bigserial PRIMARY KEY,
        repo_id bigint NOT NULL REFERENCES repository(id) ON DELETE CASCADE,
        name text NOT NULL,
        content text NOT NULL DEFAULT '',
        is_closed boolean NOT NULL DEFAULT false,
        num_issues integer NOT NULL DEFAULT 0,
        num_closed_issues integer NOT NULL DEFAULT 0,
        deadline timestamptz,
        closed_at timestamptz,
        created timestamptz NOT NULL DEFAULT now(),
        updated timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX milestone_repo ON milestone (repo_id, lower(name))`);
    await db.query(`
      CREATE TABLE issue (
        id bigserial PRIMARY KEY,
        repo_id bigint NOT NULL REFERENCES repository(id) ON DELETE CASCADE,
        index bigint NOT NULL,
        poster_id bigint REFERENCES "user"(id) ON DELETE SET NULL CHECK (poster_id > 0),
        original_author text NOT NULL DEFAULT '',
        original_author_id bigint NOT NULL DEFAULT 0,
        title text NOT NULL,
        content text NOT NULL DEFAULT '',
        milestone_id bigint REFERENCES milestone(id) ON DELETE SET NULL,
        priority integer NOT NULL DEFAULT 0,
        is_pull boolean NOT NULL DEFAULT false,
        is_closed boolean NOT NULL DEFAULT false,
        is_locked boolean NOT NULL DEFAULT false,
        num_comments integer NOT NULL DEFAULT 0,
        ref text NOT NULL DEFAULT '',
        pin_order integer NOT NULL DEFAULT 0,
        deadline timestamptz,
        closed_at timestamptz,
        created timestamptz NOT NULL DEFAULT now(),
        updated timestamptz NOT NULL DEFAULT now(),
        UNIQUE (repo_id, index)
      )`);
    await db.query(`CREATE INDEX issue_list ON issue (repo_id, is_closed, is_pull, created DESC, id DESC)`);
    await db.query(`CREATE INDEX issue_poster ON issue (poster_id)`);
    await db.query(`CREATE INDEX issue_milestone ON issue (milestone_id)`);
    await db.query(`CREATE INDEX issue_pinned ON issue (repo_id, pin_order) WHERE pin_order > 0`);
    await db.query(`
      CREATE TABLE issue_assignees (
        issue_id bigint NOT NULL REFERENCES issue(id) ON DELETE CASCADE,
        assignee_id bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
        PRIMARY KEY (issue_id, assignee_id)
      )`);
    await db.query(`CREATE INDEX issue_assignees_assignee ON issue_assignees (assignee_id)`);
    await db.query(`
      CREATE TABLE issue_label (
        issue_id bigint NOT NULL REFERENCES issue(id) ON DELETE CASCADE,
        label_id bigint NOT NULL REFERENCES label(id) ON DELETE CASCADE,
        PRIMARY KEY (issue_id, label_id)
      )`);
    await db.query(`CREATE INDEX issue_label_label ON issue_label (label_id)`);
    // Who is mentioned in an issue (Gitea's issue_user.is_mentioned), for the mentioned_by filters.
    await db.query(`
      CREATE TABLE issue_mention (
        issue_id bigint NOT NULL REFERENCES issue(id) ON DELETE CASCADE,
        user_id bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
        PRIMARY KEY (issue_id, user_id)
      )`);
    await db.query(`CREATE INDEX issue_mention_user ON issue_mention (user_id)`);
    // issue_id depends on dependency_id (dependency_id blocks issue_id).
    await db.query(`
      CREATE TABLE issue_dependency (
        id bigserial PRIMARY KEY,
        user_id bigint REFERENCES "user"(id) ON DELETE SET NULL,
        issue_id bigint NOT NULL REFERENCES issue(id) ON DELETE CASCADE,
        dependency_id bigint NOT NULL REFERENCES issue(id) ON DELETE CASCADE,
        created timestamptz NOT NULL DEFAULT now(),
        updated timestamptz NOT NULL DEFAULT now(),
        UNIQUE (issue_id, dependency_id)
      )`);
    await db.query(`CREATE INDEX issue_dependency_dependency ON issue_dependency (dependency_id)`);
    // Gitea's comment: `type` is its CommentType number; the other columns hold what each type records.
    await db.query(`
      CREATE TABLE comment (
        id bigserial PRIMARY KEY,
        type integer NOT NULL,
        poster_id bigint REFERENCES "user"(id) ON DELETE SET NULL,
        original_author text NOT NULL DEFAULT '',
        original_author_id bigint NOT NULL DEFAULT 0,
        issue_id bigint NOT NULL REFERENCES issue(id) ON DELETE CASCADE,
        label_id bigint,
        old_milestone_id bigint,
        milestone_id bigint,
        assignee_id bigint,
        removed_assignee boolean NOT NULL DEFAULT false,
        old_title text NOT NULL DEFAULT '',
        new_title text NOT NULL DEFAULT '',
        old_ref text NOT NULL DEFAULT '',
        new_ref text NOT NULL DEFAULT '',
        dependent_issue_id bigint,
        ref_repo_id bigint,
        ref_issue_id bigint,
        ref_comment_id bigint,
        ref_action integer NOT NULL DEFAULT 0,
        ref_is_pull boolean NOT NULL DEFAULT false,
        commit_sha text NOT NULL DEFAULT '',
        time_id bigint,
        review_id bigint,
        content text NOT NULL DEFAULT '',
        created timestamptz NOT NULL DEFAULT now(),
        updated timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX comment_issue ON comment (issue_id, created, id)`);
    await db.query(`CREATE INDEX comment_updated ON comment (updated)`);
    await db.query(`CREATE INDEX attachment_issue ON attachment (issue_id)`);
    await db.query(`CREATE INDEX attachment_comment ON attachment (comment_id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX attachment_issue, attachment_comment`);
    await db.query(`DROP TABLE comment, issue_dependency, issue_mention, issue_label, issue_assignees, issue, milestone, issue_index`);
  }
}
