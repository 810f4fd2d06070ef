import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Repositories, their collaborators, branches, renames and the stored domain events. */
export class Repositories1732000001000 implements MigrationInterface {
  name = 'Repositories1732000001000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE repository (
        id bigserial PRIMARY KEY,
        owner_id bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
        owner_name text NOT NULL,
        lower_name text NOT NULL,
        name text NOT NULL,
        description text NOT NULL DEFAULT '',
        website text NOT NULL DEFAULT '',
        original_url text NOT NULL DEFAULT '',
        default_branch text NOT NULL DEFAULT 'main',
        object_format_name text NOT NULL DEFAULT 'sha1',
        num_watches integer NOT NULL DEFAULT 0,
        num_stars integer NOT NULL DEFAULT 0,
        num_forks integer NOT NULL DEFAULT 0,
        num_issues integer NOT NULL DEFAULT 0,
        num_closed_issues integer NOT NULL DEFAULT 0,
        num_pulls integer NOT NULL DEFAULT 0,
        num_closed_pulls integer NOT NULL DEFAULT 0,
        num_releases integer NOT NULL DEFAULT 0,
        is_private boolean NOT NULL DEFAULT false,
        is_empty boolean NOT NULL DEFAULT true,
        is_archived boolean NOT NULL DEFAULT false,
        archived_at timestamptz,
        is_mirror boolean NOT NULL DEFAULT false,
        is_fork boolean NOT NULL DEFAULT false,
        fork_id bigint REFERENCES repository(id) ON DELETE SET NULL,
        is_template boolean NOT NULL DEFAULT false,
        template_id bigint REFERENCES repository(id) ON DELETE SET NULL,
        size bigint NOT NULL DEFAULT 0,
        topics text[] NOT NULL DEFAULT '{}',
        avatar text NOT NULL DEFAULT '',
        has_issues boolean NOT NULL DEFAULT true,
        has_wiki boolean NOT NULL DEFAULT true,
        has_pull_requests boolean NOT NULL DEFAULT true,
        has_projects boolean NOT NULL DEFAULT true,
        has_releases boolean NOT NULL DEFAULT true,
        has_packages boolean NOT NULL DEFAULT true,
        has_actions boolean NOT NULL DEFAULT true,
        projects_mode text NOT NULL DEFAULT 'all',
        ignore_whitespace_conflicts boolean NOT NULL DEFAULT false,
        allow_merge_commits boolean NOT NULL DEFAULT true,
        allow_rebase boolean NOT NULL DEFAULT true,
        allow_rebase_explicit boolean NOT NULL DEFAULT true,
        allow_squash_merge boolean NOT NULL DEFAULT true,
        allow_fast_forward_only_merge boolean NOT NULL DEFAULT true,
        allow_rebase_update boolean NOT NULL DEFAULT true,
        allow_manual_merge boolean NOT NULL DEFAULT false,
        autodetect_manual_merge boolean NOT NULL DEFAULT false,
        default_delete_branch_after_merge boolean NOT NULL DEFAULT false,
        default_merge_style text NOT NULL DEFAULT 'merge',
        default_allow_maintainer_edit boolean NOT NULL DEFAULT false,
        internal_tracker jsonb NOT NULL DEFAULT '{"enable_time_tracker": true, "allow_only_contributors_to_track_time": true, "enable_issue_dependencies": true}',
        external_tracker jsonb,
        external_wiki jsonb,
        created timestamptz NOT NULL DEFAULT now(),
        updated timestamptz NOT NULL DEFAULT now(),
        UNIQUE (owner_id, lower_name)
      )`);
    await db.query(`CREATE INDEX repository_fork_id ON repository (fork_id)`);
    await db.query(`CREATE INDEX repository_lower_name ON repository (lower_name)`);
    await db.query(`
      CREATE TABLE mirror (
        repo_id bigint PRIMARY KEY REFERENCES repository(id) ON DELETE CASCADE,
        interval_seconds integer NOT NULL,
        enable_prune boolean NOT NULL DEFAULT true,
        remote_address text NOT NULL DEFAULT '',
        updated timestamptz,
        next_update timestamptz
      )`);
    await db.query(`
      CREATE TABLE collaboration (
        repo_id bigint NOT NULL REFERENCES repository(id) ON DELETE CASCADE,
        user_id bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
        mode smallint NOT NULL DEFAULT 2,
        created timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (repo_id, user_id)
      )`);
    await db.query(`CREATE INDEX collaboration_user_id ON collaboration (user_id)`);
    await db.query(`
      CREATE TABLE branch (
        id bigserial PRIMARY KEY,
        repo_id bigint NOT NULL REFERENCES repository(id) ON DELETE CASCADE,
        name text NOT NULL,
        commit_id text NOT NULL,
        commit_message text NOT NULL DEFAULT '',
        commit_time timestamptz NOT NULL,
        pusher_id bigint,
        created timestamptz NOT NULL DEFAULT now(),
        updated timestamptz NOT NULL DEFAULT now(),
        UNIQUE (repo_id, name)
      )`);
    await db.query(`
      CREATE TABLE repo_redirect (
        owner_id bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
        lower_name text NOT NULL,
        redirect_repo_id bigint NOT NULL REFERENCES repository(id) ON DELETE CASCADE,
        PRIMARY KEY (owner_id, lower_name)
      )`);
    await db.query(`
      CREATE TABLE domain_event (
        id bigserial PRIMARY KEY,
        kind text NOT NULL,
        repo_id bigint,
        doer_id bigint,
        payload jsonb NOT NULL DEFAULT '{}',
        created timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX domain_event_repo ON domain_event (repo_id, id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE domain_event, repo_redirect, branch, collaboration, mirror, repository`);
  }
}
