import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Actions runs (Gitea's action_run, action_run_job, action_task and its steps, outputs and logs), runners, and
 * schedule plans (action_schedule). A run is unique per triggering event and workflow file, and per plan and time
 * slot, so an event or a plan's firing handled twice makes one run. Tokens are stored as SHA-256 hashes.
 */
export class ActionsRuns1732000014500 implements MigrationInterface {
  name = 'ActionsRuns1732000014500';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE action_schedule (
        id bigserial PRIMARY KEY,
        repo_id bigint NOT NULL REFERENCES repository(id) ON DELETE CASCADE,
        workflow_path text NOT NULL,
        specs text[] NOT NULL,
        ref text NOT NULL,
        commit_sha text NOT NULL,
        content text NOT NULL,
        trigger_user_id bigint REFERENCES "user"(id) ON DELETE SET NULL,
        next_run timestamptz NOT NULL,
        created timestamptz NOT NULL DEFAULT now(),
        updated timestamptz NOT NULL DEFAULT now(),
        UNIQUE (repo_id, workflow_path)
      )`);
    await db.query(`CREATE INDEX action_schedule_next_run ON action_schedule (next_run)`);
    await db.query(`
      CREATE TABLE action_run (
        id bigserial PRIMARY KEY,
        repo_id bigint NOT NULL REFERENCES repository(id) ON DELETE CASCADE,
        index bigint NOT NULL,
        workflow_path text NOT NULL,
        title text NOT NULL,
        trigger_user_id bigint REFERENCES "user"(id) ON DELETE SET NULL,
        event text NOT NULL,
        event_payload jsonb NOT NULL DEFAULT '{}',
        ref text NOT NULL,
        commit_sha text NOT NULL,
        trigger_event_id bigint,
        schedule_id bigint REFERENCES action_schedule(id) ON DELETE SET NULL,
        schedule_slot timestamptz,
        is_scheduled boolean NOT NULL DEFAULT false,
        status text NOT NULL,
        parse_error text,
        started timestamptz,
        stopped timestamptz,
        created timestamptz NOT NULL DEFAULT now(),
        updated timestamptz NOT NULL DEFAULT now(),
        UNIQUE (repo_id, index),
        UNIQUE (trigger_event_id, workflow_path),
        UNIQUE (schedule_id, schedule_slot)
      )`);
    await db.query(`CREATE INDEX action_run_repo_status ON action_run (repo_id, status)`);
    await db.query(`
      CREATE TABLE action_runner (
        id bigserial PRIMARY KEY,
        uuid uuid NOT NULL UNIQUE,
        name text NOT NULL,
        token_hash text NOT NULL UNIQUE,
        owner_id bigint REFERENCES "user"(id) ON DELETE CASCADE,
        repo_id bigint REFERENCES repository(id) ON DELETE CASCADE,
        version text NOT NULL DEFAULT '',
        labels text[] NOT NULL DEFAULT '{}',
        ephemeral boolean NOT NULL DEFAULT false,
        last_online timestamptz,
        last_active timestamptz,
        created timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`
      CREATE TABLE action_run_job (
        id bigserial PRIMARY KEY,
        run_id bigint NOT NULL REFERENCES action_run(id) ON DELETE CASCADE,
        repo_id bigint NOT NULL REFERENCES repository(id) ON DELETE CASCADE,
        job_key text NOT NULL,
        name text NOT NULL,
        needs text[] NOT NULL DEFAULT '{}',
        runs_on text[] NOT NULL DEFAULT '{}',
        payload text NOT NULL,
        status text NOT NULL,
        attempt integer NOT NULL DEFAULT 0,
        task_id bigint,
        started timestamptz,
        stopped timestamptz,
        created timestamptz NOT NULL DEFAULT now(),
        updated timestamptz NOT NULL DEFAULT now(),
        UNIQUE (run_id, job_key)
      )`);
    await db.query(`CREATE INDEX action_run_job_waiting ON action_run_job (id) WHERE status = 'waiting'`);
    await db.query(`
      CREATE TABLE action_task (
        id bigserial PRIMARY KEY,
        job_id bigint NOT NULL REFERENCES action_run_job(id) ON DELETE CASCADE,
        runner_id bigint REFERENCES action_runner(id) ON DELETE SET NULL,
        repo_id bigint NOT NULL REFERENCES repository(id) ON DELETE CASCADE,
        attempt integer NOT NULL,
        token_hash text NOT NULL UNIQUE,
        status text NOT NULL,
        log_length bigint NOT NULL DEFAULT 0,
        logs_done boolean NOT NULL DEFAULT false,
        started timestamptz,
        stopped timestamptz,
        created timestamptz NOT NULL DEFAULT now(),
        updated timestamptz NOT NULL DEFAULT now(),
        UNIQUE (job_id, attempt)
      )`);
    await db.query(`CREATE INDEX action_task_runner ON action_task (runner_id)`);
    await db.query(`
      CREATE TABLE action_task_step (
        task_id bigint NOT NULL REFERENCES action_task(id) ON DELETE CASCADE,
        index integer NOT NULL,
        name text NOT NULL,
        status text NOT NULL,
        log_index bigint NOT NULL DEFAULT 0,
        log_length bigint NOT NULL DEFAULT 0,
        started timestamptz,
        stopped timestamptz,
        PRIMARY KEY (task_id, index)
      )`);
    await db.query(`
      CREATE TABLE action_task_output (
        task_id bigint NOT NULL REFERENCES action_task(id) ON DELETE CASCADE,
        key text NOT NULL,
        value text NOT NULL,
        PRIMARY KEY (task_id, key)
      )`);
    await db.query(`
      CREATE TABLE action_task_log (
        task_id bigint NOT NULL REFERENCES action_task(id) ON DELETE CASCADE,
        index bigint NOT NULL,
        time timestamptz NOT NULL,
        content text NOT NULL,
        PRIMARY KEY (task_id, index)
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    for (const table of ['action_task_log', 'action_task_output', 'action_task_step', 'action_task', 'action_run_job', 'action_runner', 'action_run', 'action_schedule']) {
      await db.query(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}
