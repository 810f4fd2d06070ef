import type { RunJobRow, RunRow, RunState } from '../../db/models/actions/runs.js';
import type { RunnerRow } from '../../db/models/actions/runners.js';
import { labelName, runnerStatus } from '../../db/models/actions/runners.js';
import type { ScheduleRow } from '../../db/models/actions/schedules.js';
import { workflowId } from '../../db/models/actions/workflows.js';
import type { UserRow } from '../../db/models/users/user-row.js';
import { iso } from './time.js';
import { renderGhost, renderUser, type ApiUser, type RenderContext } from './user.js';

/** Gitea's ToActionsStatus: waiting is `queued`, running `in_progress`, a finished state `completed` with it as the conclusion. */
export function statusAndConclusion(state: RunState): { status: string; conclusion: string | null } {
  if (state === 'waiting') return { status: 'queued', conclusion: null };
  if (state === 'running') return { status: 'in_progress', conclusion: null };
  return { status: 'completed', conclusion: state };
}

const optionalTime = (date: Date | null): string | null => (date ? iso(date) : null);

export interface RepoNames {
  owner: string;
  name: string;
}

export interface ApiWorkflowRun {
  id: number;
  url: string;
  html_url: string;
  display_title: string;
  path: string;
  workflow_id: string;
  event: string;
  run_attempt: number;
  run_number: number;
  repository_id: number;
  head_sha: string;
  head_branch: string;
  status: string;
  conclusion: string | null;
  actor: ApiUser;
  trigger_actor: ApiUser;
  error: string | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
}

export function renderRun(run: RunRow, repo: RepoNames, trigger: UserRow | null, viewer: UserRow | null, ctx: RenderContext): ApiWorkflowRun {
  const actor = trigger ? renderUser(trigger, viewer, ctx) : renderGhost(ctx);
  return {
    id: run.id,
    url: `${ctx.rootUrl}api/v1/repos/${repo.owner}/${repo.name}/actions/runs/${run.id}`,
    html_url: `${ctx.rootUrl}${repo.owner}/${repo.name}/actions/runs/${run.index}`,
    display_title: run.title,
    path: `${workflowId(run.workflow_path)}@${run.ref}`,
    workflow_id: workflowId(run.workflow_path),
    event: run.event,
    run_attempt: 1,
    run_number: run.index,
    repository_id: run.repo_id,
    head_sha: run.commit_sha,
    head_branch: run.ref.replace(/^refs\/(heads|tags)\//, ''),
    ...statusAndConclusion(run.status),
    actor,
    trigger_actor: actor,
    error: run.parse_error,
    created_at: iso(run.created),
    started_at: optionalTime(run.started),
    completed_at: optionalTime(run.stopped),
  };
}

export interface StepView {
  index: number;
  name: string;
  status: RunState;
  started: Date | null;
  stopped: Date | null;
}

export function renderJob(job: RunJobRow, run: RunRow, repo: RepoNames, runner: RunnerRow | null, steps: StepView[], ctx: RenderContext) {
  const runUrl = `${ctx.rootUrl}api/v1/repos/${repo.owner}/${repo.name}/actions/runs/${run.id}`;
  return {
    id: job.id,
    url: `${ctx.rootUrl}api/v1/repos/${repo.owner}/${repo.name}/actions/jobs/${job.id}`,
    html_url: `${ctx.rootUrl}${repo.owner}/${repo.name}/actions/runs/${run.index}/jobs/${job.id}`,
    run_id: run.id,
    run_url: runUrl,
    name: job.name,
    labels: job.runs_on,
    needs: job.needs,
    run_attempt: job.attempt,
    head_sha: run.commit_sha,
    head_branch: run.ref.replace(/^refs\/(heads|tags)\//, ''),
    ...statusAndConclusion(job.status),
    runner_id: runner?.id ?? 0,
    runner_name: runner?.name ?? '',
    steps: steps.map((step) => ({
      name: step.name, number: step.index + 1, ...statusAndConclusion(step.status),
      started_at: optionalTime(step.started), completed_at: optionalTime(step.stopped),
    })),
    created_at: iso(job.created),
    started_at: optionalTime(job.started),
    completed_at: optionalTime(job.stopped),
  };
}

export function renderSchedule(plan: ScheduleRow) {
  return {
    id: plan.id,
    workflow_id: workflowId(plan.workflow_path),
    workflow_path: plan.workflow_path,
    specs: plan.specs,
    ref: plan.ref,
    commit_sha: plan.commit_sha,
    next_run: iso(plan.next_run),
    created_at: iso(plan.created),
    updated_at: iso(plan.updated),
  };
}

/** Gitea's later ActionRunner: labels with their kind (Hearth keeps no separate label rows, so ids are positions). */
export function renderRunner(runner: RunnerRow & { busy: boolean }) {
  return {
    id: runner.id,
    name: runner.name,
    status: runnerStatus(runner, runner.busy),
    busy: runner.busy,
    ephemeral: runner.ephemeral,
    version: runner.version,
    labels: runner.labels.map((label, i) => ({ id: i + 1, name: labelName(label), type: 'custom' })),
  };
}
