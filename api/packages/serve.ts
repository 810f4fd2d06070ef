import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';
import type { BlobStore } from '../../db/blob-store.js';
import type { PackageFileView } from '../../db/models/packages/packages.js';

export interface ServeOptions {
  contentType?: string;
  /** Headers only: a HEAD request. */
  headOnly?: boolean;
  attachment?: boolean;
}

/** A package file's bytes streamed from the blob store, with its size, type and modification time. */
export async function serveFile(res: Response, blobs: BlobStore, file: PackageFileView, options: ServeOptions = {}): Promise<void> {
  res.status(200).set({
    'Content-Length': String(file.blob.size),
    'Content-Type': options.contentType ?? 'application/octet-stream',
    'Last-Modified': new Date(file.created).toUTCString(),
    ETag: `"${file.blob.hash_sha256}"`,
    'X-Content-Type-Options': 'nosniff',
  });
  if (options.attachment !== false) res.set('Content-Disposition', `attachment; filename="${file.name.replace(/["\\]/g, '_')}"`);
  if (options.headOnly) {
    res.end();
    return;
  }
  const content = await blobs.get(file.blob.blob_key);
  await pipeline(content, res);
}
