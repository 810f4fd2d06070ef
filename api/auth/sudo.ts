import type { NextFunction, Request, Response } from 'express';
import { forbidden, notFound } from '../../db/errors.js';
import { findUserByName } from '../../db/models/users/users.js';
import type { Deps } from '../deps.js';
import { isLookupName } from '../http/path-params.js';
import type { Caller } from './caller.js';

/**
 * Gitea's `sudo` query parameter and `Sudo` header: an administrator acts as the named user (with the
 * scopes of the credentials they sent); anyone else is refused.
 */
export function sudo(deps: Deps) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    try {
      const fromQuery = typeof req.query.sudo === 'string' ? req.query.sudo : undefined;
      const target = (fromQuery ?? req.get('sudo') ?? '').trim();
      if (target) {
        const caller = res.locals.caller as Caller;
        if (!caller.user?.is_admin) throw forbidden('Only administrators allowed to sudo.');
        const user = isLookupName(target) ? await findUserByName(deps.db, target) : null;
        if (!user) throw notFound(`user ${target} does not exist`);
        res.locals.caller = { ...caller, user } satisfies Caller;
      }
      next();
    } catch (error) {
      next(error);
    }
  };
}
