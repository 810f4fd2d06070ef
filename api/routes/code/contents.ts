import { z } from 'zod';
import { limits, refName, text } from '../../http/fields.js';
import { inTx } from '../../../db/data-source.js';
import { decodeBase64Strict } from '../../../db/encoding.js';
import { invalid, notFound } from '../../../db/errors.js';
import { definitionFor, parseEditorconfig } from '../../../db/git/editorconfig.js';
import { languageStats } from '../../../db/git/languages.js';
import type { CommitObject } from '../../../db/git/objects.js';
import {
  applyDiffPatch,
  changeRepoFiles,
  readContentsItem,
  readContentsOrList,
  resolveContentsRef,
  type ContentsRef,
  type FileOperation,
  type WriteOptions,
  type WrittenCommit,
} from '../../../db/models/code/contents.js';
import type { UserRow } from '../../../db/models/users/user-row.js';
import type { LoadedRepo } from '../../context/repo.js';
import type { Deps } from '../../deps.js';
import { created, ok, route, type Reply } from '../../http/route.js';
import { renderContents, renderFileResponse, renderFilesResponse, type ApiContents } from '../../render/contents.js';
import { archiveReply, rawFileReply, rawTarget } from './file-downloads.js';
import { openGitView, type GitView } from './git-data.js';

const identity = z.object({ name: text(limits.name).optional(), email: text(limits.name).optional() }).optional();
const fileOptions = {
  branch: refName(limits.branch).optional(),
  new_branch: refName(limits.branch).optional(),
  message: z.string().optional(),
  author: identity,
  committer: identity,
  dates: z.object({ author: z.iso.datetime({ offset: true }).optional(), committer: z.iso.datetime({ offset: true }).optional() }).optional(),
  signoff: z.boolean().optional(),
};

const createFileBody = z.object({ ...fileOptions, content: z.string() });
const updateFileBody = z.object({ ...fileOptions, content: z.string(), sha: refName().min(1), from_path: z.string().optional() });
const deleteFileBody = z.object({ ...fileOptions, sha: refName().min(1) });
const changeFilesBody = z.object({
  ...fileOptions,
  files: z.array(z.object({
    operation: z.enum(['create', 'update', 'delete']),
    path: z.string(),
    content: z.string().optional(),
    from_path: z.string().optional(),
    sha: refName().optional(),
  })).min(1),
});
const diffPatchBody = z.object({ ...fileOptions, content: z.string().min(1), sha: refName().optional() });
const refQuery = z.object({ ref: refName().optional() });
/** Gitea's reqRepoBranchWriter: writing the code (a branch's own rule is checked by the write). */
const repoWriter = { unit: 'repo.code', mode: 'write' } as const;

/** What a read of the repository's files needs from the request. */
interface FileRead {
  deps: Deps;
  repo: LoadedRepo;
  params: Record<string, string>;
  query: { ref?: string };
}

/** What a commit through the contents API needs from the request. */
interface FileWrite {
  deps: Deps;
  repo: LoadedRepo;
  doer: UserRow;
}

/** A file's base64 content; malformed base64 is a 422. */
function decodeBase64(text: string | undefined, field: string): Buffer {
  const content = decodeBase64Strict(text ?? '');
  if (!content) throw invalid(`[${field}]: illegal base64 data`);
  return content;
}

/** The FileResponse (or FilesResponse) of a write: the written files as they now are, and the commit. */
async function renderWritten(view: GitView, written: WrittenCommit, paths: string[]): Promise<{ commit: CommitObject; files: Array<ApiContents | null> }> {
  const commit = await view.reader.objects.readCommit(written.commitId);
  if (!commit) throw new Error(`the commit just written is missing: ${written.commitId}`);
  const at: ContentsRef = { commit, asked: written.branch, ref: written.branch, refType: 'branch' };
  const files = await Promise.all(
    paths.map(async (path) => {
      const item = await readContentsItem(view.reader, at, path);
      return item ? renderContents(view.links, at, item) : null;
    }),
  );
  return { commit, files };
}

async function writeFiles(
  { deps, repo, doer }: FileWrite,
  options: WriteOptions,
  files: FileOperation[],
  settings: { shaMismatchStatus?: 400 | 422 } = {},
): Promise<{ view: GitView; commit: CommitObject; files: Array<ApiContents | null> }> {
  const view = openGitView(deps, repo);
  const written = await inTx(deps, (tx) => changeRepoFiles(tx, deps, repo.repo, doer, repo.mode, options, files, settings));
  return { view, ...(await renderWritten(view, written, written.paths)) };
}

