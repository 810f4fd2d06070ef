import type { Queryable, Tx } from '../../data-source.js';
import { invalid, notFound, preconditionFailed } from '../../errors.js';
import { drawEventIdsWithJobsSql, emit, reserveEvents, type ReservedEvents } from '../../events/emit.js';
import type { GitStore } from '../../git/store.js';
import type { LabelRow } from '../orgs/labels.js';
import type { RepoRow } from '../repos/repo-row.js';
import type { UserRow } from '../users/user-row.js';
import { recordAssignee } from './issue-assignees.js';
import { addTimelineComment, issueFacts } from './issue-facts.js';
import { recountLabels, winnersOfScopes } from './issue-labels.js';
import { commentType, type IssueRow } from './issue-row.js';
import { recountMilestones } from './milestones.js';
import { recordMentions } from './mentions.js';

export const maxTitleLength = 255;

// ---- reads -------------------------------------------------------------------------------------------

/** The issue (or pull request) with this index in the repository: 404 when there is none. */
export async function getIssueByIndex(db: Queryable, repoId: number, index: number): Promise<IssueRow> {
  const [row] = await db.query<IssueRow>('SELECT * FROM issue WHERE repo_id = $1 AND index = $2', [repoId, index]);
  if (!row) throw notFound(`issue does not exist [repo_id: ${repoId}, index: ${index}]`);
  return row;
}

export async function findIssueById(db: Queryable, id: number): Promise<IssueRow | null> {
  const [row] = await db.query<IssueRow>('SELECT * FROM issue WHERE id = $1', [id]);
  return row ?? null;
}

/** Issues by id, in one query. */
export async function issuesByIds(db: Queryable, ids: ReadonlyArray<number | null>): Promise<Map<number, IssueRow>> {
  const wanted = [...new Set(ids.filter((id): id is number => id !== null))];
  if (wanted.length === 0) return new Map();
  const rows = await db.query<IssueRow>('SELECT * FROM issue WHERE id = ANY($1::bigint[])', [wanted]);
  return new Map(rows.map((row) => [row.id, row]));
}

/** The issue's row locked for a change, as it is now. */
export async function lockIssue(tx: Tx, issue: IssueRow): Promise<IssueRow> {
  const [row] = await tx.query<IssueRow>('SELECT * FROM issue WHERE id = $1 FOR UPDATE', [issue.id]);
  if (!row) throw notFound();
  return row;
}

// ---- creation ----------------------------------------------------------------------------------------

export function assertTitle(title: string): void {
  if (!title.trim()) throw invalid('[Title]: Required');
  if ([...title].length > maxTitleLength) throw invalid(`[Title]: MaxSize must be ${maxTitleLength}`);
}

/** What creating an issue takes, resolved: labels, milestone and assignees are rows the caller checked. */
export interface NewIssue {
  title: string;
  body?: string;
  ref?: string;
  deadline?: Date | null;
  milestoneId?: number | null;
  labels?: LabelRow[];
  assignees?: UserRow[];
  isPull?: boolean;
}

/** Adjusts the repository's open/closed counters of issues or pull requests. */
async function adjustRepoCounters(tx: Tx, repoId: number, isPull: boolean, total: number, closed: number): Promise<void> {
  const [all, done] = isPull ? ['num_pulls', 'num_closed_pulls'] : ['num_issues', 'num_closed_issues'];
  await tx.query(`UPDATE repository SET ${all} = ${all} + $2, ${done} = ${done} + $3 WHERE id = $1`, [repoId, total, closed]);
}

/**
 * Gives a new issue the next index of its repository's issues and pull requests, counts it on the repository and
 * writes its events, in one statement. The counter row stays locked until the creating transaction ends, so
 * concurrent creations queue and a rolled-back one gives its index back: gap-free. Creations take it last, and their
 * commits release it before their flush to disk (a crash loses the later creations with the earlier: the WAL is
 * flushed in order), so the queue moves one statement and a commit at a time.
 */
