import { pipeline } from 'node:stream/promises';
import { Router, type NextFunction, type Request, type Response } from 'express';
import { notFound } from '../../../db/errors.js';
import { countAttachmentDownload, findAttachmentByUuid, type AttachmentRow } from '../../../db/models/releases/attachments.js';
import { getRelease } from '../../../db/models/releases/releases.js';
import { accessModeOf, unitModeOf } from '../../../db/models/access.js';
import { accessModes } from '../../../db/models/repos/repo-row.js';
import { findRepoById } from '../../../db/models/repos/repos.js';
import { authenticate } from '../../auth/authenticate.js';
import type { Caller } from '../../auth/caller.js';
import type { Deps } from '../../deps.js';

/**
 * Whether the caller may fetch the file: whoever may read its repository (and, for a release asset, its
 * releases; a draft's assets only to writers). A file not yet linked to a repository is its uploader's alone.
 * Every refusal is the same 404 as a missing file.
 */
async function assertCanDownload(deps: Deps, caller: Caller, attachment: AttachmentRow): Promise<void> {
  if (attachment.repo_id === null) {
    if (!caller.user || caller.user.id !== attachment.uploader_id) throw notFound();
    return;
  }
  const repo = await findRepoById(deps.db, attachment.repo_id);
  if (!repo) throw notFound();
  const mode = await accessModeOf(deps.db, caller.user, repo);
  if (mode < accessModes.read) throw notFound();
  if (attachment.release_id !== null) {
    const releasesMode = await unitModeOf(deps.db, caller.user, repo, 'repo.releases', mode);
    if (releasesMode < accessModes.read) throw notFound();
    const release = await getRelease(deps.db, repo.id, attachment.release_id, true);
    if (release.is_draft && releasesMode < accessModes.write) throw notFound();
  }
}

/** GET /attachments/{uuid}: the file itself, streamed from the blob store, each GET counted as a download. */
export function attachmentDownloads(deps: Deps): Router {
  const router = Router();
  router.get('/attachments/:uuid', authenticate(deps), async (req: Request, res: Response, next: NextFunction) => {
    try {
      const attachment = await findAttachmentByUuid(deps.db, String(req.params.uuid));
      if (!attachment) throw notFound();
      await assertCanDownload(deps, res.locals.caller as Caller, attachment);
      const content = await deps.blobs.get(attachment.uuid);
      if (req.method === 'GET') {
        await countAttachmentDownload(deps.db, attachment).catch((error: unknown) => {
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
    } catch (error) {
      if (res.headersSent) res.destroy();
      else next(error);
    }
  });
  return router;
}
