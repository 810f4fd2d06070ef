import { isUtf8 } from 'node:buffer';
import type { NextFunction, Request, Response } from 'express';
import { badRequest } from '../../db/errors.js';

/** Gitea's request shapes nest a few levels; anything much deeper is refused before validation walks it. */
export const maxBodyDepth = 20;

/** For express.json's `verify`: a body that is not UTF-8 is refused instead of decoded with replacement characters. */
export function assertUtf8(_req: Request, _res: Response, body: Buffer): void {
  if (!isUtf8(body)) throw badRequest('request body is not valid UTF-8');
}

/** Refuses a parsed JSON body nested deeper than maxBodyDepth, walking it without recursion. */
export function refuseDeepBodies(req: Request, _res: Response, next: NextFunction): void {
  const pending: Array<[unknown, number]> = [[req.body, 1]];
  while (pending.length > 0) {
    const [value, depth] = pending.pop()!;
    if (!value || typeof value !== 'object') continue;
    if (depth > maxBodyDepth) {
      next(badRequest(`request body nests deeper than ${maxBodyDepth} levels`));
      return;
    }
    for (const item of Object.values(value)) if (item && typeof item === 'object') pending.push([item, depth + 1]);
  }
  next();
}

/** `//api/v1/version` is `/api/v1/version`: clients configured with a trailing slash on the base URL send such paths. */
export function mergeRepeatedSlashes(req: Request, _res: Response, next: NextFunction): void {
  const query = req.url.indexOf('?');
  const path = query === -1 ? req.url : req.url.slice(0, query);
  if (path.includes('//')) req.url = path.replace(/\/{2,}/g, '/') + (query === -1 ? '' : req.url.slice(query));
  next();
}