const optionsOf = (body: WriteOptions): WriteOptions => ({
  branch: body.branch, new_branch: body.new_branch, message: body.message, author: body.author, committer: body.committer,
  dates: body.dates, signoff: body.signoff,
});

/** GET /contents and /contents/{filepath}: an empty repository lists nothing at its root and has no files. */
async function getContents({ deps, repo, query }: FileRead, filepath: string): Promise<Reply> {
  const view = openGitView(deps, repo);
  if (!(await view.reader.hasBranches())) {
    if (!filepath) return ok([]);
    throw notFound();
  }
  const at = await resolveContentsRef(view.reader, repo.repo, query.ref?.trim() ?? '');
  if (!at) throw notFound(`no commit found for the ref [ref: ${query.ref}]`);
  const found = await readContentsOrList(view.reader, at, filepath);
  if (!found) throw notFound(`object does not exist [path: ${filepath}]`);
  return ok(Array.isArray(found) ? found.map((item) => renderContents(view.links, at, item)) : renderContents(view.links, at, found));
}

async function serveRaw({ deps, repo, params, query }: FileRead): Promise<Reply> {
  const view = openGitView(deps, repo);
  if (!(await view.reader.hasBranches())) throw notFound();
  const target = await rawTarget(view.reader, repo.repo.default_branch, params.filepath, query.ref?.trim() || undefined);
  return rawFileReply(view, target, params.filepath);
}

