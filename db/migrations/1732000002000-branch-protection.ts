import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Branch protection rules (Gitea's protected_branch, as of 1.22) and the pushes whose branch sync has
 * already emitted its events, so a retried sync job never announces the same push twice.
 */
export class BranchProtection1732000002000 implements MigrationInterface {
  name = 'BranchProtection1732000002000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE protected_branch (
        id bigserial PRIMARY KEY,
        repo_id bigint NOT NULL REFERENCES repository(id) ON DELETE CASCADE,
        rule_name text NOT NULL,
        can_push boolean NOT NULL DEFAULT false,
        enable_whitelist boolean NOT NULL DEFAULT false,
        whitelist_user_ids bigint[] NOT NULL DEFAULT '{}',
        whitelist_team_ids bigint[] NOT NULL DEFAULT '{}',
        whitelist_deploy_keys boolean NOT NULL DEFAULT false,
        enable_merge_whitelist boolean NOT NULL DEFAULT false,
        merge_whitelist_user_ids bigint[] NOT NULL DEFAULT '{}',
        merge_whitelist_team_ids bigint[] NOT NULL DEFAULT '{}',
        enable_status_check boolean NOT NULL DEFAULT false,
        status_check_contexts text[] NOT NULL DEFAULT '{}',
        enable_approvals_whitelist boolean NOT NULL DEFAULT false,
        approvals_whitelist_user_ids bigint[] NOT NULL DEFAULT '{}',
        approvals_whitelist_team_ids bigint[] NOT NULL DEFAULT '{}',
        required_approvals integer NOT NULL DEFAULT 0,
        block_on_rejected_reviews boolean NOT NULL DEFAULT false,
        block_on_official_review_requests boolean NOT NULL DEFAULT false,
        block_on_outdated_branch boolean NOT NULL DEFAULT false,
        dismiss_stale_approvals boolean NOT NULL DEFAULT false,
        ignore_stale_approvals boolean NOT NULL DEFAULT false,
        require_signed_commits boolean NOT NULL DEFAULT false,
        protected_file_patterns text NOT NULL DEFAULT '',
        unprotected_file_patterns text NOT NULL DEFAULT '',
        created timestamptz NOT NULL DEFAULT now(),
        updated timestamptz NOT NULL DEFAULT now(),
        UNIQUE (repo_id, rule_name)
      )`);
    await db.query(`
      CREATE TABLE synced_push (
        push_id uuid PRIMARY KEY,
        repo_id bigint NOT NULL REFERENCES repository(id) ON DELETE CASCADE,
        created timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX synced_push_created ON synced_push (created)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE synced_push, protected_branch`);
  }
}
