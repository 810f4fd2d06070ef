import { z } from 'zod';
import { badRequest, conflict, invalid, notFound } from '../../../db/errors.js';
import type { CommitObject } from '../../../db/git/objects.js';
import { isFullOid, isValidRefPattern } from '../../../db/git/objects.js';
import type { GitReader } from '../../../db/git/read.js';
import { maxBlobContentSize, usersByEmails } from '../../../db/models/code/contents.js';
import type { UserRow } from '../../../db/models/users/user-row.js';
import type { Deps } from '../../deps.js';
import { pageOf, paged } from '../../http/pagination.js';
import { ok, route, type Context, type Reply } from '../../http/route.js';
import { loadRepo, type LoadedRepo } from '../../context/repo.js';
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
  type RepoLinks,
} from '../../render/git.js';

/** A repository the caller may read, its git directory and the links its objects render with. */
export interface GitView {
  loaded: LoadedRepo;
  reader: GitReader;
  links: RepoLinks;
}

export async function loadGitView(deps: Deps, ctx: Context<unknown, unknown>): Promise<GitView> {
  const loaded = await loadRepo(deps, ctx.caller, ctx.params.owner, ctx.params.repo);
  return { loaded, reader: deps.git.open(loaded.repo), links: repoLinks(deps.config.rootUrl, loaded.owner.name, loaded.repo.name) };
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

/** Commits as Gitea renders lists of them: one look-up of accounts and two git processes for all the diffs. */
export async function renderCommits(deps: Deps, view: GitView, viewer: UserRow | null, commits: CommitObject[], options: CommitOptions): Promise<ApiCommit[]> {
  const wantChanges = options.stat || options.files;
  const [changes, users] = await Promise.all([
    wantChanges ? view.reader.changesOf(commits.map((c) => c.oid), { stats: options.stat, files: options.files }) : new Map(),
    usersByEmails(deps.db, commits.flatMap((c) => [c.author.email, c.committer.email])),
  ]);
  const rendering = { links: view.links, users, viewer, render: deps.config, verification: options.verification };
  return commits.map((commit) => {
    const found = changes.get(commit.oid);
    return renderCommit(commit, { stats: options.stat ? found : undefined, files: options.files ? found : undefined }, rendering);
  });
}

/** Gitea's getGitRefsInternal: refs starting with the filter; one exact match is answered as an object. */
async function listGitRefs(deps: Deps, ctx: Context<unknown, unknown>, filter: string): Promise<Reply> {
  const view = await loadGitView(deps, ctx);
  const prefix = filter ? `refs/${filter}` : '';
  const refs = await view.reader.listRefs(prefix);
  if (refs.length === 0) throw notFound();
  const rendered = refs.map((ref) => renderReference(view.links, ref));
  return ok(rendered.length === 1 && rendered[0].ref === prefix ? rendered[0] : rendered);
}

const commitQuery = z.object({ stat: z.string().optional(), verification: z.string().optional(), files: z.string().optional() });
type CommitQuery = z.infer<typeof commitQuery>;

const treeQuery = z.object({
  recursive: z.string().optional(),
  page: z.coerce.number().int().optional(),
  per_page: z.coerce.number().int().optional(),
});
type TreeQuery = z.infer<typeof treeQuery>;

const commitsQuery = z.object({
  sha: z.string().optional(),
  path: z.string().optional(),
  stat: z.string().optional(),
  verification: z.string().optional(),
  files: z.string().optional(),
  not: z.string().optional(),
});
type CommitsQuery = z.infer<typeof commitsQuery> & { page?: number; limit?: number };

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
async function headCommit(view: GitView): Promise<CommitObject | null> {
  return (await view.reader.findCommit('HEAD')) ?? view.reader.findCommit(view.loaded.repo.default_branch);
}

export const gitDataRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/git/refs', operationId: 'repoListAllGitRefs', summary: "Get specified ref or filtered repository's refs",
    tag: 'repository', scope: 'read:repository', responses: { 200: 'ReferenceList', 404: 'notFound' },
    handle: (ctx) => listGitRefs(ctx.deps, ctx, ''),
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/git/refs/{ref}', rest: 'ref', operationId: 'repoListGitRefs', summary: "Get specified ref or filtered repository's refs",
    tag: 'repository', scope: 'read:repository', responses: { 200: 'ReferenceList', 404: 'notFound' },
    handle: (ctx) => listGitRefs(ctx.deps, ctx, ctx.params.ref),
  }),
  route<undefined, TreeQuery>({
    method: 'get', path: '/repos/{owner}/{repo}/git/trees/{sha}', operationId: 'GetTree', summary: 'Gets the tree of a repository.',
    tag: 'repository', scope: 'read:repository', query: treeQuery, responses: { 200: 'GitTreeResponse', 400: 'error', 404: 'notFound' },
    handle: async (ctx) => {
      const { sha } = ctx.params;
      assertRevision(sha, 400);
      const view = await loadGitView(ctx.deps, ctx);
      const oid = await view.reader.objects.resolve(sha);
      const found = oid ? await view.reader.objects.peel(oid) : null;
      if (!found) throw notFound(`sha not found [${sha}]`);
      const tree = found.type === 'commit' ? (await view.reader.objects.readCommit(found.oid))?.tree : found.type === 'tree' ? found.oid : null;
      if (!tree) throw badRequest(`sha not found [${sha}]: not a tree or commit`);
      const entries = await view.reader.listTree(tree, { recursive: boolOf(ctx.query.recursive) });
      const perPage = !ctx.query.per_page || ctx.query.per_page <= 0 || ctx.query.per_page > treesPerPage ? treesPerPage : ctx.query.per_page;
      const page = Math.max(ctx.query.page ?? 1, 1);
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
    tag: 'repository', scope: 'read:repository', responses: { 200: 'GitBlobResponse', 400: 'error', 404: 'notFound' },
    handle: async (ctx) => {
      const view = await loadGitView(ctx.deps, ctx);
      const { sha } = ctx.params;
      if (!isFullOid(sha, view.reader.format)) throw badRequest(`invalid blob sha: ${sha}`);
      const blob = await view.reader.readBlob(sha);
      if (!blob) throw notFound(`blob not found [${sha}]`);
      return ok(renderBlob(view.links, sha, blob.length, blob.length <= maxBlobContentSize ? blob : null));
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/git/commits/{sha}.{diffType}', operationId: 'repoDownloadCommitDiffOrPatch',
    summary: "Get a commit's diff or patch", tag: 'repository', scope: 'read:repository', responses: { 200: 'string', 404: 'notFound' },
    handle: async (ctx) => {
      const { sha, diffType } = ctx.params;
      if (diffType !== 'diff' && diffType !== 'patch') throw notFound();
      const view = await loadGitView(ctx.deps, ctx);
      const commit = isValidRefPattern(sha) ? await view.reader.findCommit(sha) : null;
      if (!commit) throw notFound(`commit not found [${sha}]`);
      return { status: 200, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, content: view.reader.rawDiff(commit, diffType) };
    },
  }),
  route<undefined, CommitQuery>({
    method: 'get', path: '/repos/{owner}/{repo}/git/commits/{sha}', operationId: 'repoGetSingleCommit', summary: 'Get a single commit from a repository',
    tag: 'repository', scope: 'read:repository', query: commitQuery, responses: { 200: 'Commit', 404: 'notFound', 422: 'validationError' },
    handle: async (ctx) => {
      assertRevision(ctx.params.sha, 422);
      const view = await loadGitView(ctx.deps, ctx);
      const commit = await view.reader.findCommit(ctx.params.sha);
      if (!commit) throw notFound(`commit not found [${ctx.params.sha}]`);
      const [rendered] = await renderCommits(ctx.deps, view, ctx.caller.user, [commit], commitOptionsOf(ctx.query));
      return ok(rendered);
    },
  }),
  route<undefined, CommitQuery>({
    method: 'get', path: '/repos/{owner}/{repo}/git/notes/{sha}', operationId: 'repoGetNote',
    summary: 'Get a note corresponding to a single commit from a repository', tag: 'repository', scope: 'read:repository', query: commitQuery,
    responses: { 200: 'Note', 404: 'notFound', 422: 'validationError' },
    handle: async (ctx) => {
      assertRevision(ctx.params.sha, 422);
      const view = await loadGitView(ctx.deps, ctx);
      const commit = await view.reader.findCommit(ctx.params.sha);
      if (!commit) throw notFound(`commit not found [${ctx.params.sha}]`);
      const note = await view.reader.readNote(commit.oid);
      if (!note) throw notFound(`note not found [${ctx.params.sha}]`);
      const [rendered] = await renderCommits(ctx.deps, view, ctx.caller.user, [note.commit], { ...commitOptionsOf(ctx.query), stat: true });
      return ok(renderNote(note.message, rendered));
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/git/tags/{sha}', operationId: 'GetAnnotatedTag',
    summary: 'Gets the tag object of an annotated tag (not lightweight tags)', tag: 'repository', scope: 'read:repository',
    responses: { 200: 'AnnotatedTag', 400: 'error', 404: 'notFound' },
    handle: async (ctx) => {
      assertRevision(ctx.params.sha, 400);
      const view = await loadGitView(ctx.deps, ctx);
      const oid = await view.reader.objects.resolve(ctx.params.sha);
      if (!oid) throw notFound(`tag not found [${ctx.params.sha}]`);
      const tag = await view.reader.objects.readTag(oid);
      if (!tag) throw badRequest(`${ctx.params.sha} is not an annotated tag`);
      const commit = await view.reader.objects.peelToCommit(oid);
      if (!commit) throw badRequest(`tag ${tag.name} does not lead to a commit`);
      return ok(renderAnnotatedTag(view.links, tag, commit));
    },
  }),
  route<undefined, CommitsQuery>({
    method: 'get', path: '/repos/{owner}/{repo}/commits', operationId: 'repoGetAllCommits', summary: 'Get a list of all commits from a repository',
    tag: 'repository', scope: 'read:repository', query: commitsQuery, paginated: true, responses: { 200: 'CommitList', 404: 'notFound', 409: 'EmptyRepository' },
    handle: async (ctx) => {
      const view = await loadGitView(ctx.deps, ctx);
      if (!(await view.reader.hasBranches())) throw conflict('Git Repository is empty.');
      const { sha, path, not } = ctx.query;
      const page = pageOf({ page: ctx.query.page, limit: path ? commitsRangeSize : Math.min(ctx.query.limit ?? 0, commitsRangeSize) });
      const notOid = not ? await view.reader.objects.resolve(not) : null;
      if (not && !notOid) throw notFound(`revision not found [${not}]`);
      const base = sha ? await view.reader.findCommit(sha) : path ? await view.reader.findCommit(view.loaded.repo.default_branch) : await headCommit(view);
      if (!base) throw notFound(`revision not found [${sha ?? view.loaded.repo.default_branch}]`);
      const query = { rev: base.oid, not: notOid ?? undefined, path: path || undefined };
      const total = await view.reader.count(query);
      if (path && total === 0) throw notFound(`no commits touch ${path}`);
      const ids = await view.reader.log({ ...query, skip: page.offset, max: page.limit });
      const commits = await renderCommits(ctx.deps, view, ctx.caller.user, await view.reader.objects.readCommits(ids), commitOptionsOf(ctx.query));
      const reply = paged(commits, total, page, ctx.url);
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
  route<undefined, CommitQuery>({
    method: 'get', path: '/repos/{owner}/{repo}/compare/{basehead}', rest: 'basehead', operationId: 'repoCompareDiff',
    summary: 'Get commit comparison information', tag: 'repository', scope: 'read:repository', query: commitQuery,
    responses: { 200: 'Compare', 404: 'notFound' },
    handle: async (ctx) => {
      const view = await loadGitView(ctx.deps, ctx);
      const { repo, owner } = view.loaded;
      const spec = ctx.params.basehead;
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
      const options = { ...commitOptionsOf(ctx.query), stat: true };
      return ok(renderCompare(await renderCommits(ctx.deps, view, ctx.caller.user, await view.reader.objects.readCommits(ids), options)));
    },
  }),
];
