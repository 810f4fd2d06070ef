import { z } from 'zod';
import { limits, refName, text } from '../../http/fields.js';
import { inTx } from '../../../db/data-source.js';
import {
  createRelease, deleteRelease, editPublishedRelease, editRelease, getLatestRelease, getRelease, getReleaseByTag, listReleases, releasePreload,
  type ReleaseRow,
} from '../../../db/models/releases/releases.js';
import { accessModes } from '../../../db/models/repos/repo-row.js';
import { loadReleaseView, loadReleaseViews } from '../../../db/views/releases.js';
import type { LoadedRepo } from '../../context/repo.js';
import type { Deps } from '../../deps.js';
import { created, noContent, ok, route } from '../../http/route.js';
import { renderRelease, type ApiRelease } from '../../render/release.js';

const createReleaseBody = z.object({
  tag_name: refName().min(1),
  target_commitish: refName().optional(),
  name: text(limits.name).optional(),
  body: z.string().optional(),
  draft: z.boolean().optional(),
  prerelease: z.boolean().optional(),
});
const editReleaseBody = createReleaseBody.partial();

const listQuery = z.object({
  draft: z.stringbool().optional(),
  'pre-release': z.stringbool().optional(),
});

/** Writers see drafts; everyone else sees only published releases. */
export const seesDrafts = (loaded: LoadedRepo): boolean => loaded.mode >= accessModes.write;

/** Gitea's reqRepoReader(unit.TypeReleases) and reqRepoWriter(unit.TypeReleases). */
export const releasesReader = { unit: 'repo.releases' } as const;
export const releasesWriter = { unit: 'repo.releases', mode: 'write' } as const;

export async function renderReleases(deps: Deps, loaded: LoadedRepo, rows: ReleaseRow[]): Promise<ApiRelease[]> {
  return (await loadReleaseViews(deps.db, rows)).map((view) => renderRelease(view, loaded, deps.config));
}

export async function renderOne(deps: Deps, loaded: LoadedRepo, row: ReleaseRow): Promise<ApiRelease> {
  return renderRelease(await loadReleaseView(deps.db, row), loaded, deps.config);
}

export const releaseRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/releases', operationId: 'repoListReleases', summary: "List a repo's releases", tag: 'repository',
    scope: 'read:repository', repo: releasesReader, query: listQuery, paginated: true, responses: { 200: 'ReleaseList' },
    handle: async ({ deps, repo, query, page, list }) => {
      const filter = { includeDrafts: seesDrafts(repo), draft: query.draft, prerelease: query['pre-release'] };
      const { rows, total } = await listReleases(deps.db, repo.repo.id, filter, page);
      return list(await renderReleases(deps, repo, rows), total);
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/releases', operationId: 'repoCreateRelease', summary: 'Create a release', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: releasesWriter, body: createReleaseBody,
    responses: { 201: 'Release', 409: 'error', 422: 'validationError' },
    handle: async ({ deps, repo, doer, body }) => {
      const row = await inTx(deps, (tx) => createRelease(tx, deps, repo.repo, doer, body));
      return created(await renderOne(deps, repo, row));
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/releases/latest', operationId: 'repoGetLatestRelease',
    summary: 'Gets the most recent non-prerelease, non-draft release of a repository, sorted by created_at', tag: 'repository',
    scope: 'read:repository', repo: releasesReader, responses: { 200: 'Release' },
    handle: async ({ deps, repo }) => ok(await renderOne(deps, repo, await getLatestRelease(deps.db, repo.repo.id))),
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/releases/tags/{tag}', rest: 'tag', operationId: 'repoGetReleaseByTag', summary: 'Get a release by tag name', tag: 'repository',
    scope: 'read:repository', repo: releasesReader, responses: { 200: 'Release' },
    handle: async ({ deps, repo, params }) => ok(await renderOne(deps, repo, await getReleaseByTag(deps.db, repo.repo.id, params.tag, seesDrafts(repo)))),
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/releases/tags/{tag}', rest: 'tag', operationId: 'repoDeleteReleaseByTag', summary: 'Delete a release by tag name', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: releasesWriter, responses: { 204: 'empty', 422: 'validationError' },
    handle: async ({ deps, repo, doer, params }) => {
      const release = await getReleaseByTag(deps.db, repo.repo.id, params.tag, true);
      await inTx(deps, (tx) => deleteRelease(tx, deps, repo.repo, release.id, doer));
      return noContent();
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/releases/{id}', operationId: 'repoGetRelease', summary: 'Get a release', tag: 'repository',
    scope: 'read:repository', repo: releasesReader, ids: ['id'], responses: { 200: 'Release' },
    handle: async ({ deps, repo, ids }) => ok(await renderOne(deps, repo, await getRelease(deps.db, repo.repo.id, ids.id, seesDrafts(repo)))),
  }),
  route({
    method: 'patch', path: '/repos/{owner}/{repo}/releases/{id}', operationId: 'repoEditRelease', summary: 'Update a release', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: releasesWriter, ids: ['id'], body: editReleaseBody,
    responses: { 200: 'Release', 409: 'error', 422: 'validationError' },
    preload: ({ ids }) => releasePreload(ids.id),
    handle: async ({ deps, repo, doer, ids, body, preloaded }) => {
      // most edits keep a published release published under its tag: one statement, when the row is still as read
      const edited = preloaded && (await editPublishedRelease(deps.db, deps, repo.repo, preloaded, doer, body));
      if (edited) return ok(renderRelease(edited, repo, deps.config));
      const row = await inTx(deps, (tx) => editRelease(tx, deps, repo.repo, ids.id, doer, body));
      return ok(await renderOne(deps, repo, row));
    },
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/releases/{id}', operationId: 'repoDeleteRelease', summary: 'Delete a release', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: releasesWriter, ids: ['id'], responses: { 204: 'empty', 422: 'validationError' },
    handle: async ({ deps, repo, doer, ids }) => {
      await inTx(deps, (tx) => deleteRelease(tx, deps, repo.repo, ids.id, doer));
      return noContent();
    },
  }),
];
