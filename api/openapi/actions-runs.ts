/**
 * Definitions of the actions runs, jobs, schedule plans and runners Hearth answers: the shapes of Gitea's later
 * API (ActionWorkflowRun, ActionWorkflowJob, ActionRunner with their list responses), which 1.22 lacks, plus
 * Hearth's own schedule plan.
 */
type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/definitions/${name}` });
const int = { type: 'integer', format: 'int64' };
const str = { type: 'string' };
const time = { type: 'string', format: 'date-time' };
const nullableTime = { type: 'string', format: 'date-time', 'x-nullable': true };
const nullableStr = { type: 'string', 'x-nullable': true };
const status = { type: 'string', description: 'queued, in_progress or completed' };
const conclusion = { type: 'string', 'x-nullable': true, description: 'success, failure, cancelled or skipped once completed' };

export const actionsRunDefinitions: Record<string, Schema> = {
  ActionWorkflowRun: {
    description: 'ActionWorkflowRun represents a WorkflowRun (Gitea 1.24 shape; `error` is Hearth\'s: why the workflow file could not be used)',
    type: 'object',
    properties: {
      id: int, url: str, html_url: str, display_title: str, path: str, workflow_id: str, event: str, run_attempt: int, run_number: int,
      repository_id: int, head_sha: str, head_branch: str, status, conclusion, actor: ref('User'), trigger_actor: ref('User'),
      error: nullableStr, created_at: time, started_at: nullableTime, completed_at: nullableTime,
    },
  },
  ActionWorkflowRunsResponse: {
    description: 'ActionWorkflowRunsResponse returns ActionWorkflowRuns',
    type: 'object',
    properties: { workflow_runs: { type: 'array', items: ref('ActionWorkflowRun') }, total_count: int },
  },
  ActionWorkflowStep: {
    description: 'ActionWorkflowStep represents a step of a WorkflowJob',
    type: 'object',
    properties: { name: str, number: int, status, conclusion, started_at: nullableTime, completed_at: nullableTime },
  },
  ActionWorkflowJob: {
    description: 'ActionWorkflowJob represents a WorkflowJob (Gitea 1.24 shape; `needs` is Hearth\'s)',
    type: 'object',
    properties: {
      id: int, url: str, html_url: str, run_id: int, run_url: str, name: str, labels: { type: 'array', items: str },
      needs: { type: 'array', items: str }, run_attempt: int, head_sha: str, head_branch: str, status, conclusion,
      runner_id: int, runner_name: str, steps: { type: 'array', items: ref('ActionWorkflowStep') },
      created_at: time, started_at: nullableTime, completed_at: nullableTime,
    },
  },
  ActionWorkflowJobsResponse: {
    description: 'ActionWorkflowJobsResponse returns ActionWorkflowJobs',
    type: 'object',
    properties: { jobs: { type: 'array', items: ref('ActionWorkflowJob') }, total_count: int },
  },
  ActionSchedule: {
    description: "A schedule plan of a repository (Hearth's own): one workflow file of the default branch with its cron specs and next run",
    type: 'object',
    properties: {
      id: int, workflow_id: str, workflow_path: str, specs: { type: 'array', items: str }, ref: str, commit_sha: str,
      next_run: time, created_at: time, updated_at: time,
    },
  },
  ActionScheduleList: { description: 'ActionScheduleList', type: 'array', items: ref('ActionSchedule') },
  ActionRunnerLabel: { description: 'ActionRunnerLabel represents a Runner Label', type: 'object', properties: { id: int, name: str, type: str } },
  ActionRunner: {
    description: 'ActionRunner represents a Runner (Gitea 1.24 shape; `version` is Hearth\'s)',
    type: 'object',
    properties: {
      id: int, name: str, status: { type: 'string', description: 'offline, idle or active' }, busy: { type: 'boolean' },
      ephemeral: { type: 'boolean' }, version: str, labels: { type: 'array', items: ref('ActionRunnerLabel') },
    },
  },
  ActionRunnersResponse: {
    description: 'ActionRunnersResponse returns Runners',
    type: 'object',
    properties: { runners: { type: 'array', items: ref('ActionRunner') }, total_count: int },
  },
};