export const contentsRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/contents', operationId: 'repoGetContentsList', summary: 'Gets the metadata of all the entries of the root dir',
    tag: 'repository', scope: 'read:repository', repo: {}, query: refQuery, responses: { 200: 'ContentsListResponse', 404: 'notFound' },
    handle: (ctx) => getContents(ctx, ''),
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/contents/{filepath}', rest: 'filepath', operationId: 'repoGetContents',
    summary: 'Gets the metadata and contents (if a file) of an entry in a repository, or a list of entries if a dir',
    tag: 'repository', scope: 'read:repository', repo: {}, query: refQuery, responses: { 200: 'ContentsResponse', 404: 'notFound' },
    handle: (ctx) => getContents(ctx, ctx.params.filepath),
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/contents', operationId: 'repoChangeFiles', summary: 'Modify multiple files in a repository',
    tag: 'repository', scope: 'write:repository', signedIn: true, repo: repoWriter, body: changeFilesBody,
    responses: { 201: 'FilesResponse', 403: 'error', 404: 'notFound', 422: 'error', 423: 'repoArchivedError' },
    handle: async (ctx) => {
      const files = ctx.body.files.map((file, i) => ({
        operation: file.operation, path: file.path, from_path: file.from_path, sha: file.sha,
        content: file.operation === 'delete' ? undefined : decodeBase64(file.content, `files.${i}.content`),
      }));
      const written = await writeFiles(ctx, optionsOf(ctx.body), files);
      return created(renderFilesResponse(written.view.links, written.commit, written.files));
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/contents/{filepath}', rest: 'filepath', operationId: 'repoCreateFile', summary: 'Create a file in a repository',
    tag: 'repository', scope: 'write:repository', signedIn: true, repo: repoWriter, body: createFileBody,
    responses: { 201: 'FileResponse', 403: 'error', 404: 'notFound', 422: 'error', 423: 'repoArchivedError' },
    handle: async (ctx) => {
      const content = decodeBase64(ctx.body.content, 'content');
      const written = await writeFiles(ctx, optionsOf(ctx.body), [{ operation: 'create', path: ctx.params.filepath, content }]);
      return created(renderFileResponse(written.view.links, written.commit, written.files[0]));
    },
  }),
  route({
    method: 'put', path: '/repos/{owner}/{repo}/contents/{filepath}', rest: 'filepath', operationId: 'repoUpdateFile', summary: 'Update a file in a repository',
    tag: 'repository', scope: 'write:repository', signedIn: true, repo: repoWriter, body: updateFileBody,
    responses: { 200: 'FileResponse', 403: 'error', 404: 'notFound', 422: 'error', 423: 'repoArchivedError' },
    handle: async (ctx) => {
      const content = decodeBase64(ctx.body.content, 'content');
      const file: FileOperation = { operation: 'update', path: ctx.params.filepath, from_path: ctx.body.from_path, sha: ctx.body.sha, content };
      const written = await writeFiles(ctx, optionsOf(ctx.body), [file]);
      return ok(renderFileResponse(written.view.links, written.commit, written.files[0]));
    },
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/contents/{filepath}', rest: 'filepath', operationId: 'repoDeleteFile', summary: 'Delete a file in a repository',
    tag: 'repository', scope: 'write:repository', signedIn: true, repo: repoWriter, body: deleteFileBody,
    responses: { 200: 'FileDeleteResponse', 400: 'error', 403: 'error', 404: 'error', 423: 'repoArchivedError' },
    handle: async (ctx) => {
      const file: FileOperation = { operation: 'delete', path: ctx.params.filepath, sha: ctx.body.sha };
      const written = await writeFiles(ctx, optionsOf(ctx.body), [file], { shaMismatchStatus: 400 });
      return ok(renderFileResponse(written.view.links, written.commit, null));
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/diffpatch', operationId: 'repoApplyDiffPatch', summary: 'Apply diff patch to repository',
    tag: 'repository', scope: 'write:repository', signedIn: true, repo: repoWriter, body: diffPatchBody,
    responses: { 201: 'FileResponse', 404: 'notFound', 422: 'error', 423: 'repoArchivedError' },
    handle: async ({ deps, repo, doer, body }) => {
      const view = openGitView(deps, repo);
      const written = await inTx(deps, (tx) => applyDiffPatch(tx, deps, repo.repo, doer, repo.mode, optionsOf(body), body.content));
      const rendered = await renderWritten(view, written, ['']);
      return created(renderFileResponse(view.links, rendered.commit, rendered.files[0]));
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/raw/{filepath}', rest: 'filepath', operationId: 'repoGetRawFile', summary: 'Get a file from a repository',
    tag: 'repository', scope: 'read:repository', repo: {}, query: refQuery, responses: { 200: 'file', 404: 'notFound' },
    handle: serveRaw,
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/media/{filepath}', rest: 'filepath', operationId: 'repoGetRawFileOrLFS',
    summary: "Get a file or it's LFS object from a repository", tag: 'repository', scope: 'read:repository', repo: {}, query: refQuery,
    responses: { 200: 'file', 404: 'notFound' },
    handle: serveRaw,
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/archive/{archive}', rest: 'archive', operationId: 'repoGetArchive', summary: 'Get an archive of a repository',
    tag: 'repository', scope: 'read:repository', repo: {}, responses: { 200: 'file', 400: 'error', 404: 'notFound' },
    handle: async ({ deps, repo, params: { archive } }) => archiveReply(openGitView(deps, repo), repo.repo.name, archive),
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/languages', operationId: 'repoGetLanguages', summary: 'Get languages and number of bytes of code written',
    tag: 'repository', scope: 'read:repository', repo: {}, responses: { 200: 'LanguageStatistics', 404: 'notFound' },
    handle: async ({ deps, repo }) => {
      const view = openGitView(deps, repo);
      const commit = (await view.reader.hasBranches()) ? await view.reader.findCommit(repo.repo.default_branch) : null;
      if (!commit) return ok({});
      return ok(languageStats(await view.reader.listTree(commit.oid, { recursive: true })));
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/editorconfig/{filepath}', rest: 'filepath', operationId: 'repoGetEditorConfig',
    summary: 'Get the EditorConfig definitions of a file in a repository', tag: 'repository', scope: 'read:repository', repo: {}, query: refQuery,
    responses: { 200: 'EditorConfig', 404: 'notFound' },
    handle: async ({ deps, repo, params, query }) => {
      const view = openGitView(deps, repo);
      const commit = (await view.reader.hasBranches()) ? await view.reader.findCommit(query.ref?.trim() || repo.repo.default_branch) : null;
      if (!commit) throw notFound();
      const entry = await view.reader.entryAt(commit, '.editorconfig');
      const text = entry?.type === 'blob' ? await view.reader.readBlob(entry.oid) : null;
      if (!text) throw notFound('.editorconfig does not exist');
      return ok(definitionFor(parseEditorconfig(text.toString('utf8')), params.filepath));
    },
  }),
];
