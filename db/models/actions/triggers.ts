import type { Queryable, Tx } from '../../data-source.js';
import type { EventKind } from '../../events/catalogue.js';
import type { GitStore } from '../../git/store.js';
import type { RepoRow } from '../repos/repo-row.js';
import type { UserRow } from '../users/user-row.js';
import { createRun, type RunRow } from './runs.js';
import { actionsActive, planFromDefaultBranch, removePlans } from './schedules.js';
import { invalid, notFound } from '../../errors.js';
import { isDispatchable, pullRequestMatches, pushMatches, readWorkflows, workflowId, type PullRequestFacts } from './workflows.js';

/** The bot user workflows act as (Gitea's `gitea-actions`); its name is reserved, and what it causes triggers nothing. */
export const actionsBotName = 'hearth-actions';

export function isActionsBot(user: Pick<UserRow, 'lower_name'> | null): boolean {
  return user?.lower_name === actionsBotName;
}

/** The domain events the actions area consumes (the notifier queues an `actions-trigger` job for each). */
export const actionsEventKinds: readonly EventKind[] = ['push', 'repository.default_branch_changed'];

const zeroSha = /^0+$/;

/** The files a push changed: those of the commits it added; null when git cannot tell (every path filter then passes). */
async function changedFiles(git: GitStore, repo: RepoRow, before: string, after: string): Promise<string[] | null> {
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
 * made anew from its workflows. Nothing for the bot's own pushes, deleted refs, or repositories without actions.
 */
export async function triggerPush(tx: Tx, git: GitStore, enabled: boolean, push: PushTrigger): Promise<RunRow[]> {
  if (isActionsBot(push.doer) || !actionsActive(enabled, push.repo) || zeroSha.test(push.after)) return [];
  const workflows = await readWorkflows(git.open(push.repo), push.after);
  if (push.ref === `refs/heads/${push.repo.default_branch}`) await planFromDefaultBranch(tx, git, push.repo, push.after, push.doer?.id ?? null);
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
  if (!actionsActive(enabled, repo)) return;
  const head = await git.open(repo).branchHead(repo.default_branch);
  if (head) await planFromDefaultBranch(tx, git, repo, head, doerId);
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

export interface PullRequestTrigger {
  eventId: number;
  repo: RepoRow;
  doer: UserRow | null;
  /** The pull request's head commit, whose workflows run. */
  headSha: string;
  headRef: string;
  facts: PullRequestFacts;
  payload: Record<string, unknown>;
}

/**
 * A pull request event (opened, synchronized, reopened, ...): a run for each workflow of the head commit whose
 * pull_request trigger matches. Hearth has no pull requests yet; their area calls this from its events.
 */
export async function triggerPullRequest(tx: Tx, git: GitStore, enabled: boolean, pull: PullRequestTrigger): Promise<RunRow[]> {
  if (isActionsBot(pull.doer) || !actionsActive(enabled, pull.repo)) return [];
  const runs: RunRow[] = [];
  for (const workflow of await readWorkflows(git.open(pull.repo), pull.headSha)) {
    if (workflow.error === null && !pullRequestMatches(workflow, pull.facts)) continue;
    const run = await createRun(tx, pull.repo.id, workflow, {
      event: 'pull_request', ref: pull.headRef, commitSha: pull.headSha, userId: pull.doer?.id ?? null, eventId: pull.eventId,
      title: await commitTitle(git, pull.repo, pull.headSha), payload: pull.payload,
    });
    if (run) runs.push(run);
  }
  return runs;
}

/** The bot user's row, when it has been made. */
export async function findActionsBot(db: Queryable): Promise<UserRow | null> {
  const [row] = await db.query<UserRow>('SELECT * FROM "user" WHERE lower_name = $1', [actionsBotName]);
  return row ? { ...row, id: Number(row.id) } : null;
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
