import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { forbidden, notFound } from '../../../db/errors.js';
import { listReleaseAttachments } from '../../../db/models/releases/attachments.js';
import {
  createRelease, deleteRelease, editRelease, getLatestRelease, getRelease, getReleaseByTag, listReleases,
  type ReleaseRow,
} from '../../../db/models/releases/releases.js';
import { accessModeOf } from '../../../db/models/access.js';
import { accessModes, type AccessMode } from '../../../db/models/repos/repo-row.js';
import { findUsersByIds } from '../../../db/models/users/users.js';
import type { UnitKey } from '../../../db/models/orgs/teams.js';
import type { Caller } from '../../auth/caller.js';
import type { Deps } from '../../deps.js';
import { pageOf, paged } from '../../http/pagination.js';
import { created, noContent, ok, route } from '../../http/route.js';
import { doerOf } from '../../context/user.js';
import { loadRepo, requireMode, type LoadedRepo } from '../../context/repo.js';
import { renderRelease, type ApiRelease } from '../../render/release.js';

const createReleaseBody = z.object({
  tag_name: z.string().min(1),
  target_commitish: z.string().optional(),
  name: z.string().optional(),
  body: z.string().optional(),
  draft: z.boolean().optional(),
  prerelease: z.boolean().optional(),
});
const editReleaseBody = createReleaseBody.partial();

const listQuery = z.object({
  draft: z.stringbool().optional(),
  'pre-release': z.stringbool().optional(),
});

/** A repository loaded for one unit: `mode` is the caller's mode for that unit, `repoMode` the overall one. */
export interface UnitRepo extends LoadedRepo {
  repoMode: AccessMode;
}

/**
 * Gitea's reqRepoReader(unit): the repository as `loadRepo` finds it, then 403 unless the caller may read the
 * unit (a disabled releases unit reads as none), repository administrators excepted. Guards after it
 * (requireMode) then judge the unit's mode, so a team with read-only releases cannot write them.
 */
export async function loadRepoUnit(deps: Deps, caller: Caller, params: Record<string, string>, unit: UnitKey): Promise<UnitRepo> {
  const loaded = await loadRepo(deps, caller, params.owner, params.repo);
  const enabled = unit !== 'repo.releases' || loaded.repo.has_releases;
  const mode = enabled ? await accessModeOf(deps.db, caller.user, loaded.repo, unit) : accessModes.none;
  if (mode < accessModes.read && loaded.mode < accessModes.admin) {
    throw forbidden('user should have specific read permission or be a repo admin or a site admin');
  }
  const unitMode = loaded.mode >= accessModes.admin ? (Math.max(mode, loaded.mode) as AccessMode) : mode;
  return { ...loaded, mode: unitMode, repoMode: loaded.mode };
}

export const loadReleasesRepo = (deps: Deps, caller: Caller, params: Record<string, string>): Promise<UnitRepo> =>
  loadRepoUnit(deps, caller, params, 'repo.releases');

/** Writers see drafts; everyone else sees only published releases. */
export const seesDrafts = (loaded: LoadedRepo): boolean => loaded.mode >= accessModes.write;

/** A numeric path id; anything else (or out of bigint range) names nothing. */
export function idParam(value: string): number {
  if (!/^\d{1,15}$/.test(value)) throw notFound();
  return Number(value);
}

export async function presentReleases(deps: Deps, loaded: LoadedRepo, rows: ReleaseRow[]): Promise<ApiRelease[]> {
  const [publishers, attachments] = await Promise.all([
    findUsersByIds(deps.db, rows.map((r) => r.publisher_id)),
    listReleaseAttachments(deps.db, rows.map((r) => r.id)),
  ]);
  return rows.map((row) =>
    renderRelease(row, loaded, publishers.get(row.publisher_id ?? 0) ?? null, attachments.get(row.id) ?? [], deps.config),
  );
}

async function presentRelease(deps: Deps, loaded: LoadedRepo, row: ReleaseRow): Promise<ApiRelease> {
  return (await presentReleases(deps, loaded, [row]))[0];
}


type ListQuery = z.infer<typeof listQuery> & { page?: number; limit?: number };

