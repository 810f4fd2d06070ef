import { z } from 'zod';
import type { Reply } from './route.js';

export const defaultPageSize = 30;
export const maxPageSize = 50;

export const paginationQuery = {
  page: z.coerce.number().int().min(1).optional(),
  limit: z.coerce.number().int().min(0).optional(),
};

export interface Page {
  page: number;
  limit: number;
  offset: number;
}

/** Gitea's rules: page starts at 1; limit defaults to 30 and is capped at 50 (0 means the default). */
export function pageOf(query: { page?: number; limit?: number }): Page {
  const page = query.page ?? 1;
  const limit = !query.limit ? defaultPageSize : Math.min(query.limit, maxPageSize);
  return { page, limit, offset: (page - 1) * limit };
}

/** The request's address as Link headers repeat it: the credentials of query authentication are left out. */
export function linkBaseOf(originalUrl: string, rootUrl: string): string {
  const url = new URL(originalUrl, rootUrl);
  for (const credential of ['token', 'access_token']) url.searchParams.delete(credential);
  return url.toString();
}

/** A JSON array already serialised (texts kept from earlier answers), sent as it is. */
export class JsonText {
  constructor(readonly text: string) {}
}

/** A list answer with X-Total-Count and a Link header (next, last, first, prev) as Gitea sends them. */
export function paged(items: unknown[] | JsonText, total: number, page: Page, url: string): Reply {
  const last = Math.max(1, Math.ceil(total / page.limit));
  const link = (n: number, rel: string): string => {
    const target = new URL(url);
    target.searchParams.set('page', String(n));
    target.searchParams.set('limit', String(page.limit));
    return `<${target.toString()}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (page.page < last) links.push(link(page.page + 1, 'next'), link(last, 'last'));
  if (page.page > 1) links.push(link(1, 'first'), link(page.page - 1, 'prev'));
  const headers: Record<string, string> = { 'X-Total-Count': String(total) };
  if (links.length) headers.Link = links.join(',');
  if (items instanceof JsonText) return { status: 200, content: items.text, headers: { ...headers, 'Content-Type': 'application/json; charset=utf-8' } };
  return { status: 200, body: items, headers };
}
