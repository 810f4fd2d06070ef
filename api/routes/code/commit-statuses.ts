import { z } from 'zod';
import { limits, text } from '../../http/fields.js';
import { inTx } from '../../../db/data-source.js';
import {
  combineStates, commitStatusSorts, commitStatusStates, createCommitStatus, listCommitStatuses, listLatestCommitStatuses,
  resolveCommitRef, resolveStatusSha, type CommitStatusRow,
} from '../../../db/models/code/commit-statuses.js';
import { loadCommitStatusViews } from '../../../db/views/commit-statuses.js';
import type { RepoRow } from '../../../db/models/repos/repo-row.js';
import type { Deps } from '../../deps.js';
import { created, ok, route } from '../../http/route.js';
import type { LoadedRepo } from '../../context/repo.js';
import { renderCombinedStatus, renderCommitStatus, type ApiCommitStatus } from '../../render/commit-status.js';
import { renderRepository } from '../../render/repository.js';

const createStatusBody = z.object({
  state: z.enum(commitStatusStates),
  target_url: text(limits.url).optional(),
  description: text(limits.text).optional(),
  context: text(limits.name).optional(),
});

// Gitea ignores a sort or state it does not know; so do we.
const listQuery = z.object({
  sort: z.enum(commitStatusSorts).optional().catch(undefined),
  state: z.enum(commitStatusStates).optional().catch(undefined),
});
const codeReader = { unit: 'repo.code' } as const;

async function renderStatuses(deps: Deps, loaded: LoadedRepo, rows: CommitStatusRow[]): Promise<ApiCommitStatus[]> {
  return (await loadCommitStatusViews(deps.db, rows)).map((view) => renderCommitStatus(view, loaded, deps.config));
}

/** The two status lists differ only in how the path names the commit. */
function listRoute(path: string, operationId: string, summary: string, commitOf: (deps: Deps, repo: RepoRow, params: Record<string, string>) => Promise<string>) {
  return route({
    method: 'get', path, operationId, summary, tag: 'repository',
    scope: 'read:repository', repo: codeReader, query: listQuery, paginated: true, responses: { 200: 'CommitStatusList', 400: 'error' },
    handle: async ({ deps, repo, params, query, page, list }) => {
      const { rows, total } = await listCommitStatuses(deps.db, repo.repo.id, await commitOf(deps, repo.repo, params), query, page);
      return list(await renderStatuses(deps, repo, rows), total);
    },
  });
}

export const commitStatusRoutes = [
  route({
    method: 'post', path: '/repos/{owner}/{repo}/statuses/{sha}', operationId: 'repoCreateStatus', summary: 'Create a commit status', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: { unit: 'repo.code', mode: 'write' }, body: createStatusBody,
    responses: { 201: 'CommitStatus', 400: 'error', 422: 'validationError' },
    handle: async ({ deps, repo, doer, params, body }) => {
      const row = await inTx(deps, (tx) => createCommitStatus(tx, deps, repo.repo, doer, params.sha, body));
      return created(renderCommitStatus({ status: row, creator: doer }, repo, deps.config));
    },
  }),
  listRoute('/repos/{owner}/{repo}/statuses/{sha}', 'repoListStatuses', "Get a commit's statuses", (deps, repo, params) =>
    resolveStatusSha(deps.git, repo, params.sha)),
  listRoute('/repos/{owner}/{repo}/commits/{ref}/statuses', 'repoListStatusesByRef', "Get a commit's statuses, by branch/tag/commit reference",
    (deps, repo, params) => resolveCommitRef(deps.git, repo, params.ref)),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/commits/{ref}/status', operationId: 'repoGetCombinedStatusByRef',
    summary: "Get a commit's combined status, by branch/tag/commit reference", tag: 'repository',
    scope: 'read:repository', repo: codeReader, paginated: true, responses: { 200: 'CombinedStatus', 400: 'error' },
    handle: async ({ deps, repo, doer, params, page }) => {
      const sha = await resolveCommitRef(deps.git, repo.repo, params.ref);
      const { rows, total } = await listLatestCommitStatuses(deps.db, repo.repo.id, sha, page);
      const statuses = await renderStatuses(deps, repo, rows);
      const repository = renderRepository({ ...repo, mode: repo.repoMode }, doer, deps.config);
      const reply = ok(renderCombinedStatus(combineStates(rows.map((r) => r.state)), sha, total, statuses, repository));
      return { ...reply, headers: { 'X-Total-Count': String(total) } };
    },
  }),
];
