import { Router, type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import { forbidden, invalid, unauthorized } from '../../db/errors.js';
import { scopeAllows } from '../../db/scopes.js';
import type { Caller } from '../auth/caller.js';
import type { Deps } from '../deps.js';
import { paginationQuery } from './pagination.js';
import type { Guards, RouteDefinition } from './route.js';

/** `{param}` → `:param`, so the declaration keeps Gitea's spelling. */
export const expressPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');

/** Builds the router for a set of declarations: guards, validation, the handler, then the reply. */
export function mountRoutes(routes: RouteDefinition[], deps: Deps): Router {
  const router = Router();
  for (const definition of routes) {
    const query = definition.paginated
      ? (definition.query ?? z.object({})).extend(paginationQuery)
      : definition.query;
    router[definition.method](expressPath(definition.path), async (req: Request, res: Response, next: NextFunction) => {
      try {
        const caller = res.locals.caller as Caller;
        checkGuards(definition, caller);
        const reply = await definition.handle({
          body: definition.body ? parse(definition.body, req.body ?? {}) : undefined,
          query: query ? parse(query, req.query) : {},
          params: req.params as Record<string, string>,
          caller,
          deps,
          req,
          res,
        });
        if (reply.headers) res.set(reply.headers);
        if (reply.body === undefined) res.status(reply.status).end();
        else res.status(reply.status).json(reply.body);
      } catch (error) {
        next(error);
      }
    });
  }
  return router;
}

/** Gitea's order: token scope, then reqToken, then reqBasicOrRevProxyAuth, then reqSiteAdmin. */
function checkGuards(guards: Guards, caller: Caller): void {
  const level = guards.scope;
  if (level && (caller.method === 'token' || caller.method === 'query') && !scopeAllows(caller.scope, level)) {
    throw forbidden(`token does not have at least one of required scope(s): [${level}]`);
  }
  if ((guards.signedIn || guards.admin || guards.basicOnly) && !caller.user) throw unauthorized('token is required');
  if (guards.basicOnly && caller.method !== 'basic' && caller.method !== 'proxy') throw unauthorized('auth required');
  if (guards.admin && !caller.user?.is_admin) throw forbidden('user should be the site admin');
}

function parse<T>(schema: z.ZodType<T>, input: unknown): T {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue.path.length ? issue.path.join('.') : 'body';
  throw invalid(`[${field}]: ${issue.message}`);
}

