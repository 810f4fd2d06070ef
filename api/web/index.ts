import { Router, type NextFunction, type Request, type Response } from 'express';
import { HttpError } from '../../db/errors.js';
import type { Deps } from '../deps.js';
import { attachmentDownloads } from './attachments.js';
import { repoDownloads } from './repo-downloads.js';

/**
 * The web routes outside /api/v1 that API answers link to. They come after git's smart HTTP routes, whose paths
 * (`/{owner}/{repo}/info/refs`, `/git-upload-pack`, `/git-receive-pack`) none of them matches.
 */
export function webRoutes(deps: Deps): Router {
  const router = Router();
  router.use(repoDownloads(deps));
  router.use(attachmentDownloads(deps));
  router.use(webErrors);
  return router;
}

/** Web routes answer errors as Gitea's web pages do, by status, with a short text instead of an HTML page. */
function webErrors(error: unknown, _req: Request, res: Response, next: NextFunction): void {
  if (!(error instanceof HttpError)) {
    next(error);
    return;
  }
  const text = error.status === 404 ? 'Not found' : error.message;
  res.status(error.status).type('text/plain').send(`${text}\n`);
}
