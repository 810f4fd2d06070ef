import type { Queryable, Tx } from '../../data-source.js';
import { invalid } from '../../errors.js';
import { emit } from '../../events/emit.js';
import type { LabelRow } from '../orgs/labels.js';
import type { RepoRow } from '../repos/repo-row.js';
import type { UserRow } from '../users/user-row.js';
import { commentType, type IssueRow } from './issue-row.js';
import { addTimelineComment, issueFacts } from './issue-facts.js';

/** Gitea's ExclusiveScope: the part of an exclusive label's name before its last `/`; '' when it has none. */
export function exclusiveScope(label: Pick<LabelRow, 'name' | 'exclusive'>): string {
  if (!label.exclusive) return '';
  const last = label.name.lastIndexOf('/');
  return last <= 0 || last === label.name.length - 1 ? '' : label.name.slice(0, last);
}

/**
 * Of labels set in one go, the ones that stay: for each exclusive scope only the last one named wins (and
 * duplicates go), the order of the request kept otherwise.
 */
export function winnersOfScopes(labels: LabelRow[]): LabelRow[] {
  const lastOfScope = new Map<string, number>();
  labels.forEach((label, i) => {
    const scope = exclusiveScope(label);
    if (scope) lastOfScope.set(scope, i);
  });
  const seen = new Set<number>();
  return labels.filter((label, i) => {
    const scope = exclusiveScope(label);
    if ((scope && lastOfScope.get(scope) !== i) || seen.has(label.id)) return false;
    seen.add(label.id);
    return true;
  });
}

/** The labels each issue carries, by issue id, sorted by name as Gitea lists them. */
export async function labelsOfIssues(db: Queryable, issueIds: number[]): Promise<Map<number, LabelRow[]>> {
  const byIssue = new Map<number, LabelRow[]>();
  if (issueIds.length === 0) return byIssue;
  const rows = await db.query<LabelRow & { issue_id: number }>(
    `SELECT il.issue_id, l.* FROM issue_label il JOIN label l ON l.id = il.label_id
     WHERE il.issue_id = ANY($1::bigint[]) ORDER BY l.name, l.id`,
    [issueIds],
  );
  for (const { issue_id, ...label } of rows) {
    const list = byIssue.get(issue_id) ?? [];
    list.push(label);
    byIssue.set(issue_id, list);
  }
  return byIssue;
}

/** Labels usable in the repository (its own and its organization's), in the order given; an unknown id is a 422. */
export async function resolveLabels(db: Queryable, repo: RepoRow, ids: number[]): Promise<LabelRow[]> {
  if (ids.length === 0) return [];
  const rows = await db.query<LabelRow>(
    'SELECT * FROM label WHERE id = ANY($1::bigint[]) AND (repo_id = $2 OR org_id = $3)',
    [ids, repo.id, repo.owner_id],
  );
  const byId = new Map(rows.map((row) => [Number(row.id), row]));
  const missing = ids.filter((id) => !byId.has(id));
  if (missing.length) throw invalid(`label does not exist [id: ${missing[0]}]`);
  return ids.map((id) => byId.get(id)!);
}

/** Labels by id or name as the issue-label routes accept them (Gitea's `labels` of IssueLabelsOption: numbers or names). */
export async function resolveLabelNamesOrIds(db: Queryable, repo: RepoRow, keys: Array<number | string>): Promise<LabelRow[]> {
  const names = keys.filter((key): key is string => typeof key === 'string');
  const byName = new Map<string, number>();
  if (names.length) {
    const rows = await db.query<{ id: number; name: string }>(
      'SELECT id, name FROM label WHERE name = ANY($1::text[]) AND (repo_id = $2 OR org_id = $3) ORDER BY id DESC',
      [names, repo.id, repo.owner_id],
    );
    for (const row of rows) byName.set(row.name, Number(row.id));
  }
  const ids = keys.map((key) => {
    if (typeof key === 'number') return key;
    const id = byName.get(key);
    if (id === undefined) throw invalid(`label does not exist [name: ${key}]`);
    return id;
  });
  return resolveLabels(db, repo, ids);
}

