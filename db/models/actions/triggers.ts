import type { Tx } from '../../data-source.js';
import type { EventKind } from '../../events/catalogue.js';
import type { GitStore } from '../../git/store.js';
import { pullHeadRef, type PullRow } from '../pulls/pull-row.js';
import type { RepoRow } from '../repos/repo-row.js';
import type { UserRow } from '../users/user-row.js';
import { isActionsBot } from './bot.js';
import { createRun, type RunRow } from './runs.js';
import { actionsActive, planFromDefaultBranch, removePlans } from './schedules.js';
import { invalid, notFound } from '../../errors.js';
import { isDispatchable, pullRequestMatches, pushMatches, readWorkflows, workflowId } from './workflows.js';

/**
 * The activity type (what a workflow's `on.pull_request.types` names) of each pull request event, as Gitea's
 * actions notifier sends them; the issue events count for pull requests only.
 */
export const pullActivities = {
  'pull_request.opened': 'opened',
  'pull_request.synchronized': 'synchronize',
  'pull_request.edited': 'edited',
  'pull_request.merged': 'closed',
  'issue.closed': 'closed',
  'issue.reopened': 'reopened',
  'issue.edited': 'edited',
  'issue.assigned': 'assigned',
  'issue.unassigned': 'unassigned',
  'issue.labelled': 'labeled',
  'issue.unlabelled': 'unlabeled',
  'issue.milestoned': 'milestoned',
  'issue.demilestoned': 'demilestoned',
  'pull_review.requested': 'review_requested',
  'pull_review.request_removed': 'review_request_removed',
} as const satisfies Partial<Record<EventKind, string>>;
export type PullActivity = (typeof pullActivities)[keyof typeof pullActivities];

/**
 * The pull request activity of an event, or null: an issue event of an issue that is not a pull request, and an
 * edit of anything but the title or the description (Gitea's IssueChangeTitle and IssueChangeContent), have none.
 */
export function pullActivityOf(event: { kind: EventKind; payload: unknown }): PullActivity | null {
  if (!Object.hasOwn(pullActivities, event.kind)) return null;
  const payload = event.payload as { is_pull?: boolean; previous?: { title?: string; body?: string } };
  if (!payload.is_pull) return null;
  if (event.kind === 'issue.edited' && payload.previous?.title === undefined && payload.previous?.body === undefined) return null;
  return pullActivities[event.kind as keyof typeof pullActivities];
}

/** Whether the actions area consumes an event (the notifier queues an `actions-trigger` job for each that it does). */
export function wantsActions(event: { kind: EventKind; payload: unknown }): boolean {
  return event.kind === 'push' || event.kind === 'repository.default_branch_changed' || pullActivityOf(event) !== null;
}

const zeroSha = /^0+$/;

/**
 * The files of the commits from `before` (excluded) to `after`, those a push added or a pull request's since its
 * merge base; null when git cannot tell (every path filter then passes).
 */
async function changedFiles(git: GitStore, repo: RepoRow, before: string, after: string): Promise<string[] | null> {
  if (!before) return null;
  const reader = git.open(repo);
  try {
    const commits = await reader.log({ rev: after, not: zeroSha.test(before) ? undefined : before, max: 250 });
    const changes = await reader.changesOf(zeroSha.test(before) ? commits.slice(0, 1) : commits, { stats: false });
    return [...new Set([...changes.values()].flatMap((c) => c.files.map((f) => f.filename)))];
  } catch {
    return null;
  }
}

export interface PushTrigger {
  eventId: number;
  repo: RepoRow;
  doer: UserRow | null;
  ref: string;
  before: string;
  after: string;
}

/**
 * A push: a run for each workflow of the pushed commit whose push trigger matches (a workflow file that does not
 * parse gets a failed run that says why), and for a push to the default branch, the repository's schedule plans
 * made anew from its workflows. No runs for deleted refs, repositories without actions, or the bot's own pushes
 * (whose pushes to the default branch still move the plans, as Gitea's notify does: plans cannot trigger cyclically).
 */
export async function triggerPush(tx: Tx, git: GitStore, enabled: boolean, push: PushTrigger): Promise<RunRow[]> {
  if (!actionsActive(enabled, push.repo) || zeroSha.test(push.after)) return [];
  if (push.ref === `refs/heads/${push.repo.default_branch}`) await planFromDefaultBranch(tx, git, push.repo, push.after, push.doer?.id ?? null);
  if (isActionsBot(push.doer)) return [];
  const workflows = await readWorkflows(git.open(push.repo), push.after);
  if (workflows.length === 0) return [];
  const files = await changedFiles(git, push.repo, push.before, push.after);
  const runs: RunRow[] = [];
  for (const workflow of workflows) {
    if (workflow.error === null && !pushMatches(workflow, { ref: push.ref, changedFiles: files })) continue;
    const run = await createRun(tx, push.repo.id, workflow, {
      event: 'push', ref: push.ref, commitSha: push.after, userId: push.doer?.id ?? null, eventId: push.eventId,
      title: await commitTitle(git, push.repo, push.after),
      payload: { ref: push.ref, before: push.before, after: push.after },
    });
    if (run) runs.push(run);
  }
  return runs;
}

async function commitTitle(git: GitStore, repo: RepoRow, sha: string): Promise<string> {
  const commit = await git.open(repo).findCommit(sha).catch(() => null);
  return commit?.message.split('\n')[0]?.trim() || sha.slice(0, 10);
}

/**
 * The default branch changed: the plans go and scheduled runs are cancelled (the state table's third row), then
 * plans are made from the new default branch's workflows.
 */
export async function defaultBranchChanged(tx: Tx, git: GitStore, enabled: boolean, repo: RepoRow, doerId: number | null): Promise<void> {
  await removePlans(tx, repo.id);
  await replanFromDefaultBranch(tx, git, enabled, repo, doerId);
}