export const releaseRoutes = [
  route<undefined, ListQuery>({
    method: 'get', path: '/repos/{owner}/{repo}/releases', operationId: 'repoListReleases', summary: "List a repo's releases", tag: 'repository',
    scope: 'read:repository', query: listQuery, paginated: true, responses: { 200: 'ReleaseList', 404: 'notFound' },
    handle: async (ctx) => {
      const { deps, caller, params, query } = ctx;
      const loaded = await loadReleasesRepo(deps, caller, params);
      const page = pageOf(query);
      const filter = { includeDrafts: seesDrafts(loaded), draft: query.draft, prerelease: query['pre-release'] };
      const { rows, total } = await listReleases(deps.db, loaded.repo.id, filter, page);
      return paged(await presentReleases(deps, loaded, rows), total, page, ctx.url);
    },
  }),
  route<z.infer<typeof createReleaseBody>>({
    method: 'post', path: '/repos/{owner}/{repo}/releases', operationId: 'repoCreateRelease', summary: 'Create a release', tag: 'repository',
    scope: 'write:repository', signedIn: true, body: createReleaseBody,
    responses: { 201: 'Release', 404: 'notFound', 409: 'error', 422: 'validationError' },
    handle: async ({ deps, caller, params, body }) => {
      const loaded = await loadReleasesRepo(deps, caller, params);
      requireMode(loaded, accessModes.write);
      const row = await inTx(deps, (tx) => createRelease(tx, deps, loaded.repo, doerOf(caller), body));
      return created(await presentRelease(deps, loaded, row));
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/releases/latest', operationId: 'repoGetLatestRelease',
    summary: 'Gets the most recent non-prerelease, non-draft release of a repository, sorted by created_at', tag: 'repository',
    scope: 'read:repository', responses: { 200: 'Release', 404: 'notFound' },
    handle: async ({ deps, caller, params }) => {
      const loaded = await loadReleasesRepo(deps, caller, params);
      return ok(await presentRelease(deps, loaded, await getLatestRelease(deps.db, loaded.repo.id)));
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/releases/tags/{tag}', rest: 'tag', operationId: 'repoGetReleaseByTag', summary: 'Get a release by tag name', tag: 'repository',
    scope: 'read:repository', responses: { 200: 'Release', 404: 'notFound' },
    handle: async ({ deps, caller, params }) => {
      const loaded = await loadReleasesRepo(deps, caller, params);
      return ok(await presentRelease(deps, loaded, await getReleaseByTag(deps.db, loaded.repo.id, params.tag, seesDrafts(loaded))));
    },
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/releases/tags/{tag}', rest: 'tag', operationId: 'repoDeleteReleaseByTag', summary: 'Delete a release by tag name', tag: 'repository',
    scope: 'write:repository', signedIn: true, responses: { 204: 'empty', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, caller, params }) => {
      const loaded = await loadReleasesRepo(deps, caller, params);
      requireMode(loaded, accessModes.write);
      const release = await getReleaseByTag(deps.db, loaded.repo.id, params.tag, true);
      await inTx(deps, (tx) => deleteRelease(tx, deps, loaded.repo, release, doerOf(caller)));
      return noContent();
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/releases/{id}', operationId: 'repoGetRelease', summary: 'Get a release', tag: 'repository',
    scope: 'read:repository', responses: { 200: 'Release', 404: 'notFound' },
    handle: async ({ deps, caller, params }) => {
      const loaded = await loadReleasesRepo(deps, caller, params);
      return ok(await presentRelease(deps, loaded, await getRelease(deps.db, loaded.repo.id, idParam(params.id), seesDrafts(loaded))));
    },
  }),
  route<z.infer<typeof editReleaseBody>>({
    method: 'patch', path: '/repos/{owner}/{repo}/releases/{id}', operationId: 'repoEditRelease', summary: 'Update a release', tag: 'repository',
    scope: 'write:repository', signedIn: true, body: editReleaseBody,
    responses: { 200: 'Release', 404: 'notFound', 409: 'error', 422: 'validationError' },
    handle: async ({ deps, caller, params, body }) => {
      const loaded = await loadReleasesRepo(deps, caller, params);
      requireMode(loaded, accessModes.write);
      const release = await getRelease(deps.db, loaded.repo.id, idParam(params.id), true);
      const row = await inTx(deps, (tx) => editRelease(tx, deps, loaded.repo, release, doerOf(caller), body));
      return ok(await presentRelease(deps, loaded, row));
    },
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/releases/{id}', operationId: 'repoDeleteRelease', summary: 'Delete a release', tag: 'repository',
    scope: 'write:repository', signedIn: true, responses: { 204: 'empty', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, caller, params }) => {
      const loaded = await loadReleasesRepo(deps, caller, params);
      requireMode(loaded, accessModes.write);
      const release = await getRelease(deps.db, loaded.repo.id, idParam(params.id), true);
      await inTx(deps, (tx) => deleteRelease(tx, deps, loaded.repo, release, doerOf(caller)));
      return noContent();
    },
  }),
];
