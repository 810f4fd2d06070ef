import type { Tx } from '../../data-source.js';
import { conflict, forbidden, invalid, notFound, preconditionFailed } from '../../errors.js';
import { emit } from '../../events/emit.js';
import type { GitStore } from '../../git/store.js';
import { isValidRefName } from '../../git/refs.js';
import { addTimelineComment, issueFacts } from '../issues/issue-facts.js';
import { resolveLabels, replaceIssueLabels } from '../issues/issue-labels.js';
import { editIssue, type EditIssueOption } from '../issues/issue-options.js';
import { lockIssue } from '../issues/issues.js';
import { commentType, type IssueRow } from '../issues/issue-row.js';
import type { RepoRow } from '../repos/repo-row.js';
import type { UserRow } from '../users/user-row.js';
import type { PullRow } from './pull-row.js';
import { findUnmergedPull, lockPull, refreshPull } from './pulls.js';

/** EditPullRequestOption, with dates parsed. */
export interface EditPullOption extends Omit<EditIssueOption, 'ref'> {
  base?: string;
  labels?: number[];
  allow_maintainer_edit?: boolean;
}

/**
 * Gitea's ChangeTargetBranch: the new base must exist and differ from the head, no other open pull request may
 * join the same branches (409), a merged pull request keeps its base (409), a closed one too (422). The timeline
 * records the change, mergeability is tested against the new base, and `pull_request.edited` says what it was.
 */
async function changeBase(tx: Tx, git: GitStore, repo: RepoRow, pull: PullRow, issue: IssueRow, doer: UserRow, base: string): Promise<PullRow> {
  if (pull.has_merged) throw conflict('pull request has been merged');
  if (issue.is_closed) throw invalid('pull request is closed');
  if (!isValidRefName(`refs/heads/${base}`) || !(await git.open(repo).branchHead(base))) throw notFound(`new base branch does not exist [name: ${base}]`);
  if (pull.head_repo_id === repo.id && pull.head_branch === base) throw invalid(`branches are equal [head: ${pull.head_branch}, base: ${base}]`);
  const existing = await findUnmergedPull(tx, pull.head_repo_id ?? 0, pull.head_branch, repo.id, base);
  if (existing) throw conflict(`pull request already exists for these targets [id: ${existing.id}, issue_id: ${existing.issue_id}]`);
  const [row] = await tx.query<PullRow>('UPDATE pull_request SET base_branch = $2, updated = now() WHERE id = $1 RETURNING *', [pull.id, base]);
  await addTimelineComment(tx, issue, doer, { type: commentType.change_target_branch, old_ref: pull.base_branch, new_ref: base });
  await emit(tx, { kind: 'pull_request.edited', repoId: repo.id, doerId: doer.id, payload: { ...issueFacts(issue), previous: { base_branch: pull.base_branch } } });
  return (await refreshPull(tx, git, row)).pull;
}

/**
 * Gitea's EditPullRequest: the poster or a writer edits title and body; writers the due date, assignees (an empty
 * list removes them all), milestone, labels (an empty list removes them all), the base and the state; only the
 * poster sets allow_maintainer_edit. A merged pull request cannot change state (412). Checked before the first write.
 */
export async function editPull(
  tx: Tx, ctx: { git: GitStore }, repo: RepoRow, pull: PullRow, issue: IssueRow, doer: UserRow, option: EditPullOption, canWrite: boolean,
): Promise<{ pull: PullRow; issue: IssueRow }> {
  let row = await lockPull(tx, pull);
  let issueRow = await lockIssue(tx, issue);
  if (option.state !== undefined && row.has_merged) throw preconditionFailed('cannot change state of this pull request, it was already merged');
  if (option.allow_maintainer_edit !== undefined && doer.id !== issueRow.poster_id) throw forbidden('only the poster may change allow_maintainer_edit');
  const labels = canWrite && option.labels !== undefined ? await resolveLabels(tx, repo, option.labels) : undefined;
  const baseChange = canWrite && option.base && option.base !== row.base_branch ? option.base : undefined;
  const milestone = option.milestone ? option.milestone : undefined;
  // the state goes last, after a possible new base
  issueRow = await editIssue(tx, repo, issueRow, doer, { ...option, milestone, state: undefined }, canWrite);
  if (labels) await replaceIssueLabels(tx, repo, issueRow, doer, labels);
  if (baseChange) row = await changeBase(tx, ctx.git, repo, row, issueRow, doer, baseChange);
  if (option.allow_maintainer_edit !== undefined && option.allow_maintainer_edit !== row.allow_maintainer_edit) {
    [row] = await tx.query<PullRow>('UPDATE pull_request SET allow_maintainer_edit = $2, updated = now() WHERE id = $1 RETURNING *', [row.id, option.allow_maintainer_edit]);
  }
  if (option.state !== undefined && canWrite) issueRow = await editIssue(tx, repo, issueRow, doer, { state: option.state }, canWrite);
  return { pull: row, issue: await lockIssue(tx, issueRow) };
}