/**
 * The actions unit of a repository switched (PATCH `has_actions`), in the caller's transaction: off removes the
 * plans and cancels scheduled runs; on makes plans from the default branch again (the state table's first two rows).
 */
export async function actionsUnitChanged(tx: Tx, git: GitStore, enabled: boolean, repo: RepoRow, doerId: number | null): Promise<void> {
  if (!repo.has_actions || !enabled) {
    await removePlans(tx, repo.id);
    return;
  }
  await defaultBranchChanged(tx, git, enabled, repo, doerId);
}

/** The repository's plans made from the head of its default branch; none while its actions are off. */
export async function replanFromDefaultBranch(tx: Tx, git: GitStore, enabled: boolean, repo: RepoRow, doerId: number | null): Promise<void> {
  if (!actionsActive(enabled, repo)) return;
  const head = await git.open(repo).branchHead(repo.default_branch);
  if (head) await planFromDefaultBranch(tx, git, repo, head, doerId);
}

/**
 * After actions were switched on again for the instance: the plans of one repository made anew from its default
 * branch. The row is read under a share lock, so a concurrent switch of its actions unit is seen.
 */
export async function replanRepository(tx: Tx, git: GitStore, enabled: boolean, repoId: number): Promise<boolean> {
  const [repo] = await tx.query<RepoRow>('SELECT * FROM repository WHERE id = $1 FOR SHARE', [repoId]);
  if (!repo) return false;
  await replanFromDefaultBranch(tx, git, enabled, repo, null);
  return true;
}

export interface PullRequestTrigger {
  eventId: number;
  /** The base repository, where the runs are made. */
  repo: RepoRow;
  doer: UserRow | null;
  pull: PullRow;
  activity: PullActivity;
  title: string;
  /** Gitea's PullRequestPayload, the run's event payload. */
  payload: Record<string, unknown>;
}

/**
 * A pull request event: a run for each workflow of the head commit (the merged commit once merged) whose
 * pull_request trigger matches, on `refs/pull/N/head`. Branch filters look at the base branch and path filters at the
 * files changed since the merge base. A run of a fork's pull request gets a read-only token and no secrets. Nothing
 * for the bot's own events.
 */
export async function triggerPullRequest(tx: Tx, git: GitStore, enabled: boolean, trigger: PullRequestTrigger): Promise<RunRow[]> {
  const { repo, pull } = trigger;
  if (isActionsBot(trigger.doer) || !actionsActive(enabled, repo)) return [];
  const sha = pull.has_merged && pull.merged_commit_id ? pull.merged_commit_id : pull.head_commit_id;
  if (!sha) return [];
  const workflows = await readWorkflows(git.open(repo), sha);
  if (workflows.length === 0) return [];
  const files = await changedFiles(git, repo, pull.merge_base, pull.head_commit_id);
  const runs: RunRow[] = [];
  for (const workflow of workflows) {
    if (workflow.error === null && !pullRequestMatches(workflow, { action: trigger.activity, baseBranch: pull.base_branch, changedFiles: files })) continue;
    const run = await createRun(tx, repo.id, workflow, {
      event: 'pull_request', ref: pullHeadRef(pull.index), commitSha: sha, userId: trigger.doer?.id ?? null, eventId: trigger.eventId,
      title: trigger.title, payload: trigger.payload, isForkPullRequest: pull.head_repo_id !== pull.base_repo_id,
    });
    if (run) runs.push(run);
  }
  return runs;
}

/**
 * A manual run (workflow_dispatch) of one workflow file at a branch or tag: the workflow must name the trigger.
 * Inputs it declares take their defaults unless given; inputs it does not declare are refused.
 */
export async function dispatchWorkflow(
  tx: Tx, git: GitStore, enabled: boolean, repo: RepoRow, doer: UserRow, file: string, ref: string, inputs: Record<string, unknown>,
): Promise<RunRow> {
  if (!actionsActive(enabled, repo)) throw notFound(undefined, 'actions are disabled for this repository');
  const reader = git.open(repo);
  const fullRef = ref.startsWith('refs/') ? ref : (await reader.resolve(`refs/heads/${ref}`)) ? `refs/heads/${ref}` : `refs/tags/${ref}`;
  const sha = await reader.resolve(fullRef);
  if (!sha) throw invalid(`ref ${ref} names no branch or tag`);
  const workflow = (await readWorkflows(reader, sha)).find((w) => workflowId(w.path) === file);
  if (!workflow) throw notFound(undefined, `workflow ${file} not found`);
  if (workflow.error) throw invalid(`workflow ${file} cannot be parsed: ${workflow.error}`);
  if (!isDispatchable(workflow)) throw invalid(`workflow ${file} has no workflow_dispatch trigger`);
  const declared = (workflow.on.get('workflow_dispatch')?.inputs ?? {}) as Record<string, { default?: unknown } | null>;
  const unknownInput = Object.keys(inputs).find((name) => !Object.hasOwn(declared, name));
  if (unknownInput) throw invalid(`workflow ${file} declares no input ${unknownInput}`);
  const values: Record<string, string> = {};
  for (const [name, spec] of Object.entries(declared)) {
    const given = inputs[name] ?? spec?.default;
    if (given !== undefined && given !== null) values[name] = String(given);
  }
  const run = await createRun(tx, repo.id, workflow, {
    event: 'workflow_dispatch', ref: fullRef, commitSha: sha, userId: doer.id, title: workflow.name,
    payload: { inputs: values, ref: fullRef, workflow: workflow.path },
  });
  if (!run) throw new Error('a dispatched run has no trigger to conflict with');
  return run;
}