/** Recounts the issues of labels (Gitea's updateLabelCols), open and closed. */
export async function recountLabels(tx: Tx, labelIds: number[]): Promise<void> {
  if (labelIds.length === 0) return;
  await tx.query(
    `UPDATE label l SET
       num_issues = (SELECT count(*) FROM issue_label il WHERE il.label_id = l.id),
       num_closed_issues = (SELECT count(*) FROM issue_label il JOIN issue i ON i.id = il.issue_id WHERE il.label_id = l.id AND i.is_closed)
     WHERE l.id = ANY($1::bigint[])`,
    [labelIds],
  );
}

/**
 * Sets the issue's labels to `target` after `winnersOfScopes`: what is missing is added, what is not named is
 * removed, each change with its timeline entry and one event per direction.
 */
async function applyLabels(
  tx: Tx, repo: RepoRow, issue: IssueRow, doer: UserRow, current: LabelRow[], target: LabelRow[], cleared = false,
): Promise<void> {
  const targetIds = new Set(target.map((label) => Number(label.id)));
  const currentIds = new Set(current.map((label) => Number(label.id)));
  const removed = current.filter((label) => !targetIds.has(Number(label.id))).map((label) => Number(label.id));
  const added = target.filter((label) => !currentIds.has(Number(label.id))).map((label) => Number(label.id));
  if (removed.length) {
    await tx.query('DELETE FROM issue_label WHERE issue_id = $1 AND label_id = ANY($2::bigint[])', [issue.id, removed]);
    for (const labelId of removed) await addTimelineComment(tx, issue, doer, { type: commentType.label, label_id: labelId, content: '' });
    // removed beside added labels is one change to hooks (Gitea's one IssueChangeLabels): the labelled event tells it
    const flags = cleared ? { cleared } : added.length ? { with_added: true as const } : {};
    await emit(tx, { kind: 'issue.unlabelled', repoId: repo.id, doerId: doer.id, payload: { ...issueFacts(issue), label_ids: removed, ...flags } });
  }
  if (added.length) {
    await tx.query(
      'INSERT INTO issue_label (issue_id, label_id) SELECT $1, unnest($2::bigint[]) ON CONFLICT DO NOTHING',
      [issue.id, added],
    );
    for (const labelId of added) await addTimelineComment(tx, issue, doer, { type: commentType.label, label_id: labelId, content: '1' });
    await emit(tx, { kind: 'issue.labelled', repoId: repo.id, doerId: doer.id, payload: { ...issueFacts(issue), label_ids: added } });
  }
  await recountLabels(tx, [...removed, ...added]);
}

async function lockedLabels(tx: Tx, issue: IssueRow): Promise<LabelRow[]> {
  await tx.query('SELECT id FROM issue WHERE id = $1 FOR UPDATE', [issue.id]);
  return (await labelsOfIssues(tx, [issue.id])).get(issue.id) ?? [];
}

/**
 * Adds labels: a new exclusive label pushes out the issue's other label of its scope, and within the request
 * the last label of a scope wins (spec rule 4).
 */
export async function addIssueLabels(tx: Tx, repo: RepoRow, issue: IssueRow, doer: UserRow, labels: LabelRow[]): Promise<void> {
  const current = await lockedLabels(tx, issue);
  const adding = winnersOfScopes(labels);
  const scopes = new Set(adding.map(exclusiveScope).filter(Boolean));
  const kept = current.filter((label) => !scopes.has(exclusiveScope(label)) || adding.some((a) => Number(a.id) === Number(label.id)));
  await applyLabels(tx, repo, issue, doer, current, winnersOfScopes([...kept, ...adding]));
}

/** Replaces all labels with `labels` (the last of each exclusive scope wins). */
export async function replaceIssueLabels(tx: Tx, repo: RepoRow, issue: IssueRow, doer: UserRow, labels: LabelRow[]): Promise<void> {
  const current = await lockedLabels(tx, issue);
  await applyLabels(tx, repo, issue, doer, current, winnersOfScopes(labels));
}

/** Removes one label; removing a label the issue does not carry changes nothing. */
export async function removeIssueLabel(tx: Tx, repo: RepoRow, issue: IssueRow, doer: UserRow, label: LabelRow): Promise<void> {
  const current = await lockedLabels(tx, issue);
  await applyLabels(tx, repo, issue, doer, current, current.filter((l) => Number(l.id) !== Number(label.id)));
}

export async function clearIssueLabels(tx: Tx, repo: RepoRow, issue: IssueRow, doer: UserRow): Promise<void> {
  const current = await lockedLabels(tx, issue);
  await applyLabels(tx, repo, issue, doer, current, [], true);
}
