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
    log.error({ err: error, ...requestPlace(req, res) }, 'unhandled error');
    res.status(500).json({ message: 'internal server error', url: docs });
  };
}

/** A path longer than this (fuzzers send 200 KB) is logged cut. */
const maxLoggedPath = 2048;

/**
 * Where a request went, for the log: its method, its path as the client sent it (the query string left out, as it may
 * carry a token) and the route that answered it: an API route's declared path (`/api/v1/orgs/{org}`), another
 * route's pattern, or `(unmatched)`.
 */
export function requestPlace(req: Request, res: Response): { method: string; path: string; route: string } {
  const query = req.originalUrl.indexOf('?');
  const sent = query === -1 ? req.originalUrl : req.originalUrl.slice(0, query);
  const path = sent.length > maxLoggedPath ? `${sent.slice(0, maxLoggedPath)}…` : sent;
  const declared = res.locals.declaredPath as string | undefined;
  const route = declared ?? (req.route ? `${req.baseUrl}${req.route.path as string}` : '(unmatched)');
  return { method: req.method, path, route };
}

export function apiNotFound(_req: Request, _res: Response, next: NextFunction): void {
  next(notFound());
}
