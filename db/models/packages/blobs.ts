import { createHash, randomBytes, type Hash } from 'node:crypto';
import { pipeline, Transform, type Readable, type TransformCallback } from 'node:stream';
import type { BlobStore } from '../../blob-store.js';
import type { Queryable, Tx } from '../../data-source.js';
import { tooLarge } from '../../errors.js';

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

export interface BlobHashes {
  md5: string;
  sha1: string;
  sha256: string;
  sha512: string;
}

/** Bytes streamed into the blob store under a temporary key, with their size and hashes, waiting for their transaction. */
export interface PackageUpload extends BlobHashes {
  key: string;
  size: number;
}

export function toBlobRow(raw: Record<string, unknown>): PackageBlobRow {
  return { ...(raw as unknown as PackageBlobRow), id: Number(raw.id), size: Number(raw.size) };
}

/** Counts and hashes the bytes going through, refusing with a 413 past `limit` (a negative limit: none). */
class Measure extends Transform {
  size = 0;
  private readonly hashes: Record<keyof BlobHashes, Hash> = {
    md5: createHash('md5'), sha1: createHash('sha1'), sha256: createHash('sha256'), sha512: createHash('sha512'),
  };

  constructor(private readonly limit: number, private readonly limitMessage: string) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.size += chunk.length;
    if (this.limit >= 0 && this.size > this.limit) {
      done(tooLarge(this.limitMessage));
      return;
    }
    for (const hash of Object.values(this.hashes)) hash.update(chunk);
    done(null, chunk);
  }

  digests(): BlobHashes {
    const hex = (hash: Hash): string => hash.digest('hex');
    return { md5: hex(this.hashes.md5), sha1: hex(this.hashes.sha1), sha256: hex(this.hashes.sha256), sha512: hex(this.hashes.sha512) };
  }
}

/**
 * Streams a package file into the blob store under a fresh temporary key, hashing it on the way; past `limit`
 * bytes the upload stops with a 413 and nothing stays. It runs before the transaction that records the file,
 * so a slow upload holds no database connection; `withUpload` guarantees the temporary key goes away.
 */
export async function storePackageUpload(blobs: BlobStore, content: Readable, limit = -1, limitMessage = 'maximum allowed package type size exceeded'): Promise<PackageUpload> {
  const key = `upload-${randomBytes(12).toString('hex')}`;
  const measure = new Measure(limit, limitMessage);
  // the store may start reading a moment later: the first failure (the limit, a dropped client) is kept for it
  let failure: unknown;
  measure.on('error', (error) => {
    failure ??= error;
  });
  pipeline(content, measure, () => undefined);
  try {
    await blobs.put(key, measure);
  } catch (error) {
    throw failure ?? error;
  }
  return { key, size: measure.size, ...measure.digests() };
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
