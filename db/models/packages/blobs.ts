import { randomBytes } from 'node:crypto';
import { finished, Transform, type Readable } from 'node:stream';
import type { BlobDigests } from '../../blob-digests.js';
import type { BlobStore } from '../../blob-store.js';
import type { Queryable, Tx } from '../../data-source.js';
import { tooLarge } from '../../errors.js';
import type { Services } from '../../services.js';

/** A row of `package_blob`: one content, stored once under `blob_key` whatever the number of files naming it. */
export interface PackageBlobRow {
  id: number;
  blob_key: string;
  size: number;
  hash_md5: string;
  hash_sha1: string;
  hash_sha256: string;
  hash_sha512: string;
  created: Date;
}

/** Bytes streamed into the blob store under a temporary key, with their size and hashes, waiting for their transaction. */
export interface PackageUpload extends BlobDigests {
  key: string;
  size: number;
}

/** How many bytes an upload may have before it is refused with a 413 carrying `message`; a negative count: no limit. */
export interface UploadLimit {
  bytes: number;
  message: string;
}

export const noUploadLimit: UploadLimit = { bytes: -1, message: '' };

/** What streaming an upload in takes: the store, the digest threads and the garbage counter. */
export type UploadServices = Pick<Services, 'blobs' | 'digests' | 'garbage'>;

export function toBlobRow(raw: Record<string, unknown>): PackageBlobRow {
  return { ...(raw as unknown as PackageBlobRow), id: Number(raw.id), size: Number(raw.size) };
}

/**
 * Streams a package file into the blob store under a fresh temporary key, hashed on the digest threads as it goes
 * by. Past `limit` the upload stops with its 413 and nothing stays. It runs before the transaction that records the
 * file, so a slow upload holds no database connection; `withUpload` guarantees the temporary key goes away.
 * On a refusal `content` is left as it is, unread and open: when it is a request body, the registry reads the rest
 * past while the client gets its answer (cutting the connection would lose the answer).
 */
export async function storePackageUpload(services: UploadServices, content: Readable, limit: UploadLimit = noUploadLimit): Promise<PackageUpload> {
  const key = `upload-${randomBytes(12).toString('hex')}`;
  const digesting = services.digests.start();
  let size = 0;
  const measure = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (limit.bytes >= 0 && size > limit.bytes) {
        done(tooLarge(limit.message));
        return;
      }
      services.garbage.passed(chunk.length);
      digesting.update(chunk, (error) => done(error, chunk));
    },
  });
  // the store may start reading a moment later: the first failure (the limit, a dropped client) is kept for it
  let failure: unknown;
  measure.on('error', (error) => {
    failure ??= error;
  });
  // a pipe, not a pipeline: a failure unpipes `content` without destroying it
  content.pipe(measure);
  finished(content, { writable: false }, (error) => {
    if (error) measure.destroy(error);
  });
  try {
    await services.blobs.put(key, measure);
    return { key, size, ...(await digesting.finish()) };
  } catch (error) {
    digesting.abort();
    await services.blobs.delete(key);
    throw failure ?? error;
  }
}

/** Runs `work` (the transaction recording the upload), then removes the temporary key, moved into place or not. */
export async function withUpload<T>(blobs: BlobStore, upload: PackageUpload, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } finally {
    await blobs.delete(upload.key);
  }
}

/**
 * The blob row for an upload's content. New content is moved from its temporary key to its own key inside the
 * transaction (and removed if the transaction does not commit); content already stored is reused, so a
 * concurrent upload of the same bytes waits on the row and then shares it.
 */
export async function attachUpload(tx: Tx, blobs: BlobStore, upload: PackageUpload): Promise<PackageBlobRow> {
  const key = `${upload.sha256}.${randomBytes(4).toString('hex')}`;
  const [raw] = await tx.query<Record<string, unknown>>(
    `INSERT INTO package_blob (blob_key, size, hash_md5, hash_sha1, hash_sha256, hash_sha512) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (hash_sha256) DO UPDATE SET size = package_blob.size
     RETURNING *, (xmax = 0) AS inserted`,
    [key, upload.size, upload.md5, upload.sha1, upload.sha256, upload.sha512],
  );
  const { inserted, ...row } = raw;
  const blob = toBlobRow(row);
  if (inserted) {
    await blobs.move(upload.key, blob.blob_key);
    tx.onRollback(() => blobs.delete(blob.blob_key));
  }
  return blob;
}

/** Removes the blobs among `ids` that no file names any more: rows now, bytes once that is durable. */
export async function releaseBlobs(tx: Tx, blobs: BlobStore, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  const gone = await tx.query<{ blob_key: string }>(
    `DELETE FROM package_blob b WHERE b.id = ANY($1::bigint[]) AND NOT EXISTS (SELECT 1 FROM package_file f WHERE f.blob_id = b.id)
     RETURNING blob_key`,
    [ids],
  );
  tx.afterCommit(async () => {
    for (const { blob_key } of gone) await blobs.delete(blob_key);
  });
}

export async function getBlob(db: Queryable, id: number): Promise<PackageBlobRow> {
  const [raw] = await db.query<Record<string, unknown>>('SELECT * FROM package_blob WHERE id = $1', [id]);
  return toBlobRow(raw);
}
