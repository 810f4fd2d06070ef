import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Pull requests (Gitea's models/issues/pull.go): one row per pull request issue (`issue.is_pull`), with its head
 * and base, its mergeability as last computed, and its merge.
 */
export class PullRequests1732000012000 implements MigrationInterface {
  name = 'PullRequests1732000012000';

  async up(db: QueryRunner): Promise<void> {
    // Lets pull_request name (issue_id, true): only a pull request's issue can have a pull request row.
    await db.query(`CREATE UNIQUE INDEX issue_id_is_pull ON issue (id, is_pull)`);
    await db.query(`
      CREATE TABLE pull_request (
        id bigserial PRIMARY KEY,
        issue_id bigint NOT NULL UNIQUE,
        is_pull boolean NOT NULL DEFAULT true CHECK (is_pull),
        index bigint NOT NULL,
        type integer NOT NULL DEFAULT 0,
        -- Gitea's PullRequestStatus: 0 conflict, 1 checking, 2 mergeable, 3 manually merged, 4 error, 5 empty, 6 ancestor
        status integer NOT NULL DEFAULT 1,
        conflicted_files text[] NOT NULL DEFAULT '{}',
        changed_protected_files text[] NOT NULL DEFAULT '{}',
        commits_ahead integer NOT NULL DEFAULT 0,
        commits_behind integer NOT NULL DEFAULT 0,
        head_repo_id bigint REFERENCES repository(id) ON DELETE SET NULL,
        base_repo_id bigint NOT NULL REFERENCES repository(id) ON DELETE CASCADE,
        head_branch text NOT NULL,
        base_branch text NOT NULL,
        merge_base text NOT NULL DEFAULT '',
        head_commit_id text NOT NULL DEFAULT '',
        allow_maintainer_edit boolean NOT NULL DEFAULT false,
        has_merged boolean NOT NULL DEFAULT false,
        merged_commit_id text NOT NULL DEFAULT '',
        merger_id bigint REFERENCES "user"(id) ON DELETE SET NULL,
        merged_at timestamptz,
        created timestamptz NOT NULL DEFAULT now(),
        updated timestamptz NOT NULL DEFAULT now(),
        FOREIGN KEY (issue_id, is_pull) REFERENCES issue(id, is_pull) ON DELETE CASCADE,
        UNIQUE (base_repo_id, index)
      )`);
    await db.query(`CREATE INDEX pull_request_head ON pull_request (head_repo_id, head_branch) WHERE NOT has_merged`);
    await db.query(`CREATE INDEX pull_request_base ON pull_request (base_repo_id, base_branch) WHERE NOT has_merged`);
    await db.query(`CREATE INDEX pull_request_merged_commit ON pull_request (base_repo_id, merged_commit_id) WHERE has_merged`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE pull_request`);
    await db.query(`DROP INDEX issue_id_is_pull`);
  }
}
