import { pipeline } from 'node:stream/promises';
import { Router, type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import { forbidden, invalid, notFound, unauthorized } from '../../db/errors.js';
import { scopeAllows } from '../../db/scopes.js';
import type { Caller } from '../auth/caller.js';
import { loadGuardedOrg, loadGuardedTeam } from '../context/org.js';
import { loadGuardedRepo } from '../context/repo.js';
import type { Deps } from '../deps.js';
import { parseIds, validIds } from './ids.js';
import { checkPathParams } from './path-params.js';
import { linkBaseOf, pageOf, paged, paginationQuery } from './pagination.js';
import type { Guards, Reply, RouteDefinition } from './route.js';

/** `{param}` → `:param` (and the `rest` parameter → `*param`), so the declaration keeps Gitea's spelling. */
export const expressPath = (path: string, rest?: string): string =>
  path.replace(/\{(\w+)\}/g, (_, name: string) => (name === rest ? `*${name}` : `:${name}`));

/** Express hands a `*param` over as its segments; handlers get the path back. */
const paramsOf = (params: Record<string, string | string[]>): Record<string, string> =>
  Object.fromEntries(Object.entries(params).map(([name, value]) => [name, Array.isArray(value) ? value.join('/') : value]));

/**
 * Mounts a set of declarations. Express tries a router's routes one after the other (a regular expression each), so
 * instead of one router of every route, a request goes to a router of just the routes that can match a path of its
 * first segment and length, in the same order (each such router built when first asked for).
 */
export function mountRoutes(routes: RouteDefinition[], deps: Deps): (req: Request, res: Response, next: NextFunction) => void {
  const mounted = bySpecificity(routes).map((definition) => ({ definition, handler: routeHandler(definition, deps) }));
  const firstLiterals = new Set(mounted.map(({ definition }) => segmentsOf(definition.path)[0]).filter((first) => !first.startsWith('{')));
  const longest = Math.max(0, ...mounted.map(({ definition }) => segmentsOf(definition.path).length));
  const routers = new Map<string, Router>();
  const routerFor = (path: string): Router => {
    const segments = segmentsOf(path);
    const lowered = segments[0]?.toLowerCase() ?? '';
    // a first segment no route spells, or a length past every route's, meets the same routes as any other such
    const first = firstLiterals.has(lowered) ? lowered : '{}';
    const length = Math.min(segments.length, longest + 1);
    const key = `${first}/${length}`;
    let router = routers.get(key);
    if (!router) {
      router = Router();
      for (const { definition, handler } of mounted) {
        if (mayMatch(definition, first, length)) router[definition.method](expressPath(definition.path, definition.rest), handler);
      }
      routers.set(key, router);
    }
    return router;
  };
  return (req, res, next) => {
    const query = req.url.indexOf('?');
    routerFor(query === -1 ? req.url : req.url.slice(0, query))(req, res, next);
  };
}

/** A path's segments, a trailing slash aside (Express matches routes with or without one). */
function segmentsOf(path: string): string[] {
  const segments = path.split('/').slice(1);
  if (segments.length > 1 && segments.at(-1) === '') segments.pop();
  return segments;
}

/** Whether a path of `length` segments whose first is `first` (a literal, or '{}' for none a route spells) may match. */
function mayMatch({ path, rest }: RouteDefinition, first: string, length: number): boolean {
  const segments = segmentsOf(path);
  if (!segments[0].startsWith('{') && segments[0].toLowerCase() !== first) return false;
  return rest && segments.at(-1) === `{${rest}}` ? length >= segments.length : length === segments.length;
}

/** One declaration as an Express handler: guards, validation, the handler, then the reply. */
function routeHandler(definition: RouteDefinition, deps: Deps): (req: Request, res: Response, next: NextFunction) => Promise<void> {
  const query = definition.paginated
    ? (definition.query ?? z.object({})).extend(paginationQuery)
    : definition.query;
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    res.locals.declaredPath = `${req.baseUrl}${definition.path}`;
    try {
      const caller = res.locals.caller as Caller;
      checkGuards(definition, caller);
      const params = paramsOf(req.params);
      checkPathParams(params);
      // the query is checked now (a preload needs the page) but refused only after the guards, in Gitea's order
      const queryCheck = query ? check(query, req.query, 'query') : { data: {} };
      const page = definition.paginated && 'data' in queryCheck ? pageOf(queryCheck.data as { page?: number; limit?: number }) : undefined;
      // ids that name nothing are refused after the guards; a preload is made only with valid ones
      const preloadIds = definition.preload ? validIds(definition.ids ?? [], params) : null;
      const preload = definition.preload && preloadIds && 'data' in queryCheck
        ? definition.preload({ page, query: queryCheck.data, ids: preloadIds })
        : undefined;
      const [repo, org] = await Promise.all([
        definition.repo && loadGuardedRepo(deps, caller, params, definition.repo, preload),
        definition.org && loadGuardedOrg(deps, caller, params.org, definition.org),
      ]);
      const ids = parseIds(definition.ids ?? [], params);
      const team = definition.team && (await loadGuardedTeam(deps, caller, ids.id, definition.team));
      if ('error' in queryCheck) throw queryCheck.error;
      const parsedQuery = queryCheck.data;
      const url = linkBaseOf(req.originalUrl, deps.config.rootUrl);
      const reply = await definition.handle({
        body: definition.body ? parse(definition.body, withoutNulls(req.body ?? {}), 'body') : undefined,
        query: parsedQuery,
        params,
        ids,
        doer: caller.user,
        repo,
        org,
        team,
        page,
        preloaded: repo?.preloaded,
        list: (items, total, of) => paged(items, total, of ?? page ?? pageOf({}), url),
        url,
        caller,
        deps,
        req,
        res,
      });
      await sendReply(res, reply);
    } catch (error) {
      next(error);
    }
  };
}

