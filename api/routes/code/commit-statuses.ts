import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import {
  combineStates, commitStatusSorts, commitStatusStates, createCommitStatus, listCommitStatuses,
  listLatestCommitStatuses, resolveCommitRef, resolveStatusSha, type CommitStatusRow,
} from '../../../db/models/code/commit-statuses.js';
import { accessModes } from '../../../db/models/repos/repo-row.js';
import { findUsersByIds } from '../../../db/models/users/users.js';
import type { Deps } from '../../deps.js';
import { pageOf, paged } from '../../http/pagination.js';
import { created, ok, route, type Context } from '../../http/route.js';
import { doerOf } from '../../context/user.js';
import { requireMode, type LoadedRepo } from '../../context/repo.js';
import { renderCombinedStatus, renderCommitStatus, type ApiCommitStatus } from '../../render/commit-status.js';
import { renderRepository } from '../../render/repository.js';
import { loadRepoUnit } from '../releases/releases.js';

const createStatusBody = z.object({
  state: z.enum(commitStatusStates),
  target_url: z.string().optional(),
  description: z.string().optional(),
  context: z.string().optional(),
});

// Gitea ignores a sort or state it does not know; so do we.
const listQuery = z.object({
  sort: z.enum(commitStatusSorts).optional().catch(undefined),
  state: z.enum(commitStatusStates).optional().catch(undefined),
});
type ListQuery = z.infer<typeof listQuery> & { page?: number; limit?: number };

async function presentStatuses(deps: Deps, loaded: LoadedRepo, rows: CommitStatusRow[]): Promise<ApiCommitStatus[]> {
  const creators = await findUsersByIds(deps.db, rows.map((r) => r.creator_id));
  return rows.map((row) => renderCommitStatus(row, creators.get(row.creator_id ?? 0) ?? null, loaded, deps.config));
}

async function listStatuses(ctx: Context<undefined, ListQuery>, loaded: LoadedRepo, sha: string) {
  const page = pageOf(ctx.query);
  const { rows, total } = await listCommitStatuses(ctx.deps.db, loaded.repo.id, sha, ctx.query, page);
  const url = ctx.url;
  return paged(await presentStatuses(ctx.deps, loaded, rows), total, page, url);
}

export const commitStatusRoutes = [
  route<z.infer<typeof createStatusBody>>({
    method: 'post', path: '/repos/{owner}/{repo}/statuses/{sha}', operationId: 'repoCreateStatus', summary: 'Create a commit status', tag: 'repository',
    scope: 'write:repository', signedIn: true, body: createStatusBody,
    responses: { 201: 'CommitStatus', 400: 'error', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, caller, params, body }) => {
      const loaded = await loadRepoUnit(deps, caller, params, 'repo.code');
      requireMode(loaded, accessModes.write);
      const doer = doerOf(caller);
      const row = await inTx(deps, (tx) => createCommitStatus(tx, deps, loaded.repo, doer, params.sha, body));
      return created(renderCommitStatus(row, doer, loaded, deps.config));
    },
  }),
  route<undefined, ListQuery>({
    method: 'get', path: '/repos/{owner}/{repo}/statuses/{sha}', operationId: 'repoListStatuses', summary: "Get a commit's statuses", tag: 'repository',
    scope: 'read:repository', query: listQuery, paginated: true, responses: { 200: 'CommitStatusList', 400: 'error', 404: 'notFound' },
    handle: async (ctx) => {
      const loaded = await loadRepoUnit(ctx.deps, ctx.caller, ctx.params, 'repo.code');
      return listStatuses(ctx, loaded, await resolveStatusSha(ctx.deps.git, loaded.repo, ctx.params.sha));
    },
  }),
  route<undefined, ListQuery>({
    method: 'get', path: '/repos/{owner}/{repo}/commits/{ref}/statuses', operationId: 'repoListStatusesByRef',
    summary: "Get a commit's statuses, by branch/tag/commit reference", tag: 'repository',
    scope: 'read:repository', query: listQuery, paginated: true, responses: { 200: 'CommitStatusList', 400: 'error', 404: 'notFound' },
    handle: async (ctx) => {
      const loaded = await loadRepoUnit(ctx.deps, ctx.caller, ctx.params, 'repo.code');
      return listStatuses(ctx, loaded, await resolveCommitRef(ctx.deps.git, loaded.repo, ctx.params.ref));
    },
  }),
  route<undefined, { page?: number; limit?: number }>({
    method: 'get', path: '/repos/{owner}/{repo}/commits/{ref}/status', operationId: 'repoGetCombinedStatusByRef',
    summary: "Get a commit's combined status, by branch/tag/commit reference", tag: 'repository',
    scope: 'read:repository', paginated: true, responses: { 200: 'CombinedStatus', 400: 'error', 404: 'notFound' },
    handle: async ({ deps, caller, params, query }) => {
      const loaded = await loadRepoUnit(deps, caller, params, 'repo.code');
      const sha = await resolveCommitRef(deps.git, loaded.repo, params.ref);
      const { rows, total } = await listLatestCommitStatuses(deps.db, loaded.repo.id, sha, pageOf(query));
      const statuses = await presentStatuses(deps, loaded, rows);
      const repository = renderRepository({ ...loaded, mode: loaded.repoMode }, caller.user, deps.config);
      const reply = ok(renderCombinedStatus(combineStates(rows.map((r) => r.state)), sha, total, statuses, repository));
      return { ...reply, headers: { 'X-Total-Count': String(total) } };
    },
  }),
];
