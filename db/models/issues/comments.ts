import type { Queryable, Tx } from '../../data-source.js';
import { forbidden, invalid, notFound } from '../../errors.js';
import { emit } from '../../events/emit.js';
import { selectPage, type PageWindow } from '../../sql.js';
import type { RepoRow } from '../repos/repo-row.js';
import type { UserRow } from '../users/user-row.js';
import { issueFacts } from './issue-facts.js';
import { commentType, reviveJsonRow, type CommentRow, type IssueRow } from './issue-row.js';
import { recordMentions } from './mentions.js';
import { autoSubscribe } from './subscriptions.js';

/** Comment types whose text can be edited (Gitea's comment, review and code comments). */
const editableTypes = new Set<number>([commentType.comment, commentType.review, commentType.code]);
export const isEditableComment = (comment: CommentRow): boolean => editableTypes.has(comment.type);

/** The comment with this id if it belongs to an issue of the repository, with that issue; 404 otherwise. */
export async function getRepoComment(db: Queryable, repoId: number, id: number): Promise<{ comment: CommentRow; issue: IssueRow }> {
  const [row] = await db.query<{ comment: CommentRow; issue: IssueRow }>(
    `SELECT to_jsonb(c) AS comment, to_jsonb(i) AS issue FROM comment c JOIN issue i ON i.id = c.issue_id WHERE c.id = $1 AND i.repo_id = $2`,
    [id, repoId],
  );
  if (!row) throw notFound(`comment does not exist [id: ${id}]`);
  return { comment: reviveJsonRow(row.comment), issue: reviveJsonRow(row.issue) };
}

export interface CommentWindow {
  since?: Date;
  before?: Date;
}

function windowConditions(window: CommentWindow, params: unknown[]): string[] {
  const conditions: string[] = [];
  if (window.since) conditions.push(`c.updated >= $${params.push(window.since)}`);
  if (window.before) conditions.push(`c.updated <= $${params.push(window.before)}`);
  return conditions;
}

/** An issue's plain comments, oldest first. */
export async function listIssueComments(db: Queryable, issueId: number, window: CommentWindow): Promise<CommentRow[]> {
  const params: unknown[] = [issueId, commentType.comment];
  const conditions = ['c.issue_id = $1', 'c.type = $2', ...windowConditions(window, params)];
  return db.query<CommentRow>(`SELECT c.* FROM comment c WHERE ${conditions.join(' AND ')} ORDER BY c.created, c.id`, params);
}

/** The plain comments of a repository's issues (those of `isPull` alone when given), oldest first. */
export async function listRepoComments(
  db: Queryable, repoId: number, window: CommentWindow & { isPull?: boolean }, page: PageWindow,
): Promise<{ rows: CommentRow[]; total: number }> {
  const params: unknown[] = [repoId, commentType.comment];
  const conditions = ['i.repo_id = $1', 'c.type = $2', ...windowConditions(window, params)];
  if (window.isPull !== undefined) conditions.push(`i.is_pull = $${params.push(window.isPull)}`);
  return selectPage<CommentRow>(db, {
    select: 'c.*', from: `comment c JOIN issue i ON i.id = c.issue_id WHERE ${conditions.join(' AND ')}`, params, orderBy: 'c.created, c.id', page,
  });
}

/** The whole timeline of an issue (comments and events), oldest first. */
export async function listTimeline(db: Queryable, issueId: number, window: CommentWindow, page: PageWindow): Promise<{ rows: CommentRow[]; total: number }> {
  const params: unknown[] = [issueId];
  const conditions = ['c.issue_id = $1', ...windowConditions(window, params)];
  return selectPage<CommentRow>(db, { select: 'c.*', from: `comment c WHERE ${conditions.join(' AND ')}`, params, orderBy: 'c.created, c.id', page });
}

function assertBody(body: string): void {
  if (!body.trim()) throw invalid('[Body]: Required');
}

/**
 * Gitea's CreateIssueComment: on a locked issue only writers and site administrators may comment. The issue's
 * comment count follows; mentioned users are recorded.
 */
export async function createComment(tx: Tx, repo: RepoRow, issue: IssueRow, doer: UserRow, body: string, canWrite: boolean): Promise<CommentRow> {
  assertBody(body);
  const [locked] = await tx.query<IssueRow>('SELECT * FROM issue WHERE id = $1 FOR UPDATE', [issue.id]);
  if (!locked) throw notFound();
  if (locked.is_locked && !canWrite && !doer.is_admin) throw forbidden('Commenting is disabled on a locked issue.');
  const [comment] = await tx.query<CommentRow>(
    'INSERT INTO comment (type, poster_id, issue_id, content) VALUES ($1, $2, $3, $4) RETURNING *',
    [commentType.comment, doer.id, issue.id, body],
  );
  await tx.query('UPDATE issue SET num_comments = num_comments + 1, updated = now() WHERE id = $1', [issue.id]);
  await recordMentions(tx, locked, body);
  await emit(tx, { kind: 'comment.created', repoId: repo.id, doerId: doer.id, payload: { ...issueFacts(locked), comment_id: comment.id } });
  await autoSubscribe(tx, issue.id, doer.id);
  return comment;
}

/** Only the poster and writers of the issue's unit may change a comment. */
export function assertMayChangeComment(comment: CommentRow, doer: UserRow, canWrite: boolean): void {
  if (comment.poster_id !== doer.id && !canWrite) throw forbidden('only the poster or a writer can change a comment');
}

export async function editComment(tx: Tx, repo: RepoRow, issue: IssueRow, comment: CommentRow, doer: UserRow, body: string): Promise<CommentRow> {
  assertBody(body);
  const [row] = await tx.query<CommentRow>('UPDATE comment SET content = $2, updated = now() WHERE id = $1 RETURNING *', [comment.id, body]);
  if (!row) throw notFound();
  if (row.content !== comment.content) {
    await recordMentions(tx, issue, body);
    await emit(tx, {
      kind: 'comment.edited', repoId: repo.id, doerId: doer.id,
      payload: { ...issueFacts(issue), comment_id: comment.id, previous: { body: comment.content } },
    });
  }
  return row;
}

export async function deleteComment(tx: Tx, repo: RepoRow, issue: IssueRow, comment: CommentRow, doer: UserRow): Promise<void> {
  const deleted = await tx.query('DELETE FROM comment WHERE id = $1 RETURNING id', [comment.id]);
  if (deleted.length === 0) throw notFound();
  if (comment.type === commentType.comment) await tx.query('UPDATE issue SET num_comments = num_comments - 1 WHERE id = $1', [issue.id]);
  await emit(tx, { kind: 'comment.deleted', repoId: repo.id, doerId: doer.id, payload: { ...issueFacts(issue), comment_id: comment.id, body: comment.content },
    snapshot: { comment },
  });
}
