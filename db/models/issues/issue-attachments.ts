import type { BlobStore } from '../../blob-store.js';
import type { Queryable, Tx } from '../../data-source.js';
import { notFound } from '../../errors.js';
import { emit } from '../../events/emit.js';
import { createAttachment, type AttachmentRow, type StoredBlob, type UploadRules } from '../releases/attachments.js';
import type { UserRow } from '../users/user-row.js';
import { issueFacts } from './issue-facts.js';
import type { CommentRow, IssueRow } from './issue-row.js';

/** The files attached to an issue itself (not to its comments), in upload order. */
export async function listIssueAttachments(db: Queryable, issue: IssueRow): Promise<AttachmentRow[]> {
  return db.query<AttachmentRow>('SELECT * FROM attachment WHERE issue_id = $1 AND comment_id IS NULL ORDER BY id', [issue.id]);
}

/** The files attached to a comment, in upload order. */
export async function listCommentAttachments(db: Queryable, comment: CommentRow): Promise<AttachmentRow[]> {
  return db.query<AttachmentRow>('SELECT * FROM attachment WHERE comment_id = $1 ORDER BY id', [comment.id]);
}

/** An attachment of the issue (or of one of its comments, as Gitea allows); any other one is a 404. */
export async function getIssueAttachment(db: Queryable, issue: IssueRow, id: number): Promise<AttachmentRow> {
  const [row] = await db.query<AttachmentRow>('SELECT * FROM attachment WHERE id = $1 AND repo_id = $2 AND issue_id = $3', [id, issue.repo_id, issue.id]);
  if (!row) throw notFound('no such attachment in issue');
  return row;
}

/** An attachment of the comment; any other one is a 404. */
export async function getCommentAttachment(db: Queryable, issue: IssueRow, comment: CommentRow, id: number): Promise<AttachmentRow> {
  const [row] = await db.query<AttachmentRow>('SELECT * FROM attachment WHERE id = $1 AND repo_id = $2 AND comment_id = $3', [id, issue.repo_id, comment.id]);
  if (!row) throw notFound('no such attachment in comment');
  return row;
}

/**
 * Records an uploaded file as an attachment of the issue, or of one of its comments. Like Gitea (which saves the
 * content again), the issue or comment counts as edited: `updated` moves and the edit event is emitted.
 */
export async function attachFile(
  tx: Tx, blobs: BlobStore, target: { issue: IssueRow; comment?: CommentRow }, doer: UserRow, upload: { name: string; blob: StoredBlob },
  rules: UploadRules,
): Promise<AttachmentRow> {
  const { issue, comment } = target;
  const attachment = await createAttachment(
    tx, blobs, { repoId: issue.repo_id, issueId: issue.id, commentId: comment?.id ?? null, uploaderId: doer.id, name: upload.name }, upload.blob, rules,
  );
  if (comment) {
    await tx.query('UPDATE comment SET updated = now() WHERE id = $1', [comment.id]);
    await emit(tx, {
      kind: 'comment.edited', repoId: issue.repo_id, doerId: doer.id,
      payload: { ...issueFacts(issue), comment_id: comment.id, previous: { body: comment.content } },
    });
  } else {
    await tx.query('UPDATE issue SET updated = now() WHERE id = $1', [issue.id]);
    await emit(tx, { kind: 'issue.edited', repoId: issue.repo_id, doerId: doer.id, payload: { ...issueFacts(issue), previous: { body: issue.content } } });
  }
  return attachment;
}

/**
 * Removes the files of every attachment of an issue (its comments' included) once the transaction that deletes the
 * issue commits; the rows go with the issue. Call it from that transaction, before the issue row is deleted.
 */
export async function removeIssueAttachmentFiles(tx: Tx, blobs: BlobStore, issueId: number): Promise<void> {
  const files = await tx.query<{ uuid: string }>('SELECT uuid FROM attachment WHERE issue_id = $1', [issueId]);
  tx.afterCommit(async () => {
    for (const { uuid } of files) await blobs.delete(uuid);
  });
}

/** The same for one comment's attachments, before the comment row is deleted. */
export async function removeCommentAttachmentFiles(tx: Tx, blobs: BlobStore, commentId: number): Promise<void> {
  const files = await tx.query<{ uuid: string }>('SELECT uuid FROM attachment WHERE comment_id = $1', [commentId]);
  tx.afterCommit(async () => {
    for (const { uuid } of files) await blobs.delete(uuid);
  });
}
