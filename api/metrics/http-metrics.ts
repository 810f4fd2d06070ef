import type { NextFunction, Request, Response } from 'express';
import { recordHttpRequest } from '../../db/process/metrics.js';

/**
 * The pattern that answered a request, never the URL sent: an API route's declared path (`/api/v1/repos/{owner}/{repo}`),
 * else the Express route's pattern (`/:owner/:repo/git-upload-pack`; behind a router mounted at a path with parameters,
 * the pattern inside it after `…`), else `(unmatched)`.
 */
export function routePattern(req: Request, res: Response): string {
  const declared = res.locals.declaredPath as string | undefined;
  if (declared) return declared;
  const pattern = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof pattern !== 'string') return '(unmatched)';
  return req.baseUrl ? `…${pattern}` : pattern;
}

/** Counts every answered request by method, route pattern and status, with its duration. */
export function httpMetrics(req: Request, res: Response, next: NextFunction): void {
  const started = performance.now();
  res.once('finish', () => recordHttpRequest(req.method, routePattern(req, res), res.statusCode, (performance.now() - started) / 1000));
  next();
}