/** Sends what a handler answered: bytes or a stream as they are, otherwise JSON (or nothing). */
export async function sendReply(res: Response, reply: Reply): Promise<void> {
  if (reply.headers) res.set(reply.headers);
  if (reply.content instanceof Buffer || typeof reply.content === 'string') res.status(reply.status).send(reply.content);
  else if (reply.content) await pipeline(reply.content, res.status(reply.status));
  else if (reply.body === undefined) res.status(reply.status).end();
  // Gitea answers marked notifications with 205 and a body; Express would empty it, so it is written directly
  else if (reply.status === 205) res.status(205).type('application/json').end(JSON.stringify(reply.body));
  else res.status(reply.status).json(reply.body);
}

/** Gitea's order: token scope, then reqToken, then reqBasicOrRevProxyAuth, then reqSiteAdmin. */
function checkGuards(guards: Guards, caller: Caller): void {
  if (guards.scope && (caller.method === 'token' || caller.method === 'query')) {
    for (const level of typeof guards.scope === 'string' ? [guards.scope] : guards.scope) {
      if (!scopeAllows(caller.scope, level)) throw forbidden(`token does not have at least one of required scope(s): [${level}]`);
    }
  }
  if ((guards.signedIn || guards.admin || guards.basicOnly) && !caller.user) throw unauthorized('token is required');
  if (guards.basicOnly && caller.method !== 'basic' && caller.method !== 'proxy') throw unauthorized('auth required');
  if (guards.admin && !caller.user?.is_admin) throw forbidden('user should be the site admin');
}

/**
 * Express tries routes in registration order, so among paths of one shape a literal segment must come before a
 * parameter at the same place (`/users/search` before `/users/{username}`), and a parameter before a `rest` one that
 * may span several segments, whatever order the areas declare them in.
 */
function bySpecificity(routes: RouteDefinition[]): RouteDefinition[] {
  const shape = ({ path, rest }: RouteDefinition): number[] =>
    path.split('/').map((segment) => (segment === `{${rest}}` ? 2 : segment.startsWith('{') ? 1 : 0));
  const compare = (a: number[], b: number[]): number => {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
    return a.length - b.length;
  };
  return [...routes].sort((a, b) => compare(shape(a), shape(b)));
}

/** Gitea's decoder reads a JSON `null` as "not given": such fields are dropped before validation (bodies are at most 20 levels deep). */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== null).map(([key, item]) => [key, withoutNulls(item)]));
}

/** PostgreSQL text cannot hold NUL; such input is refused before it reaches a query. */
function hasNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (Array.isArray(value)) return value.some(hasNul);
  if (value && typeof value === 'object') return Object.entries(value).some(([key, item]) => hasNul(key) || hasNul(item));
  return false;
}

function parse<T>(schema: z.ZodType<T>, input: unknown, where: 'body' | 'query'): T {
  const checked = check(schema, input, where);
  if ('error' in checked) throw checked.error;
  return checked.data;
}

/** parse's answer without throwing: the data, or the error to throw. */
function check<T>(schema: z.ZodType<T>, input: unknown, where: 'body' | 'query'): { data: T } | { error: Error } {
  if (hasNul(input)) return { error: invalid(`[${where}]: text must not contain NUL characters`) };
  const result = schema.safeParse(input);
  if (result.success) return { data: result.data };
  const issue = result.error.issues[0];
  const field = issue.path.length ? issue.path.join('.') : where;
  return { error: invalid(`[${field}]: ${issue.message}`) };
}

