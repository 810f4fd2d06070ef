import { pipeline } from 'node:stream/promises';
import { Router, type NextFunction, type Request, type Response } from 'express';
import { notFound } from '../../db/errors.js';
import { findDownloadableAttachment } from '../../db/models/attachment-downloads.js';
import { countAttachmentDownload, type AttachmentRow } from '../../db/models/releases/attachments.js';
import { authenticate } from '../auth/authenticate.js';
import { redirectToStore } from '../http/direct-download.js';
import type { Caller } from '../auth/caller.js';
import type { Deps } from '../deps.js';
import { requireScope } from './web-repo.js';

/** An attachment's file, streamed from the blob store as a download (or a redirect to it, with SERVE_DIRECT); each GET (not HEAD) counts. */
export async function serveAttachment(deps: Deps, attachment: AttachmentRow, req: Request, res: Response): Promise<void> {
  const count = (): Promise<unknown> => countAttachmentDownload(deps.db, attachment);
  if (req.method === 'GET' && (await redirectToStore(res, deps.blobs, attachment.uuid, { filename: attachment.name }, count))) return;
  const content = await deps.blobs.get(attachment.uuid);
  if (req.method === 'GET') {
    await count().catch((error: unknown) => {
      content.destroy();
      throw error;
    });
  }
  res.attachment(attachment.name);
  res.set({
    'Content-Type': 'application/octet-stream',
    'Content-Length': String(attachment.size),
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'private, no-cache',
  });
  await pipeline(content, res);
}

/**
 * GET /attachments/{uuid}: the file behind every `browser_download_url`, for whoever may read what it is attached to
 * (see findDownloadableAttachment); every refusal is the same 404 as a missing file.
 */
export function attachmentDownloads(deps: Deps): Router {
  const router = Router();
  router.get('/attachments/:uuid', authenticate(deps), async (req: Request, res: Response, next: NextFunction) => {
    try {
      const caller = res.locals.caller as Caller;
      const found = await findDownloadableAttachment(deps.db, caller.user, String(req.params.uuid));
      if (!found) throw notFound();
      if (found.scope) requireScope(caller, found.scope);
      await serveAttachment(deps, found.attachment, req, res);
    } catch (error) {
      if (res.headersSent) res.destroy();
      else next(error);
    }
  });
  return router;
}
