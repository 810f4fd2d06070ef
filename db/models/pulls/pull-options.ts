import type { Queryable, Tx } from '../../data-source.js';
import { notFound } from '../../errors.js';
import type { GitStore } from '../../git/store.js';
import { accessModeOf } from '../access.js';
import { resolveAssignees } from '../issues/issue-assignees.js';
import { resolveLabels } from '../issues/issue-labels.js';
import type { IssueRow } from '../issues/issue-row.js';
import { resolveMilestone } from '../issues/milestones.js';
import { accessModes, type RepoRow } from '../repos/repo-row.js';
import { findRepo, findRepoById } from '../repos/repos.js';
import type { UserRow } from '../users/user-row.js';
import type { PullRow } from './pull-row.js';
import { createPull, type PullHead } from './pulls.js';

/** CreatePullRequestOption, with dates parsed. */
export interface CreatePullOption {
  head: string;
  base: string;
  title: string;
  body?: string;
  assignee?: string;
  assignees?: string[];
  milestone?: number;
  labels?: number[];
  due_date?: Date;
}

/**
 * Gitea's parseCompareInfo for `head`: `branch` (this repository), `owner:branch` (this repository when the
 * owner is its owner, else that owner's fork of it, or its parent when this repository is that owner's fork),
 * or `owner/repo:branch`. The caller must be able to read the head's code; anything unknown is a 404.
 */
export async function resolveHead(db: Queryable, base: RepoRow, doer: UserRow | null, head: string): Promise<PullHead> {
  const colon = head.indexOf(':');
  if (colon === -1) return { repo: base, branch: head };
  const who = head.slice(0, colon);
  const branch = head.slice(colon + 1);
  let repo: RepoRow | null = null;
  if (who.includes('/')) {
    const [owner, name] = who.split('/', 2);
    repo = await findRepo(db, owner, name);
  } else if (who.toLowerCase() === base.owner_name.toLowerCase()) {
    repo = base;
  } else {
    [repo] = await db.query<RepoRow>(
      `SELECT r.* FROM repository r JOIN "user" u ON u.id = r.owner_id WHERE r.fork_id = $1 AND u.lower_name = lower($2)`, [base.id, who],
    );
    if (!repo && base.fork_id) {
      const parent = await findRepoById(db, base.fork_id);
      if (parent && parent.owner_name.toLowerCase() === who.toLowerCase()) repo = parent;
    }
  }
  const related = repo && (repo.id === base.id || repo.fork_id === base.id || base.fork_id === repo.id
    || (repo.fork_id !== null && repo.fork_id === base.fork_id));
  if (!repo || !related || (await accessModeOf(db, doer, repo, 'repo.code')) < accessModes.read) {
    throw notFound(`The user ${who} does not have a fork of ${base.owner_name}/${base.name} and no branch named ${branch}`);
  }
  return { repo, branch };
}

/**
 * Gitea's CreatePullRequest: head and base resolved, labels, milestone and assignees checked (unknown ones are a
 * 422) before anything is written, then the issue and the pull request made together.
 */
export async function openPull(tx: Tx, ctx: { git: GitStore }, base: RepoRow, doer: UserRow, option: CreatePullOption): Promise<{ issue: IssueRow; pull: PullRow }> {
  const head = await resolveHead(tx, base, doer, option.head);
  const labels = await resolveLabels(tx, base, option.labels ?? []);
  const milestone = option.milestone ? await resolveMilestone(tx, base.id, option.milestone) : null;
  const assignees = await resolveAssignees(tx, base, true, option.assignee, option.assignees);
  return createPull(tx, ctx, base, doer, {
    head, baseBranch: option.base, title: option.title, body: option.body, deadline: option.due_date ?? null,
    milestoneId: milestone?.id ?? null, labels, assignees,
  });
}
