import type { Request } from 'express';
import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { badRequest, forbidden, notFound, unauthorized } from '../../../db/errors.js';
import { wikiModeOf } from '../../../db/models/access.js';
import { accessModes } from '../../../db/models/repos/repo-row.js';
import { isDotSegment, isPageWebPath, webPathFromRequest, type WebPath } from '../../../db/models/wiki/wiki-paths.js';
import {
  addWikiPage, deleteWikiPage, editWikiPage, listWikiPages, listWikiRevisions, readWikiPage,
} from '../../../db/models/wiki/wiki.js';
import type { LoadedRepo } from '../../context/repo.js';
import type { Deps } from '../../deps.js';
import { limits, text } from '../../http/fields.js';
import { defaultPageSize } from '../../http/pagination.js';
import { created, noContent, ok, route, type Reply } from '../../http/route.js';
import { renderWikiCommitList, renderWikiPage, renderWikiPageMeta } from '../../render/wiki.js';

const wikiPageBody = z.object({
  title: text(limits.name).optional(),
  content_base64: z.string().optional(),
  message: text(limits.text).refine((value) => !value.includes('\u0000'), 'must not contain NUL').optional(),
});

/** `page` and `limit` as Gitea's wiki handlers read them: below 1 (or not given) means the default. */
const pageNumber = z.coerce.number().int().min(-2147483648).max(2147483647).optional();
const pagesQuery = z.object({ page: pageNumber, limit: pageNumber });
const revisionsQuery = z.object({ page: pageNumber });

/**
 * Gitea's mustEnableWiki (404 unless the caller may read the repository's own wiki) and, for changes,
 * reqRepoWriter(unit.TypeWiki).
 */
async function requireWiki(deps: Deps, loaded: LoadedRepo, write = false): Promise<void> {
  const mode = await wikiModeOf(deps.db, loaded.caller.user, loaded.repo, loaded.repoMode);
  if (mode < accessModes.read) throw notFound('wiki is not enabled or not readable');
  if (!write || mode >= accessModes.write) return;
  if (!loaded.caller.user) throw unauthorized('token is required');
  throw forbidden('user should have a permission to write to a repo');
}

/**
 * The page name as the request spells it, still escaped (Gitea's PathParamRaw): `%2F` and `+` must stay what they are.
 * `.` and `..` (escaped or not) and an empty name name no page: 404 before anything is read or written.
 */
function requestedPage(req: Request): WebPath {
  const sent = req.originalUrl.split('?')[0];
  if (isDotSegment(sent.slice(sent.lastIndexOf('/') + 1))) throw notFound('wiki page does not exist');
  const path = new URL(req.originalUrl, 'http://localhost').pathname;
  const webPath = webPathFromRequest(path.slice(path.lastIndexOf('/') + 1));
  if (!isPageWebPath(webPath)) throw notFound('wiki page does not exist');
  return webPath;
}

/** Go's base64.StdEncoding decoder: padded standard alphabet; line breaks are skipped. */
function decodeContent(encoded: string | undefined): Buffer {
  const compact = (encoded ?? '').replace(/[\r\n]/g, '');
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(compact)) throw badRequest('invalid base64 encoding of content');
  return Buffer.from(compact, 'base64');
}

const repoHtml = (deps: Deps, loaded: LoadedRepo): string => `${deps.config.rootUrl}${loaded.owner.name}/${loaded.repo.name}`;

async function pageReply(deps: Deps, loaded: LoadedRepo, webPath: WebPath, status: 200 | 201): Promise<Reply> {
  const page = renderWikiPage(await readWikiPage(deps, loaded.repo, webPath), repoHtml(deps, loaded));
  return status === 201 ? created(page) : ok(page);
}

export const wikiRoutes = [
  route({
    method: 'post', path: '/repos/{owner}/{repo}/wiki/new', operationId: 'repoCreateWikiPage', summary: 'Create a wiki page', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: {}, body: wikiPageBody,
    responses: { 201: 'WikiPage', 400: 'error', 404: 'notFound', 409: 'error', 423: 'repoArchivedError' },
    handle: async ({ deps, repo, doer, body }) => {
      await requireWiki(deps, repo, true);
      const content = decodeContent(body.content_base64);
      const webPath = await inTx(deps, (tx) => addWikiPage(tx, deps, repo.repo, doer, body.title ?? '', content, body.message ?? ''));
      return pageReply(deps, repo, webPath, 201);
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/wiki/page/{pageName}', operationId: 'repoGetWikiPage', summary: 'Get a wiki page', tag: 'repository',
    scope: 'read:repository', repo: {}, responses: { 200: 'WikiPage' },
    handle: async ({ deps, repo, req }) => {
      await requireWiki(deps, repo);
      return pageReply(deps, repo, requestedPage(req), 200);
    },
  }),
  route({
    method: 'patch', path: '/repos/{owner}/{repo}/wiki/page/{pageName}', operationId: 'repoEditWikiPage', summary: 'Edit a wiki page', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: {}, body: wikiPageBody,
    responses: { 200: 'WikiPage', 400: 'error', 409: 'error', 423: 'repoArchivedError' },
    handle: async ({ deps, repo, doer, body, req }) => {
      await requireWiki(deps, repo, true);
      const content = decodeContent(body.content_base64);
      const oldPath = requestedPage(req);
      const webPath = await inTx(deps, (tx) => editWikiPage(tx, deps, repo.repo, doer, oldPath, body.title ?? '', content, body.message ?? ''));
      return pageReply(deps, repo, webPath, 200);
    },
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/wiki/page/{pageName}', operationId: 'repoDeleteWikiPage', summary: 'Delete a wiki page', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: {}, responses: { 204: 'empty', 409: 'error', 423: 'repoArchivedError' },
    handle: async ({ deps, repo, doer, req }) => {
      await requireWiki(deps, repo, true);
      const webPath = requestedPage(req);
      await inTx(deps, (tx) => deleteWikiPage(tx, deps, repo.repo, doer, webPath));
      return noContent();
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/wiki/pages', operationId: 'repoGetWikiPages', summary: 'Get all wiki pages', tag: 'repository',
    scope: 'read:repository', repo: {}, query: pagesQuery, responses: { 200: 'WikiPageList' },
    handle: async ({ deps, repo, query }) => {
      await requireWiki(deps, repo);
      // Gitea's own reading: a limit of 1 or less is the default, and there is no maximum
      const page = Math.max(query.page ?? 0, 1);
      const asked = query.limit ?? 0;
      const limit = asked <= 1 ? defaultPageSize : asked;
      const { pages, total } = await listWikiPages(deps, repo.repo, page, limit);
      return { status: 200, body: pages.map((p) => renderWikiPageMeta(p, repoHtml(deps, repo))), headers: { 'X-Total-Count': String(total) } };
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/wiki/revisions/{pageName}', operationId: 'repoGetWikiPageRevisions',
    summary: 'Get revisions of a wiki page', tag: 'repository',
    scope: 'read:repository', repo: {}, query: revisionsQuery, responses: { 200: 'WikiCommitList' },
    handle: async ({ deps, repo, query, req }) => {
      await requireWiki(deps, repo);
      const { commits, count } = await listWikiRevisions(deps, repo.repo, requestedPage(req), Math.max(query.page ?? 0, 1));
      return { status: 200, body: renderWikiCommitList(commits, count), headers: { 'X-Total-Count': String(count) } };
    },
  }),
];
