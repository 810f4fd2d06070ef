import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';
import type { PackageFileView } from '../../db/models/packages/packages.js';
import type { Services } from '../../db/services.js';
import { redirectToStore } from '../http/direct-download.js';

/** What serving a blob takes: the store and the garbage counter its chunks go to. */
export type BlobServices = Pick<Services, 'blobs' | 'garbage'>;

export interface ServeOptions {
  contentType?: string;
  /** Headers only: a HEAD request. */
  headOnly?: boolean;
  attachment?: boolean;
}

/** A package file's bytes streamed from the blob store, with its size, type and modification time; with SERVE_DIRECT a redirect to them. */
export async function serveFile(res: Response, services: BlobServices, file: PackageFileView, options: ServeOptions = {}): Promise<void> {
  const download = { filename: file.name, contentType: options.contentType, inline: options.attachment === false };
  if (!options.headOnly && (await redirectToStore(res, services.blobs, file.blob.blob_key, download))) return;
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
  await sendBlob(res, services, file.blob.blob_key);
}

/** A blob's bytes piped to the response, each chunk told to the garbage counter once it went by. */
export async function sendBlob(res: Response, services: BlobServices, key: string): Promise<void> {
  const content = await services.blobs.get(key);
  content.on('data', (chunk: Buffer) => services.garbage.passed(chunk.length));
  await pipeline(content, res);
}