async function numberIssue(tx: Tx, draft: IssueRow, events: ReservedEvents): Promise<IssueRow> {
  const commitSetting = tx.releaseLocksBeforeFlush();
  const total = draft.is_pull ? 'num_pulls' : 'num_issues';
  const [issue] = await tx.query<IssueRow>(
    `WITH next AS (
       INSERT INTO issue_index (repo_id, max_index) VALUES ($1, 1)
       ON CONFLICT (repo_id) DO UPDATE SET max_index = issue_index.max_index + 1 RETURNING max_index
     ), counted AS (
       UPDATE repository SET ${total} = ${total} + 1 WHERE id = $1
     ), events AS (
       ${events.insert('$3', 'index', '(SELECT max_index FROM next)')}
     )
     UPDATE issue SET index = next.max_index FROM next, (SELECT ${commitSetting}) AS commit_setting WHERE issue.id = $2 RETURNING issue.*`,
    [draft.repo_id, draft.id, events.rows],
  );
  events.check('index', issue.index);
  return issue;
}

/**
 * Creates an issue with its labels, milestone and assignees in the caller's transaction (spec rule 5), with
 * the next index of the repository; users `@mentioned` in the body are recorded. The row is written first under
 * a provisional index of its own (minus its id, never seen outside the transaction), its relations next, and
 * numbered last, together with its events, which name the index.
 */
export async function createIssue(tx: Tx, repo: RepoRow, doer: UserRow, input: NewIssue): Promise<IssueRow> {
  assertTitle(input.title);
  const assigneeIds = [...new Set((input.assignees ?? []).map((user) => user.id))];
  // the poster watches what they post (Gitea's CreateOrUpdateIssueWatch on creation), and the ids of the events
  // (opened, then one per assignee) are drawn with their notify jobs, in the same statement
  const [{ event_ids: eventIds, ...draft }] = await tx.query<IssueRow & { event_ids: string[] }>(
    `WITH draft AS (
       INSERT INTO issue (id, repo_id, index, poster_id, title, content, ref, deadline, milestone_id, is_pull)
       SELECT id, $1, -id, $2, $3, $4, $5, $6, $7, $8 FROM nextval('issue_id_seq') AS id RETURNING *
     ), watch AS (
       INSERT INTO issue_watch (issue_id, user_id, is_watching) SELECT id, $2, true FROM draft
     ), ${drawEventIdsWithJobsSql(tx, '$9::int')}
     SELECT *, ARRAY(SELECT id FROM drawn ORDER BY id) AS event_ids FROM draft`,
    [
      repo.id, doer.id, input.title, input.body ?? '', input.ref ?? '', input.deadline ?? null, input.milestoneId ?? null,
      input.isPull ?? false, 1 + assigneeIds.length,
    ],
  );
  const labels = winnersOfScopes(input.labels ?? []);
  if (labels.length) {
    const ids = labels.map((label) => label.id);
    await tx.query('INSERT INTO issue_label (issue_id, label_id) SELECT $1, unnest($2::bigint[])', [draft.id, ids]);
    for (const labelId of ids) await addTimelineComment(tx, draft, doer, { type: commentType.label, label_id: labelId, content: '1' });
    await recountLabels(tx, ids);
  }
  if (draft.milestone_id) {
    await addTimelineComment(tx, draft, doer, { type: commentType.milestone, old_milestone_id: 0, milestone_id: draft.milestone_id });
    await recountMilestones(tx, [draft.milestone_id]);
  }
  await recordMentions(tx, draft, draft.content);
  for (const assigneeId of assigneeIds) await recordAssignee(tx, draft, doer, assigneeId, false);
  const facts = issueFacts(draft);
  const events = reserveEvents(tx, [
    { kind: draft.is_pull ? 'pull_request.opened' : 'issue.opened', repoId: repo.id, doerId: doer.id, payload: facts },
    ...assigneeIds.map((assigneeId) => ({ kind: 'issue.assigned' as const, repoId: repo.id, doerId: doer.id, payload: { ...facts, assignee_id: assigneeId } })),
  ], eventIds.map(Number));
  return numberIssue(tx, draft, events);
}

// ---- changes -----------------------------------------------------------------------------------------

