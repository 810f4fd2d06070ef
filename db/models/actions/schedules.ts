import type { Queryable, Tx } from '../../data-source.js';
import { enqueueMany } from '../../../jobs/queue.js';
import type { GitStore } from '../../git/store.js';
import type { RepoRow } from '../repos/repo-row.js';
import { cancelRuns, createRun, type RunRow } from './runs.js';
import { nextRunOf, parseWorkflow, readWorkflows, scheduleSpecs, workflowId } from './workflows.js';

/** A schedule plan: one workflow file of the default branch with `schedule` triggers, and when it fires next. */
export interface ScheduleRow {
  id: number;
  repo_id: number;
  workflow_path: string;
  specs: string[];
  ref: string;
  commit_sha: string;
  content: string;
  trigger_user_id: number | null;
  next_run: Date;
  created: Date;
  updated: Date;
}

const toSchedule = (raw: Record<string, unknown>): ScheduleRow => ({
  ...(raw as unknown as ScheduleRow),
  id: Number(raw.id), repo_id: Number(raw.repo_id), trigger_user_id: raw.trigger_user_id === null ? null : Number(raw.trigger_user_id),
});

/** Whether a repository's workflows may run at all: actions on for the instance and its actions unit on. */
export function actionsActive(enabled: boolean, repo: RepoRow): boolean {
  return enabled && repo.has_actions && !repo.is_mirror && repo.status === 0;
}

export async function listSchedules(db: Queryable, repoId: number): Promise<ScheduleRow[]> {
  return (await db.query<Record<string, unknown>>('SELECT * FROM action_schedule WHERE repo_id = $1 ORDER BY id', [repoId])).map(toSchedule);
}

/**
 * Removes a repository's plans and cancels its waiting and running scheduled runs (the state table's first and
 * third rows): the actions unit or actions were disabled, or the default branch changed.
 */
export async function removePlans(tx: Tx, repoId: number): Promise<void> {
  await tx.query('DELETE FROM action_schedule WHERE repo_id = $1', [repoId]);
  await cancelRuns(tx, { repoId, scheduledOnly: true });
}

/**
 * The instance's [actions] ENABLED as a starting worker reads it. Off: every plan goes and scheduled runs are
 * cancelled. Switched on after being off (or for the first time): each repository with actions gets an
 * `actions-replan` job, in this transaction, that makes its plans from its default branch. The switch is recorded,
 * so of workers starting together, one queues the jobs. Answers how many it queued.
 */
export async function applyActionsSwitch(tx: Tx, enabled: boolean): Promise<number> {
  const [switched] = await tx.query('UPDATE actions_state SET enabled = $1, changed = now() WHERE id = 1 AND enabled <> $1 RETURNING id', [enabled]);
  if (!enabled) {
    await tx.query('DELETE FROM action_schedule');
    await cancelRuns(tx, { scheduledOnly: true });
    return 0;
  }
  if (!switched) return 0;
  const repos = await tx.query<{ id: number }>('SELECT id FROM repository WHERE has_actions AND NOT is_mirror AND NOT is_empty AND status = 0 ORDER BY id');
  await enqueueMany(tx, 'actions-replan', repos.map((repo) => ({ repoId: Number(repo.id) })));
  return repos.length;
}

/**
 * The plans of a repository made to match the workflows of its default branch at `commit`: one plan per file with
 * valid cron specs; a file whose specs changed gets a new plan (a new id, the next run counted from now), one whose
 * specs are the same keeps its plan and next run; plans of files without schedules go.
 */
export async function planFromDefaultBranch(tx: Tx, git: GitStore, repo: RepoRow, commit: string, doerId: number | null): Promise<ScheduleRow[]> {
  const workflows = await readWorkflows(git.open(repo), commit);
  const wanted = new Map<string, { specs: string[]; content: string }>();
  for (const workflow of workflows) {
    if (workflow.error) continue;
    const { specs, error } = scheduleSpecs(workflow);
    if (error || specs.length === 0) continue;
    wanted.set(workflow.path, { specs, content: workflow.content });
  }
  const existing = await tx.query<Record<string, unknown>>('SELECT * FROM action_schedule WHERE repo_id = $1 FOR UPDATE', [repo.id]);
  for (const plan of existing.map(toSchedule)) {
    const next = wanted.get(plan.workflow_path);
    if (next && sameSpecs(next.specs, plan.specs)) {
      await tx.query('UPDATE action_schedule SET content = $2, commit_sha = $3, ref = $4, trigger_user_id = $5, updated = now() WHERE id = $1', [
        plan.id, next.content, commit, `refs/heads/${repo.default_branch}`, doerId,
      ]);
      wanted.delete(plan.workflow_path);
    } else {
      await tx.query('DELETE FROM action_schedule WHERE id = $1', [plan.id]);
    }
  }
  const now = new Date();
  for (const [path, plan] of wanted) {
    await tx.query(
      `INSERT INTO action_schedule (repo_id, workflow_path, specs, ref, commit_sha, content, trigger_user_id, next_run)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [repo.id, path, plan.specs, `refs/heads/${repo.default_branch}`, commit, plan.content, doerId, nextRunOf(plan.specs, now)],
    );
  }
  return listSchedules(tx, repo.id);
}

function sameSpecs(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((spec, i) => spec === b[i]);
}

/** Plans whose next run is due, for the clock to enqueue; each names its slot. */
export async function duePlans(db: Queryable, now: Date): Promise<{ id: number; slot: Date }[]> {
  const rows = await db.query<{ id: string; next_run: Date }>('SELECT id, next_run FROM action_schedule WHERE next_run <= $1 ORDER BY next_run LIMIT 1000', [now]);
  return rows.map((r) => ({ id: Number(r.id), slot: r.next_run }));
}

/**
 * One firing of a plan in its time slot: a run of the plan's workflow (at most one per plan and slot, whoever fires
 * it and however often), and the plan's next run moved past the slot. Null when the plan is gone, the slot was
 * already fired, or the repository's actions are off.
 */
export async function firePlan(tx: Tx, enabled: boolean, planId: number, slot: Date): Promise<RunRow | null> {
  const [raw] = await tx.query<Record<string, unknown>>('SELECT * FROM action_schedule WHERE id = $1 FOR UPDATE', [planId]);
  if (!raw) return null;
  const plan = toSchedule(raw);
  const [repo] = await tx.query<RepoRow>('SELECT * FROM repository WHERE id = $1', [plan.repo_id]);
  if (!repo || !actionsActive(enabled, repo)) return null;
  const after = new Date(Math.max(slot.getTime(), plan.next_run.getTime(), Date.now() - 60_000));
  await tx.query('UPDATE action_schedule SET next_run = $2, updated = now() WHERE id = $1 AND next_run <= $3', [plan.id, nextRunOf(plan.specs, after), slot]);
  const workflow = parseWorkflow(plan.workflow_path, plan.content);
  return createRun(tx, plan.repo_id, workflow, {
    event: 'schedule', ref: plan.ref, commitSha: plan.commit_sha, userId: plan.trigger_user_id,
    title: `${workflow.name === workflowId(plan.workflow_path) ? plan.workflow_path : workflow.name} (schedule)`,
    payload: { schedule: plan.specs[0] }, schedule: { id: plan.id, slot },
  });
}
