import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { HttpError, notFound } from '../../db/errors.js';

/** Gitea's error body: `message` and `url` (the API documentation), plus `errors` on a 404. */
export function errorHandler(log: Logger, rootUrl: string) {
  const docs = `${rootUrl}api/swagger`;
  return (error: unknown, req: Request, res: Response, _next: NextFunction): void => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (error instanceof HttpError) {
      res.status(error.status).json({ ...error.extra, message: error.message, url: docs });
      return;
    }
    const status = (error as { status?: number; type?: string }).status;
    if (status === 400 || status === 413 || status === 415) {
      // body-parser's own refusals: malformed JSON, too large, wrong charset
      res.status(status).json({ message: (error as Error).message, url: docs });
      return;
    }
    log.error({ err: error, method: req.method, path: req.path }, 'unhandled error');
    res.status(500).json({ message: 'internal server error', url: docs });
  };
}

export function apiNotFound(_req: Request, _res: Response, next: NextFunction): void {
  next(notFound());
}
