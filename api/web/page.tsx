import express, { Router, type NextFunction, type Request, type Response } from 'express';
import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { HttpError } from '../../db/errors.js';
import type { Caller } from '../auth/caller.js';
import type { Deps } from '../deps.js';
import { expressPath } from '../http/mount.js';
import { apiVersion } from '../routes/instance/misc.js';
import { ErrorMessage, Layout, NotFound } from './pages/layout.js';
import { SiteContext, type Site } from './pages/site.js';
import { csrfMatches, loadVisitor, type WebVisitor } from './session.js';

/** What a page handler answers: a page to render in the layout, or a redirect (after a form, 303 See Other). */
export type PageAnswer = { status?: number; title: string; body: VNode; formTargets?: string[] } | { redirect: string };

export interface PageContext {
  deps: Deps;
  req: Request;
  res: Response;
  visitor: WebVisitor;
  caller: Caller;
  params: Record<string, string>;
  /** The query string's single values. */
  query: Record<string, string>;
  /** A posted form's fields (urlencoded); empty for a GET. */
  form: Record<string, string>;
}

/** A page declaration, as the API's `route`: the path in Gitea's spelling and a short handler. */
export interface PageDefinition {
  method?: 'get' | 'post';
  path: string;
  /** The `{param}` of `path` that takes the rest of the path, slashes included (as the API's `route`). */
  rest?: string;
  handle: (ctx: PageContext) => Promise<PageAnswer>;
}

export const page = (definition: PageDefinition): PageDefinition => definition;

/** Every web page carries this: scripts and styles only from files of this instance, no inline script. */
export const pageHeaders = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};

/**
 * The policy with more sources in `form-action`: browsers apply it to the redirects a form's answer makes too, so the
 * OAuth2 consent form, whose answer redirects to the client, names the client's origin.
 */
function withFormTargets(targets: string[]): string {
  const sources = targets.filter((t) => /^[a-z][a-z0-9+.-]*:(\/\/[^\s;,']+)?$/i.test(t));
  return pageHeaders['Content-Security-Policy'].replace("form-action 'self'", ["form-action 'self'", ...sources].join(' '));
}

function siteOf(deps: Deps, visitor: WebVisitor): Site {
  return { appName: deps.config.appName, version: apiVersion, base: new URL(deps.config.rootUrl).pathname, user: visitor.caller.user, csrf: visitor.csrf };
}

/** A page in the layout as the whole document; preact escapes every text and attribute it renders. */
export function sendPage(deps: Deps, res: Response, visitor: WebVisitor, status: number, title: string, body: VNode, formTargets: string[] = []): void {
  const html = renderToString(
    <SiteContext.Provider value={siteOf(deps, visitor)}>
      <Layout title={title}>{body}</Layout>
    </SiteContext.Provider>,
  );
  res.status(status).set(pageHeaders).type('html');
  if (formTargets.length) res.set('Content-Security-Policy', withFormTargets(formTargets));
  res.send(`<!DOCTYPE html>\n${html}`);
}

function sendAnswer(deps: Deps, res: Response, visitor: WebVisitor, answer: PageAnswer): void {
  if ('redirect' in answer) {
    res.set('Cache-Control', 'no-store').redirect(303, answer.redirect);
    return;
  }
  sendPage(deps, res, visitor, answer.status ?? 200, answer.title, answer.body, answer.formTargets);
}

/**
 * What a person may not read answers as what does not exist (404, 401 and 403 of the loaders alike); other refusals
 * say what they are.
 */
function sendError(deps: Deps, res: Response, visitor: WebVisitor, error: HttpError): void {
  if ([401, 403, 404].includes(error.status)) {
    sendPage(deps, res, visitor, 404, 'Page not found', <NotFound />);
    return;
  }
  sendPage(deps, res, visitor, error.status, 'Error', <ErrorMessage title={`Error ${error.status}`} text={error.message} />);
}

const singleValues = (record: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(Object.entries(record).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));

/** Path parameters as strings: Express hands a rest parameter over as its segments. */
const pathParams = (record: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(Object.entries(record).map(([name, value]) => [name, Array.isArray(value) ? value.join('/') : String(value)]));

/**
 * Mounts the page table. Every posted form must carry the visitor's CSRF token; without it, or with a stale one, the
 * form is refused (400) before its handler runs, so nothing changes.
 */
export function mountPages(pages: PageDefinition[], deps: Deps): Router {
  const router = Router();
  router.use(express.urlencoded({ extended: false, limit: '1mb' }));
  for (const definition of pages) {
    const method = definition.method ?? 'get';
    router[method](expressPath(definition.path, definition.rest), async (req: Request, res: Response, next: NextFunction) => {
      let visitor: WebVisitor | undefined;
      try {
        visitor = await loadVisitor(deps, req, res);
        const form = method === 'post' && req.body && typeof req.body === 'object' ? singleValues(req.body as Record<string, unknown>) : {};
        if (method === 'post' && !csrfMatches(visitor, form._csrf)) {
          sendPage(deps, res, visitor, 400, 'Bad request', <ErrorMessage title="Bad request" text="The form has expired or is invalid. Go back, reload the page and try again." />);
          return;
        }
        const params = pathParams(req.params as Record<string, unknown>);
        const answer = await definition.handle({
          deps, req, res, visitor, caller: visitor.caller, params, query: singleValues(req.query as Record<string, unknown>), form,
        });
        sendAnswer(deps, res, visitor, answer);
      } catch (error) {
        if (error instanceof HttpError && visitor) sendError(deps, res, visitor, error);
        else next(error);
      }
    });
  }
  return router;
}

/** The last answer of the web process: the 404 page, with the visitor's sign-in state in its header. */
export function notFoundPage(deps: Deps) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    try {
      sendPage(deps, res, await loadVisitor(deps, req, res), 404, 'Page not found', <NotFound />);
    } catch (error) {
      next(error);
    }
  };
}
