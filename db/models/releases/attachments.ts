import { randomUUID } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import type { BlobStore } from '../../blob-store.js';
import type { Queryable, Tx } from '../../data-source.js';
import { badRequest, notFound, tooLarge } from '../../errors.js';
import { checkAttachmentType, sniffLength } from '../attachment-types.js';

/** A row of the `attachment` table: a file uploaded to a release, an issue or a comment. */
export interface AttachmentRow {
  id: number;
  uuid: string;
  repo_id: number | null;
  issue_id: number | null;
  release_id: number | null;
  comment_id: number | null;
  uploader_id: number | null;
  name: string;
  download_count: number;
  size: number;
  created: Date;
}

/** Bytes already in the blob store, waiting for their row. */
export interface StoredBlob {
  uuid: string;
  size: number;
  /** The first bytes, from which the content type is sniffed. */
  head: Buffer;
}

/** What an upload must respect: its size in bytes, and the file types an attachment may have (Gitea's ALLOWED_TYPES). */
export interface UploadRules {
  maxBytes?: number;
  allowedTypes?: string;
}

export interface NewAttachment {
  repoId: number;
  uploaderId: number;
  name: string;
  releaseId?: number | null;
  issueId?: number | null;
  commentId?: number | null;
}

export const maxAttachmentNameLength = 255;

/** The file name an uploaded file is kept under: no directory part, not empty. */
export function attachmentName(raw: string | undefined): string {
  const name = (raw ?? '').split(/[/\\]/).pop()!.trim();
  if (!name) throw badRequest('Could not determine name of attachment.');
  if (name.length > maxAttachmentNameLength) throw badRequest(`attachment name must be at most ${maxAttachmentNameLength} characters`);
  return name;
}

/**
 * Streams an upload into the blob store under a fresh uuid, keeping its first bytes. It runs before the transaction
 * that records it, so a slow upload never holds a database connection; `createAttachment` then ties the blob to that
 * transaction. Past `maxBytes` the rest of the stream is read and dropped (the client is answered, not cut off),
 * the partial file removed and a 413 thrown.
 */
export async function storeAttachmentBlob(blobs: BlobStore, content: Readable, rules: UploadRules = {}): Promise<StoredBlob> {
  const uuid = randomUUID();
  const chunks: Buffer[] = [];
  let seen = 0;
  let kept = 0;
  const limit = rules.maxBytes ?? Infinity;
  const measure = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (kept < sniffLength) {
        chunks.push(chunk.subarray(0, sniffLength - kept));
        kept += Math.min(chunk.length, sniffLength - kept);
      }
      done(null, seen > limit ? undefined : chunk);
    },
  });
  content.on('error', (error) => measure.destroy(error));
  const size = await blobs.put(uuid, content.pipe(measure));
  if (seen > limit) {
    await blobs.delete(uuid);
    throw tooLarge(`attachment exceeds limit ${limit}`);
  }
  return { uuid, size, head: Buffer.concat(chunks) };
}

/**
 * Records a stored blob, when its name or content is of an allowed type (422 otherwise); if the transaction does not
 * commit, the blob goes too.
 */
export async function createAttachment(
  tx: Tx, blobs: BlobStore, input: NewAttachment, blob: StoredBlob, rules: UploadRules = {},
): Promise<AttachmentRow> {
  tx.onRollback(() => blobs.delete(blob.uuid));
  if (rules.allowedTypes !== undefined) checkAttachmentType(attachmentName(input.name), blob.head, rules.allowedTypes);
  try {
    const [row] = await tx.query<AttachmentRow>(
      `INSERT INTO attachment (uuid, repo_id, release_id, issue_id, comment_id, uploader_id, name, size)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
      [blob.uuid, input.repoId, input.releaseId ?? null, input.issueId ?? null, input.commentId ?? null, input.uploaderId, attachmentName(input.name), blob.size],
    );
    return row;
  } catch (error) {
    // foreign_key_violation: the release (or repository) went away while the file was uploading
    if ((error as { code?: string }).code === '23503') throw notFound('the attachment target no longer exists');
    throw error;
  }
}

export async function findAttachmentByUuid(db: Queryable, uuid: string): Promise<AttachmentRow | null> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(uuid)) return null;
  const [row] = await db.query<AttachmentRow>('SELECT * FROM attachment WHERE uuid = $1', [uuid]);
  return row ?? null;
}

/** The attachments of several releases at once, each list ordered by name as Gitea shows them. */
export async function listReleaseAttachments(db: Queryable, releaseIds: number[]): Promise<Map<number, AttachmentRow[]>> {
  const byRelease = new Map<number, AttachmentRow[]>(releaseIds.map((id) => [id, []]));
  if (releaseIds.length === 0) return byRelease;
  const rows = await db.query<AttachmentRow>(
    'SELECT * FROM attachment WHERE release_id = ANY($1::bigint[]) ORDER BY release_id, name, id',
    [releaseIds],
  );
  for (const row of rows) byRelease.get(row.release_id!)?.push(row);
  return byRelease;
}

/** One attachment of one release; an attachment of another release is as missing as a deleted one. */
export async function getReleaseAttachment(db: Queryable, releaseId: number, id: number): Promise<AttachmentRow> {
  const [row] = await db.query<AttachmentRow>('SELECT * FROM attachment WHERE id = $1 AND release_id = $2', [id, releaseId]);
  if (!row) throw notFound(`attachment ${id} does not exist`);
  return row;
}

/** A new name for an attachment; with `allowedTypes`, the new name must keep an allowed extension (Gitea's UpdateAttachment). */
export async function renameAttachment(tx: Tx, attachment: AttachmentRow, name: string, rules: UploadRules = {}): Promise<AttachmentRow> {
  if (rules.allowedTypes !== undefined) checkAttachmentType(attachmentName(name), null, rules.allowedTypes);
  const [row] = await tx.query<AttachmentRow>('UPDATE attachment SET name = $2 WHERE id = $1 RETURNING *', [attachment.id, attachmentName(name)]);
  if (!row) throw notFound();
  return row;
}

/** Removes the row now and the file once the removal is durable. */
export async function deleteAttachment(tx: Tx, blobs: BlobStore, attachment: AttachmentRow): Promise<void> {
  const deleted = await tx.query<{ uuid: string }>('DELETE FROM attachment WHERE id = $1 RETURNING uuid', [attachment.id]);
  if (deleted.length === 0) throw notFound();
  tx.afterCommit(() => blobs.delete(attachment.uuid));
}

/** Removes every attachment of a release, files included once the transaction commits. */
export async function deleteReleaseAttachments(tx: Tx, blobs: BlobStore, releaseId: number): Promise<number> {
  const deleted = await tx.query<{ uuid: string }>('DELETE FROM attachment WHERE release_id = $1 RETURNING uuid', [releaseId]);
  tx.afterCommit(async () => {
    for (const { uuid } of deleted) await blobs.delete(uuid);
  });
  return deleted.length;
}

/** Counts one download; a plain increment, so concurrent downloads never lose a count. */
export async function countAttachmentDownload(db: Queryable, attachment: AttachmentRow): Promise<void> {
  await db.query('UPDATE attachment SET download_count = download_count + 1 WHERE id = $1', [attachment.id]);
}
