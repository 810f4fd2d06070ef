import { z } from 'zod';
import { notFound } from '../../../db/errors.js';
import { inTx } from '../../../db/data-source.js';
import { deleteVersion, getVersion, listFiles, packageTypes } from '../../../db/models/packages/packages.js';
import { listOwnerVersions, loadPackageViews } from '../../../db/views/packages.js';
import { renderPackage, renderPackageFile } from '../../render/package.js';
import { loadPackageOwner } from '../../context/package-owner.js';
import { noContent, ok, route } from '../../http/route.js';

const listQuery = z.object({ type: z.enum(packageTypes).optional(), q: z.string().optional() });

/** Gitea's package management operations (the registries themselves live under /api/packages, see api/packages). */
export const packageRoutes = [
  route({
    method: 'get', path: '/packages/{owner}', operationId: 'listPackages', summary: 'Gets all packages of an owner', tag: 'package',
    scope: 'read:package', signedIn: true, query: listQuery, paginated: true, responses: { 200: 'PackageList' },
    handle: async ({ deps, caller, doer, params, query, page, list }) => {
      const owner = await loadPackageOwner(deps, caller, params.owner, 'read');
      const { rows, total } = await listOwnerVersions(deps.db, owner, query, page);
      return list(rows.map((view) => renderPackage(view, doer, deps.config)), total);
    },
  }),
  route({
    method: 'get', path: '/packages/{owner}/{type}/{name}/{version}', operationId: 'getPackage', summary: 'Gets a package', tag: 'package',
    scope: 'read:package', signedIn: true, responses: { 200: 'Package' },
    handle: async ({ deps, caller, doer, params }) => {
      const owner = await loadPackageOwner(deps, caller, params.owner, 'read');
      const found = await getVersion(deps.db, owner.id, packageTypeOf(params.type), params.name, params.version);
      const [view] = await loadPackageViews(deps.db, owner, [found]);
      return ok(renderPackage(view, doer, deps.config));
    },
  }),
  route({
    method: 'delete', path: '/packages/{owner}/{type}/{name}/{version}', operationId: 'deletePackage', summary: 'Delete a package', tag: 'package',
    scope: 'write:package', signedIn: true, responses: { 204: 'empty' },
    handle: async ({ deps, caller, doer, params }) => {
      const owner = await loadPackageOwner(deps, caller, params.owner, 'write');
      await inTx(deps, async (tx) => {
        const { version } = await getVersion(tx, owner.id, packageTypeOf(params.type), params.name, params.version);
        await deleteVersion(tx, deps.blobs, version, doer);
      });
      return noContent();
    },
  }),
  route({
    method: 'get', path: '/packages/{owner}/{type}/{name}/{version}/files', operationId: 'listPackageFiles', summary: 'Gets all files of a package', tag: 'package',
    scope: 'read:package', signedIn: true, responses: { 200: 'PackageFileList' },
    handle: async ({ deps, caller, params }) => {
      const owner = await loadPackageOwner(deps, caller, params.owner, 'read');
      const { version } = await getVersion(deps.db, owner.id, packageTypeOf(params.type), params.name, params.version);
      const files = (await listFiles(deps.db, [version.id])).get(version.id) ?? [];
      return ok(files.map(renderPackageFile));
    },
  }),
];

/** A type Hearth does not serve has no packages: the same 404 as a missing one. */
function packageTypeOf(type: string): (typeof packageTypes)[number] {
  const known = packageTypes.find((t) => t === type);
  if (!known) throw notFoundPackage();
  return known;
}

function notFoundPackage(): Error {
  return notFound('package does not exist');
}
