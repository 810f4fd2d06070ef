import { z } from 'zod';
import { limits, refName, text } from '../../http/fields.js';
import { badRequest, conflict, invalid, notFound } from '../../../db/errors.js';
import type { CommitObject } from '../../../db/git/objects.js';
import { isFullOid, isValidRefPattern } from '../../../db/git/objects.js';
import type { CommitChanges, GitReader } from '../../../db/git/read.js';
import { maxBlobContentSize } from '../../../db/models/code/contents.js';
import type { UserRow } from '../../../db/models/users/user-row.js';
import { loadCommitViews } from '../../../db/views/commits.js';
import type { Deps } from '../../deps.js';
import type { Page } from '../../http/pagination.js';
import { ok, route } from '../../http/route.js';
import type { LoadedRepo } from '../../context/repo.js';
import {
  renderAnnotatedTag,
  renderBlob,
  renderCommit,
  renderCompare,
  renderNote,
  renderReference,
  renderTree,
  repoLinks,
  type ApiCommit,
  type ApiReference,
  type RepoLinks,
} from '../../render/git.js';

/** A repository's git directory and the links its objects render with. */
export interface GitView {
  reader: GitReader;
  links: RepoLinks;
}

export function openGitView(deps: Deps, { repo, owner }: LoadedRepo): GitView {
  return { reader: deps.git.open(repo), links: repoLinks(deps.config.rootUrl, owner.name, repo.name) };
}

/** Gitea's query booleans that default to true: absent or empty is true, otherwise strconv.ParseBool. */
export function flagOf(value: string | undefined): boolean {
  return value === undefined || value === '' || boolOf(value);
}

/** Go's strconv.ParseBool, with anything unparsable as false (Gitea's FormBool). */
export function boolOf(value: string | undefined): boolean {
  return value !== undefined && ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value);
}

export interface CommitOptions {
  stat: boolean;
  files: boolean;
  verification: boolean;
}

export function commitOptionsOf(query: { stat?: string; files?: string; verification?: string }): CommitOptions {
  return { stat: flagOf(query.stat), files: flagOf(query.files), verification: flagOf(query.verification) };
}

/** Commits as Gitea renders lists of them; their changes read here unless the caller read them already. */
export async function renderCommits(
  deps: Deps, view: GitView, viewer: UserRow | null, commits: CommitObject[], options: CommitOptions, known?: Map<string, CommitChanges>,
): Promise<ApiCommit[]> {
  const views = await loadCommitViews(deps.db, view.reader, commits, { stats: options.stat, files: options.files, known });
  const rendering = { links: view.links, viewer, render: deps.config, verification: options.verification };
  return views.map((commit) => renderCommit(commit, rendering));
}

/** Gitea's getGitRefsInternal: refs starting with the filter; one exact match is answered as an object. */
async function listGitRefs(view: GitView, filter: string): Promise<ApiReference | ApiReference[]> {
  const prefix = filter ? `refs/${filter}` : '';
  const refs = await view.reader.listRefs(prefix);
  if (refs.length === 0) throw notFound();
  const rendered = refs.map((ref) => renderReference(view.links, ref));
  return rendered.length === 1 && rendered[0].ref === prefix ? rendered[0] : rendered;
}

const commitQuery = z.object({ stat: z.string().optional(), verification: z.string().optional(), files: z.string().optional() });

const treeQuery = z.object({
  recursive: z.string().optional(),
  page: z.coerce.number().int().min(1).max(2 ** 31 - 1).optional(),
  per_page: z.coerce.number().int().min(0).max(2 ** 31 - 1).optional(),
});

const commitsQuery = z.object({
  sha: refName().optional(),
  path: text(limits.text).optional(),
  stat: z.string().optional(),
  verification: z.string().optional(),
  files: z.string().optional(),
  not: refName().optional(),
});

/** Gitea's setting.Git.CommitsRangeSize: the page size of a history filtered by path, and the largest page. */
const commitsRangeSize = 50;
/** Gitea's API.DefaultGitTreesPerPage. */
const treesPerPage = 1000;

function assertRevision(rev: string, status: 400 | 422): void {
  if (isValidRefPattern(rev)) return;
  if (status === 422) throw invalid(`no valid ref or sha: ${rev}`);
  throw badRequest(`no valid ref or sha: ${rev}`);
}

/** The commit HEAD names: the branch the repository serves by default. */
async function headCommit(view: GitView, defaultBranch: string): Promise<CommitObject | null> {
  return (await view.reader.findCommit('HEAD')) ?? view.reader.findCommit(defaultBranch);
}

/** A history filtered by path comes in pages of Gitea's CommitsRangeSize, whatever the limit asked. */
const historyPage = (page: Page, path: string | undefined): Page =>
  path ? { page: page.page, limit: commitsRangeSize, offset: (page.page - 1) * commitsRangeSize } : page;