/**
 * Closes or reopens (Gitea's ChangeStatus): closing with open dependencies is a 412. Counters of the
 * repository, the milestone and the labels follow; `commitId` names the commit that caused it.
 */
export async function setIssueClosed(
  tx: Tx, repo: RepoRow, issue: IssueRow, doer: UserRow, closed: boolean,
  cause: { commitId?: string; merged?: boolean; lockedByCaller?: boolean } = {},
): Promise<IssueRow> {
  // `lockedByCaller`: `issue` is the current row and the caller holds its lock (a merge locks pull request and issue at once)
  const before = cause.lockedByCaller ? issue : await lockIssue(tx, issue);
  if (before.is_closed === closed) return before;
  // one statement: no closing past an open dependency, the change, the repository's closed count when it changed,
  // and the labels whose counts follow it
  const done = before.is_pull ? 'num_closed_pulls' : 'num_closed_issues';
  const [changed] = await tx.query<IssueRow & { label_ids: number[] }>(
    `WITH changed AS (
       UPDATE issue SET is_closed = $2, closed_at = CASE WHEN $2 THEN now() END, updated = now()
       WHERE id = $1 AND NOT ($2 AND EXISTS (
         SELECT 1 FROM issue_dependency d JOIN issue i ON i.id = d.dependency_id WHERE d.issue_id = $1 AND NOT i.is_closed))
       RETURNING *
     ), counted AS (
       UPDATE repository SET ${done} = ${done} + $4 WHERE id = $3 AND EXISTS (SELECT 1 FROM changed)
     )
     SELECT *, ARRAY(SELECT label_id FROM issue_label WHERE issue_id = $1) AS label_ids FROM changed`,
    [before.id, closed, repo.id, closed ? 1 : -1],
  );
  if (!changed) throw preconditionFailed('cannot close this issue because it still has open dependencies');
  const { label_ids: labelIds, ...row } = changed;
  await recountMilestones(tx, [row.milestone_id]);
  await recountLabels(tx, labelIds);
  if (cause.merged) {
    // a merge closes its pull request with a merge_pull entry; the merge's own event stands for the close
    await addTimelineComment(tx, row, doer, { type: commentType.merge_pull, commit_sha: cause.commitId ?? '' });
    return row;
  }
  await addTimelineComment(tx, row, doer, { type: closed ? commentType.close : commentType.reopen, commit_sha: cause.commitId ?? '' });
  const payload = cause.commitId ? { ...issueFacts(row), commit_id: cause.commitId } : issueFacts(row);
  await emit(tx, { kind: closed ? 'issue.closed' : 'issue.reopened', repoId: repo.id, doerId: doer.id, payload });
  return row;
}

/** Moves the issue to another milestone or out of one (`null`), with its timeline entry and event. */
export async function setIssueMilestone(tx: Tx, repo: RepoRow, issue: IssueRow, doer: UserRow, milestoneId: number | null): Promise<IssueRow> {
  const before = await lockIssue(tx, issue);
  if (before.milestone_id === milestoneId) return before;
  const [row] = await tx.query<IssueRow>('UPDATE issue SET milestone_id = $2, updated = now() WHERE id = $1 RETURNING *', [before.id, milestoneId]);
  await recountMilestones(tx, [before.milestone_id, milestoneId]);
  await addTimelineComment(tx, row, doer, { type: commentType.milestone, old_milestone_id: before.milestone_id ?? 0, milestone_id: milestoneId ?? 0 });
  if (milestoneId) {
    await emit(tx, {
      kind: 'issue.milestoned', repoId: repo.id, doerId: doer.id,
      payload: { ...issueFacts(row), milestone_id: milestoneId, previous: { milestone_id: before.milestone_id } },
    });
  } else if (before.milestone_id) {
    await emit(tx, { kind: 'issue.demilestoned', repoId: repo.id, doerId: doer.id, payload: { ...issueFacts(row), milestone_id: before.milestone_id } });
  }
  return row;
}

const dateOnly = (date: Date | null): string => (date ? date.toISOString().slice(0, 10) : '');

