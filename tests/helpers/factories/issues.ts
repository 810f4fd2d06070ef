import { inTx } from '../../../db/data-source.js';
import { resolveAssignees } from '../../../db/models/issues/issue-assignees.js';
import { resolveLabels } from '../../../db/models/issues/issue-labels.js';
import type { IssueRow } from '../../../db/models/issues/issue-row.js';
import { createIssue, setIssueClosed } from '../../../db/models/issues/issues.js';
import type { RepoRow } from '../../../db/models/repos/repo-row.js';
import type { TestHearth } from '../hearth.js';
import { currentRepo, doerFor, userById, type Someone } from './current-rows.js';

export interface IssueOptions {
  /** `Issue 1`, `Issue 2`, … when not given. */
  title?: string;
  body?: string;
  ref?: string;
  /** Label ids of the repository or its organization. */
  labels?: number[];
  milestoneId?: number;
  /** Logins of assignable users. */
  assignees?: string[];
  deadline?: Date;
  closed?: boolean;
  /** A pull request's issue (the pull request area adds its row). */
  isPull?: boolean;
  /** The repository's owner (or an owner of its organization) when not given. */
  by?: Someone;
}

let unnamed = 0;

/** An issue of a repository, created as the API creates one (next index, labels, assignees, events). */
export async function issue(h: TestHearth, repo: RepoRow, options: IssueOptions = {}): Promise<IssueRow> {
  return inTx(h.deps, async (tx) => {
    const row = await currentRepo(tx, repo);
    const doer = await doerFor(tx, await userById(tx, row.owner_id), options.by);
    const made = await createIssue(tx, row, doer, {
      title: options.title ?? `Issue ${++unnamed}`, body: options.body, ref: options.ref, deadline: options.deadline ?? null,
      milestoneId: options.milestoneId ?? null, labels: await resolveLabels(tx, row, options.labels ?? []),
      assignees: await resolveAssignees(tx, row, options.isPull ?? false, undefined, options.assignees), isPull: options.isPull,
    });
    return options.closed ? setIssueClosed(tx, row, made, doer, true) : made;
  });
}