export const gitDataRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/git/refs', operationId: 'repoListAllGitRefs', summary: "Get specified ref or filtered repository's refs",
    tag: 'repository', scope: 'read:repository', repo: {}, responses: { 200: 'ReferenceList', 404: 'notFound' },
    handle: async ({ deps, repo }) => ok(await listGitRefs(openGitView(deps, repo), '')),
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/git/refs/{ref}', rest: 'ref', operationId: 'repoListGitRefs', summary: "Get specified ref or filtered repository's refs",
    tag: 'repository', scope: 'read:repository', repo: {}, responses: { 200: 'ReferenceList', 404: 'notFound' },
    handle: async ({ deps, repo, params }) => ok(await listGitRefs(openGitView(deps, repo), params.ref)),
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/git/trees/{sha}', operationId: 'GetTree', summary: 'Gets the tree of a repository.',
    tag: 'repository', scope: 'read:repository', repo: {}, query: treeQuery, responses: { 200: 'GitTreeResponse', 400: 'error', 404: 'notFound' },
    handle: async ({ deps, repo, params, query }) => {
      const { sha } = params;
      assertRevision(sha, 400);
      const view = openGitView(deps, repo);
      const oid = await view.reader.objects.resolve(sha);
      const found = oid ? await view.reader.objects.peel(oid) : null;
      if (!found) throw notFound(`sha not found [${sha}]`);
      const tree = found.type === 'commit' ? (await view.reader.objects.readCommit(found.oid))?.tree : found.type === 'tree' ? found.oid : null;
      if (!tree) throw badRequest(`sha not found [${sha}]: not a tree or commit`);
      const entries = await view.reader.listTree(tree, { recursive: boolOf(query.recursive) });
      const perPage = !query.per_page || query.per_page <= 0 || query.per_page > treesPerPage ? treesPerPage : query.per_page;
      const page = Math.max(query.page ?? 1, 1);
      const start = perPage * (page - 1);
      const inRange = start < entries.length;
      const end = Math.min(start + perPage, entries.length);
      const body = renderTree(view.links, {
        sha: found.oid, page, total: entries.length, truncated: inRange && end < entries.length, entries: inRange ? entries.slice(start, end) : null,
      });
      return { status: 200, body, headers: { 'X-Total-Count': String(entries.length) } };
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/git/blobs/{sha}', operationId: 'GetBlob', summary: 'Gets the blob of a repository.',
    tag: 'repository', scope: 'read:repository', repo: {}, responses: { 200: 'GitBlobResponse', 400: 'error', 404: 'notFound' },
    handle: async ({ deps, repo, params: { sha } }) => {
      const view = openGitView(deps, repo);
      if (!isFullOid(sha, view.reader.format)) throw badRequest(`invalid blob sha: ${sha}`);
      const blob = await view.reader.readBlob(sha);
      if (!blob) throw notFound(`blob not found [${sha}]`);
      return ok(renderBlob(view.links, sha, blob.length, blob.length <= maxBlobContentSize ? blob : null));
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/git/commits/{sha}.{diffType}', operationId: 'repoDownloadCommitDiffOrPatch',
    summary: "Get a commit's diff or patch", tag: 'repository', scope: 'read:repository', repo: {}, responses: { 200: 'string', 404: 'notFound' },
    handle: async ({ deps, repo, params: { sha, diffType } }) => {
      if (diffType !== 'diff' && diffType !== 'patch') throw notFound();
      const view = openGitView(deps, repo);
      const commit = isValidRefPattern(sha) ? await view.reader.findCommit(sha) : null;
      if (!commit) throw notFound(`commit not found [${sha}]`);
      return { status: 200, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, content: view.reader.rawDiff(commit, diffType) };
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/git/commits/{sha}', operationId: 'repoGetSingleCommit', summary: 'Get a single commit from a repository',
    tag: 'repository', scope: 'read:repository', repo: {}, query: commitQuery, responses: { 200: 'Commit', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, repo, doer, params: { sha }, query }) => {
      assertRevision(sha, 422);
      const view = openGitView(deps, repo);
      const commit = await view.reader.findCommit(sha);
      if (!commit) throw notFound(`commit not found [${sha}]`);
      const [rendered] = await renderCommits(deps, view, doer, [commit], commitOptionsOf(query));
      return ok(rendered);
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/git/notes/{sha}', operationId: 'repoGetNote',
    summary: 'Get a note corresponding to a single commit from a repository', tag: 'repository', scope: 'read:repository', repo: {}, query: commitQuery,
    responses: { 200: 'Note', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, repo, doer, params: { sha }, query }) => {
      assertRevision(sha, 422);
      const view = openGitView(deps, repo);
      const commit = await view.reader.findCommit(sha);
      if (!commit) throw notFound(`commit not found [${sha}]`);
      const note = await view.reader.readNote(commit.oid);
      if (!note) throw notFound(`note not found [${sha}]`);
      const [rendered] = await renderCommits(deps, view, doer, [note.commit], { ...commitOptionsOf(query), stat: true });
      return ok(renderNote(note.message, rendered));
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/git/tags/{sha}', operationId: 'GetAnnotatedTag',
    summary: 'Gets the tag object of an annotated tag (not lightweight tags)', tag: 'repository', scope: 'read:repository', repo: {},
    responses: { 200: 'AnnotatedTag', 400: 'error', 404: 'notFound' },
    handle: async ({ deps, repo, params: { sha } }) => {
      assertRevision(sha, 400);
      const view = openGitView(deps, repo);
      const oid = await view.reader.objects.resolve(sha);
      if (!oid) throw notFound(`tag not found [${sha}]`);
      const tag = await view.reader.objects.readTag(oid);
      if (!tag) throw badRequest(`${sha} is not an annotated tag`);
      const commit = await view.reader.objects.peelToCommit(oid);
      if (!commit) throw badRequest(`tag ${tag.name} does not lead to a commit`);
      return ok(renderAnnotatedTag(view.links, tag, commit));
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/commits', operationId: 'repoGetAllCommits', summary: 'Get a list of all commits from a repository',
    tag: 'repository', scope: 'read:repository', repo: {}, query: commitsQuery, paginated: true,
    responses: { 200: 'CommitList', 404: 'notFound', 409: 'EmptyRepository' },
    handle: async ({ deps, repo, doer, query, page: asked, list }) => {
      const view = openGitView(deps, repo);
      if (!(await view.reader.hasBranches())) throw conflict('Git Repository is empty.');
      const { sha, path, not } = query;
      const page = historyPage(asked, path);
      const defaultBranch = repo.repo.default_branch;
      const notOid = not ? await view.reader.objects.resolve(not) : null;
      if (not && !notOid) throw notFound(`revision not found [${not}]`);
      const base = sha ? await view.reader.findCommit(sha) : path ? await view.reader.findCommit(defaultBranch) : await headCommit(view, defaultBranch);
      if (!base) throw notFound(`revision not found [${sha ?? defaultBranch}]`);
      const range = { rev: base.oid, not: notOid ?? undefined, path: path || undefined };
      const total = await view.reader.count(range);
      if (path && total === 0) throw notFound(`no commits touch ${path}`);
      const ids = await view.reader.log({ ...range, skip: page.offset, max: page.limit });
      const commits = await renderCommits(deps, view, doer, await view.reader.objects.readCommits(ids), commitOptionsOf(query));
      const reply = list(commits, total, page);
      const pageCount = Math.ceil(total / page.limit);
      reply.headers = {
        ...reply.headers,
        'X-Page': String(page.page), 'X-PerPage': String(page.limit), 'X-Total': String(total),
        'X-PageCount': String(pageCount), 'X-HasMore': String(page.page < pageCount),
        'Access-Control-Expose-Headers': 'X-Total-Count, X-Page, X-PerPage, X-Total, X-PageCount, X-HasMore, Link',
      };
      return reply;
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/compare/{basehead}', rest: 'basehead', operationId: 'repoCompareDiff',
    summary: 'Get commit comparison information', tag: 'repository', scope: 'read:repository', repo: {}, query: commitQuery,
    responses: { 200: 'Compare', 404: 'notFound' },
    handle: async ({ deps, repo: loaded, doer, params, query }) => {
      const view = openGitView(deps, loaded);
      const { repo, owner } = loaded;
      const spec = params.basehead;
      let [base, head] = spec.includes('...') ? spec.split('...', 2) : spec.includes('..') ? spec.split('..', 2) : [repo.default_branch, spec];
      // `owner:branch` names a branch of this repository; comparisons across forks are not served.
      const own = (side: string): string => {
        const colon = side.indexOf(':');
        if (colon === -1) return side;
        if (side.slice(0, colon).toLowerCase() !== owner.lower_name) throw notFound(`cannot compare with another repository: ${side}`);
        return side.slice(colon + 1);
      };
      base = own(base || repo.default_branch);
      head = own(head || repo.default_branch);
      const [baseCommit, headCommitFound] = await Promise.all([
        isValidRefPattern(base) ? view.reader.findCommit(base) : null,
        isValidRefPattern(head) ? view.reader.findCommit(head) : null,
      ]);
      if (!baseCommit) throw notFound(`base not found [${base}]`);
      if (!headCommitFound) throw notFound(`head not found [${head}]`);
      const mergeBase = (await view.reader.mergeBase(baseCommit.oid, headCommitFound.oid)) ?? baseCommit.oid;
      const ids = await view.reader.log({ rev: headCommitFound.oid, not: mergeBase });
      const options = { ...commitOptionsOf(query), stat: true };
      return ok(renderCompare(await renderCommits(deps, view, doer, await view.reader.objects.readCommits(ids), options)));
    },
  }),
];
