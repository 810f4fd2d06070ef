import type { Readable } from 'node:stream';
import type { Request, Response } from 'express';
import type { z } from 'zod';
import type { RepoPreload } from '../../db/models/access.js';
import type { OrgRow } from '../../db/models/orgs/orgs.js';
import type { TeamView } from '../../db/models/orgs/teams.js';
import type { UserRow } from '../../db/models/users/user-row.js';
import type { Scope } from '../../db/scopes.js';
import type { Caller } from '../auth/caller.js';
import type { OrgGuard, TeamGuard } from '../context/org.js';
import type { LoadedRepo, RepoGuard } from '../context/repo.js';
import type { Deps } from '../deps.js';
import type { JsonText, Page } from './pagination.js';

/** What a route asks of its caller before the handler runs, mirroring Gitea's middleware names. */
export interface Guards {
  /**
   * The token scope the route needs when the caller used a token (tokenRequiresScopes). Several: each is required, checked
   * in order, as Gitea's nested route groups check theirs (`/user/repos`: the `/user` group's, then the route's). `null`: none.
   */
  scope: Scope | readonly Scope[] | null;
  /** reqToken: a caller must be known, else 401 "token is required". */
  signedIn?: boolean;
  /** reqSiteAdmin. */
  admin?: boolean;
  /** reqBasicOrRevProxyAuth: token management is never done with a token. */
  basicOnly?: boolean;
  /** The repository of `{owner}/{repo}` (or `/repositories/{id}`), loaded and checked: see RepoGuard. */
  repo?: RepoGuard;
  /** The organization of `{org}`, loaded and checked: see OrgGuard. */
  org?: OrgGuard;
  /** The team of `/teams/{id}`, loaded and checked: see TeamGuard. */
  team?: TeamGuard;
}

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Bytes sent as they are (a raw file, an archive, a diff) instead of a JSON body; a stream is piped. */
  content?: Buffer | string | Readable;
}

/** What a handler receives: the request as the declaration's guards and schemas loaded and checked it. */
export interface Context<B = unknown, Q = unknown, I extends string = string, Signed extends boolean = boolean, R = LoadedRepo | undefined, O = OrgRow | undefined, T = TeamView | undefined, P = Page | undefined, L = unknown> {
  body: B;
  query: Q;
  /** Path parameters as strings; the declared `ids` come parsed in `ids`. */
  params: Record<string, string>;
  ids: Record<I, number>;
  /** The caller's user; never null behind `signedIn`, `admin` or `basicOnly`. */
  doer: Signed extends true ? UserRow : UserRow | null;
  repo: R;
  org: O;
  team: T;
  /** `page` and `limit` of a `paginated` route, with Gitea's defaults and cap applied. */
  page: P;
  /** What the declaration's `preload` read with the repository; undefined when it could not run (the repository found by a redirect). */
  preloaded: L | undefined;
  /** A page of a list: the items with `X-Total-Count` and a `Link` header; `of` when the route pages other than asked. */
  list(items: unknown[] | JsonText, total: number, of?: Page): Reply;
  /** The absolute address of this request (for Link headers). */
  url: string;
  caller: Caller;
  deps: Deps;
  req: Request;
  res: Response;
}

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;
type Paging = { page?: number; limit?: number };

/** What every declaration names: Gitea's path and operation, and the answers it documents. */
interface Operation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete' | 'head';
  /** Gitea's path, with `{param}` placeholders, relative to /api/v1. */
  path: string;
  /** The last path parameter when it may span several segments (Gitea's `*`: a file path, a ref, a tag name). */
  rest?: string;
  operationId: string;
  summary: string;
  tag: string;
  deprecated?: boolean;
  responses: Record<number, string>;
}

/**
 * A route as it is declared: Gitea's path and operation, its guards, zod schemas for body and query (the handler's
 * types are inferred from them), path parameters that are numeric ids, `paginated`, and a short handler.
 */
export interface RouteSpec<
  BS extends z.ZodType | undefined, QS extends z.ZodObject | undefined, I extends string,
  S extends boolean, A extends boolean, BO extends boolean, R extends RepoGuard | undefined,
  O extends OrgGuard | undefined, T extends TeamGuard | undefined, P extends boolean, L,
> extends Operation {
  scope: Scope | readonly Scope[] | null;
  signedIn?: S;
  admin?: A;
  basicOnly?: BO;
  repo?: R;
  org?: O;
  team?: T;
  /** Path parameters holding numeric ids: anything else (or past 15 digits) names nothing, a 404. */
  ids?: readonly I[];
  body?: BS;
  query?: QS;
  /** Adds `page` and `limit` to the query and the OpenAPI document, and `page` and `list` to the context. */
  paginated?: P;
  /**
   * A read of the route's own made in the repository guard's statement (see RepoPreload); the handler gets it as
   * `preloaded`. Undefined for a request the route reads otherwise.
   */
  preload?: (request: {
    page: P extends true ? Page : undefined;
    query: (QS extends z.ZodObject ? z.output<QS> : Record<string, never>) & (P extends true ? Paging : unknown);
    ids: Record<I, number>;
  }) => RepoPreload<L> | undefined;
  handle(ctx: Context<
    Parsed<BS>,
    (QS extends z.ZodObject ? z.output<QS> : Record<string, never>) & (P extends true ? Paging : unknown),
    I,
    true extends S | A | BO ? true : false,
    R extends RepoGuard ? LoadedRepo : undefined,
    O extends OrgGuard ? OrgRow : undefined,
    T extends TeamGuard ? TeamView : undefined,
    P extends true ? Page : undefined,
    L
  >): Promise<Reply>;
}

/** A declaration with its types erased, as the router and the OpenAPI document read it. */
export interface RouteDefinition extends Guards, Operation {
  ids?: readonly string[];
  body?: z.ZodType;
  query?: z.ZodObject;
  paginated?: boolean;
  preload?(request: { page: Page | undefined; query: unknown; ids: Record<string, number> }): RepoPreload<unknown> | undefined;
  handle(ctx: Context): Promise<Reply>;
}

/** Declares a route; the declaration validates requests and feeds the OpenAPI document. */
export function route<
  BS extends z.ZodType | undefined = undefined, QS extends z.ZodObject | undefined = undefined, I extends string = never,
  S extends boolean = false, A extends boolean = false, BO extends boolean = false, R extends RepoGuard | undefined = undefined,
  O extends OrgGuard | undefined = undefined, T extends TeamGuard | undefined = undefined, P extends boolean = false, L = never,
>(spec: RouteSpec<BS, QS, I, S, A, BO, R, O, T, P, L>): RouteDefinition {
  return spec as unknown as RouteDefinition;
}

export const ok = (body: unknown): Reply => ({ status: 200, body });
export const created = (body: unknown): Reply => ({ status: 201, body });
export const noContent = (): Reply => ({ status: 204 });
