import { z } from 'zod';
import { notFound } from '../../../db/errors.js';
import { changedPaths, rangeDiff } from '../../../db/git/pulls.js';
import { pullHeadRef } from '../../../db/models/pulls/pull-row.js';
import { findHeadRepo } from '../../../db/models/pulls/pulls.js';
import type { Deps } from '../../deps.js';
import type { LoadedPull } from '../../context/pull.js';
import { loadPull } from '../../context/pull.js';
import type { LoadedRepo } from '../../context/repo.js';
import type { Page } from '../../http/pagination.js';
import { route, type Reply } from '../../http/route.js';
import { renderChangedFile } from '../../render/changed-file.js';
import { boolOf, commitOptionsOf, openGitView, renderCommits } from '../code/git-data.js';

/** The commits a pull request's changes are read between: its merge base, and its head as kept in the base repository. */
async function rangeOf(deps: Deps, repo: LoadedRepo, { pull }: LoadedPull): Promise<{ from: string; to: string }> {
  const reader = deps.git.open(repo.repo);
  const to = pull.has_merged ? pull.head_commit_id : ((await reader.objects.refTarget(pullHeadRef(pull.index))) ?? pull.head_commit_id);
  if (!to || !pull.merge_base) throw notFound('pull request has no commits to compare');
  return { from: pull.merge_base, to };
}

/**
 * A pull request's changes as a diff or a patch (Gitea's DownloadDiffOrPatch), as text: the API's
 * `/pulls/{index}.{diffType}` and the web's `/{owner}/{repo}/pulls/{index}.diff|.patch` (`diff_url`, `patch_url`).
 */
export async function pullDiffReply(deps: Deps, repo: LoadedRepo, index: number, type: string, binary: boolean): Promise<Reply> {
  if (type !== 'diff' && type !== 'patch') throw notFound();
  const loaded = await loadPull(deps, repo, index);
  const { from, to } = await rangeOf(deps, repo, loaded);
  return { status: 200, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, content: rangeDiff(deps.git.open(repo.repo), from, to, type, binary) };
}

/** Gitea's paging headers of the pull request's files and commits. */
function withPageHeaders(reply: Reply, page: Page, total: number): Reply {
  const pageCount = Math.ceil(total / page.limit);
  reply.headers = {
    ...reply.headers,
    'X-Page': String(page.page), 'X-PerPage': String(page.limit), 'X-PageCount': String(pageCount), 'X-HasMore': String(page.page < pageCount),
    'Access-Control-Expose-Headers': 'X-Total-Count, X-Page, X-PerPage, X-PageCount, X-HasMore, Link',
  };
  return reply;
}

export const pullChangeRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/pulls/{index}/files', operationId: 'repoGetPullRequestFiles', summary: 'Get changed files for a pull request',
    tag: 'repository', scope: 'read:repository', repo: { unit: 'repo.pulls' }, ids: ['index'], paginated: true,
    query: z.object({ 'skip-to': z.string().optional(), whitespace: z.enum(['ignore-all', 'ignore-change', 'ignore-eol', 'show-all']).optional() }),
    responses: { 200: 'ChangedFileList', 404: 'notFound' },
    handle: async ({ deps, repo, ids, query, page, list }) => {
      const loaded = await loadPull(deps, repo, ids.index);
      const { from, to } = await rangeOf(deps, repo, loaded);
      let files = await changedPaths(deps.git.open(repo.repo), from, to, query.whitespace);
      const skipTo = query['skip-to'];
      if (skipTo) {
        const at = files.findIndex((file) => file.filename === skipTo);
        files = at === -1 ? [] : files.slice(at);
      }
      const headRepo = (await findHeadRepo(deps.db, repo.repo, loaded.pull)) ?? repo.repo;
      const shown = files.slice(page.offset, page.offset + page.limit).map((file) => renderChangedFile(file, headRepo, to, deps.config));
      return withPageHeaders(list(shown, files.length), page, files.length);
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/pulls/{index}/commits', operationId: 'repoGetPullRequestCommits', summary: 'Get commits for a pull request',
    tag: 'repository', scope: 'read:repository', repo: { unit: 'repo.pulls' }, ids: ['index'], paginated: true,
    query: z.object({ verification: z.string().optional(), files: z.string().optional() }),
    responses: { 200: 'CommitList', 404: 'notFound' },
    handle: async ({ deps, repo, doer, ids, query, page, list }) => {
      const loaded = await loadPull(deps, repo, ids.index);
      const view = openGitView(deps, repo);
      const to = loaded.pull.has_merged ? loaded.pull.head_commit_id : ((await view.reader.objects.refTarget(pullHeadRef(loaded.pull.index))) ?? loaded.pull.head_commit_id);
      const base = loaded.pull.has_merged ? loaded.pull.merge_base : ((await view.reader.branchHead(loaded.pull.base_branch)) ?? loaded.pull.merge_base);
      const options = { ...commitOptionsOf(query), stat: true };
      const { commits, changes, total } = await view.reader.historyPage({ rev: to, not: base || undefined, skip: page.offset, max: page.limit }, options);
      const rendered = await renderCommits(deps, view, doer, commits, options, changes);
      return withPageHeaders(list(rendered, total), page, total);
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/pulls/{index}.{diffType}', operationId: 'repoDownloadPullDiffOrPatch', summary: 'Get a pull request diff or patch',
    tag: 'repository', scope: 'read:repository', repo: { unit: 'repo.pulls' }, ids: ['index'], query: z.object({ binary: z.string().optional() }),
    responses: { 200: 'string', 404: 'notFound' },
    handle: async ({ deps, repo, ids, params, query }) => pullDiffReply(deps, repo, ids.index, params.diffType, boolOf(query.binary)),
  }),
];
