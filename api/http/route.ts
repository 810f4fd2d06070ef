import type { Readable } from 'node:stream';
import type { Request, Response } from 'express';
import { z } from 'zod';
import type { Scope } from '../../db/scopes.js';
import type { Deps } from '../deps.js';
import type { Caller } from '../auth/caller.js';

/** What a route asks of its caller before the handler runs, mirroring Gitea's middleware names. */
export interface Guards {
  /** The token scope the route needs when the caller used a token (reqToken + tokenRequiresScopes). `null`: none. */
  scope: Scope | null;
  /** reqToken: a caller must be known, else 401 "token is required". */
  signedIn?: boolean;
  /** reqSiteAdmin. */
  admin?: boolean;
  /** reqBasicOrRevProxyAuth: token management is never done with a token. */
  basicOnly?: boolean;
}

export interface Context<B, Q> {
  body: B;
  query: Q;
  params: Record<string, string>;
  /** The absolute address of this request (for Link headers). */
  url: string;
  caller: Caller;
  deps: Deps;
  req: Request;
  res: Response;
}

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Bytes sent as they are (a raw file, an archive, a diff) instead of a JSON body; a stream is piped. */
  content?: Buffer | string | Readable;
}

export interface RouteDefinition<B = unknown, Q = unknown> extends Guards {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete' | 'head';
  /** Gitea's path, with `{param}` placeholders, relative to /api/v1. */
  path: string;
  /** The last path parameter when it may span several segments (Gitea's `*`: a file path, a ref, a tag name). */
  rest?: string;
  operationId: string;
  summary: string;
  tag: string;
  deprecated?: boolean;
  body?: z.ZodType<B>;
  query?: z.ZodObject<z.ZodRawShape>;
  /** Adds `page` and `limit` to the query and the OpenAPI document. */
  paginated?: boolean;
  responses: Record<number, string>;
  handle(ctx: Context<B, Q>): Promise<Reply>;
}

/** Declares a route; the declaration validates requests and feeds the OpenAPI document. */
export function route<B = undefined, Q = Record<string, never>>(definition: RouteDefinition<B, Q>): RouteDefinition {
  return definition as unknown as RouteDefinition;
}

export const ok = (body: unknown): Reply => ({ status: 200, body });
export const created = (body: unknown): Reply => ({ status: 201, body });
export const noContent = (): Reply => ({ status: 204 });
