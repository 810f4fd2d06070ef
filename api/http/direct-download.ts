import type { Response } from 'express';
import type { BlobStore, DirectDownload } from '../../db/blob-store.js';

/**
 * With `SERVE_DIRECT`, a download is a redirect to a presigned address of the object store (Gitea's 303), so the bytes
 * never pass through Hearth; answers false when the blob's store serves nothing directly.
 */
export async function redirectToStore(
  res: Response, blobs: BlobStore, key: string, download: DirectDownload, beforeRedirect?: () => Promise<unknown>,
): Promise<boolean> {
  const url = await blobs.presign?.(key, download);
  if (!url) return false;
  await beforeRedirect?.();
  res.redirect(303, url);
  return true;
}