/** Sets or removes (`null`) the due date, with Gitea's added/modified/removed_deadline entry. */
export async function setIssueDeadline(tx: Tx, repo: RepoRow, issue: IssueRow, doer: UserRow, deadline: Date | null): Promise<IssueRow> {
  const before = await lockIssue(tx, issue);
  if ((before.deadline?.getTime() ?? null) === (deadline?.getTime() ?? null)) return before;
  const [row] = await tx.query<IssueRow>('UPDATE issue SET deadline = $2, updated = now() WHERE id = $1 RETURNING *', [before.id, deadline]);
  const [type, content] = !before.deadline
    ? [commentType.added_deadline, dateOnly(deadline)]
    : !deadline
      ? [commentType.removed_deadline, dateOnly(before.deadline)]
      : [commentType.modified_deadline, `${dateOnly(deadline)}|${dateOnly(before.deadline)}`];
  await addTimelineComment(tx, row, doer, { type, content });
  await emit(tx, {
    kind: 'issue.edited', repoId: repo.id, doerId: doer.id,
    payload: { ...issueFacts(row), previous: { due_date: before.deadline ? before.deadline.toISOString() : null } },
  });
  return row;
}

/** Title, body and ref (the columns an edit may write besides the relations): each change recorded. */
export async function editIssueText(
  tx: Tx, repo: RepoRow, issue: IssueRow, doer: UserRow, edit: { title?: string; body?: string; ref?: string },
): Promise<IssueRow> {
  const before = await lockIssue(tx, issue);
  if (edit.title !== undefined) assertTitle(edit.title);
  const title = edit.title ?? before.title;
  const body = edit.body ?? before.content;
  const ref = edit.ref ?? before.ref;
  if (title === before.title && body === before.content && ref === before.ref) return before;
  const [row] = await tx.query<IssueRow>(
    'UPDATE issue SET title = $2, content = $3, ref = $4, updated = now() WHERE id = $1 RETURNING *',
    [before.id, title, body, ref],
  );
  // one event per changed field, in Gitea's order (its EditIssue changes the title, then the content, then the ref)
  const edited = (previous: { title: string } | { body: string } | { ref: string }) =>
    emit(tx, { kind: 'issue.edited', repoId: repo.id, doerId: doer.id, payload: { ...issueFacts(row), previous } });
  if (title !== before.title) {
    await addTimelineComment(tx, row, doer, { type: commentType.change_title, old_title: before.title, new_title: title });
    await edited({ title: before.title });
  }
  if (body !== before.content) {
    await recordMentions(tx, row, body);
    await edited({ body: before.content });
  }
  if (ref !== before.ref) {
    await addTimelineComment(tx, row, doer, { type: commentType.change_issue_ref, old_ref: before.ref, new_ref: ref });
    await edited({ ref: before.ref });
  }
  return row;
}

/**
 * Deletes the issue with its comments, labels and assignees; counters follow. A pull request's refs
 * (`refs/pull/N/...`) are removed from its git repository once the deletion is committed.
 */
export async function deleteIssue(tx: Tx, ctx: { git: GitStore }, repo: RepoRow, issue: IssueRow, doer: UserRow): Promise<void> {
  const before = await lockIssue(tx, issue);
  if (before.is_pull) {
    tx.afterCommit(async () => {
      const git = ctx.git.open(repo);
      for (const ref of await git.listRefNames([`refs/pull/${before.index}`])) await git.deleteRef(ref);
    });
  }
  const labelIds = (await tx.query<{ label_id: number }>('SELECT label_id FROM issue_label WHERE issue_id = $1', [before.id])).map((r) => r.label_id);
  await tx.query('DELETE FROM issue WHERE id = $1', [before.id]);
  await adjustRepoCounters(tx, repo.id, before.is_pull, -1, before.is_closed ? -1 : 0);
  await recountMilestones(tx, [before.milestone_id]);
  await recountLabels(tx, labelIds);
  await emit(tx, { kind: 'issue.deleted', repoId: repo.id, doerId: doer.id, payload: { ...issueFacts(before), title: before.title } });
}
