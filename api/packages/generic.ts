import { badRequest, notFound } from '../../db/errors.js';
import { inTx } from '../../db/data-source.js';
import { storePackageUpload, withUpload } from '../../db/models/packages/blobs.js';
import { addFile, countDownload, createVersion, deleteFile, deleteVersion, findFile, getVersion, uploadLimit } from '../../db/models/packages/packages.js';
import type { Deps } from '../deps.js';
import { declaredLength } from './body.js';
import { plainTextError, Registry, writer, type RegistryContext } from './registry.js';
import { serveFile } from './serve.js';

const packageName = /^[-_+.\w]+$/;
const fileName = /^[-_+=:;.()[\]{}~!@#$%^& \w]+$/;

function checkPath(ctx: RegistryContext): { name: string; version: string; file?: string } {
  const { name, version, file } = ctx.req.params as Record<string, string | undefined>;
  if (!name || !packageName.test(name) || !version || version.trim() !== version || version.length > 255) {
    throw badRequest('invalid package name or version');
  }
  if (file !== undefined && (!fileName.test(file) || file.trim() !== file || file.length > 255)) throw badRequest('invalid filename');
  return { name, version, file };
}

/** Gitea's generic registry: any file under `{name}/{version}/{file}`, answered in plain text. */
export function genericRegistry(deps: Deps): Registry {
  const registry = new Registry(deps, 'generic', plainTextError);

  registry.get('/:name/:version/:file', 'read', async (ctx) => {
    const path = checkPath(ctx);
    const { version } = await getVersion(deps.db, ctx.owner.id, 'generic', path.name, path.version);
    const file = await findFile(deps.db, version.id, path.file!);
    if (!file) throw notFound('package file does not exist', 'package file does not exist');
    await countDownload(deps.db, version.id);
    await serveFile(ctx.res, deps, file);
  });

  registry.put('/:name/:version/:file', 'write', async (ctx) => {
    const path = checkPath(ctx);
    const doer = writer(ctx);
    const limit = await uploadLimit(deps.db, deps.config, ctx.owner, 'generic', declaredLength(ctx.req));
    const upload = await storePackageUpload(deps, ctx.req, limit);
    await withUpload(deps.blobs, upload, () => inTx(deps, async (tx) => {
      const { pkg, version } = await createVersion(tx, deps.config, { owner: ctx.owner, creator: doer, type: 'generic', name: path.name, version: path.version }, 'reuse');
      await addFile(tx, deps, ctx.owner, pkg, version, upload, { name: path.file!, isLead: true });
    }));
    ctx.res.status(201).end();
  });

  registry.delete('/:name/:version', 'write', async (ctx) => {
    const path = checkPath(ctx);
    await inTx(deps, async (tx) => {
      const { version } = await getVersion(tx, ctx.owner.id, 'generic', path.name, path.version);
      await deleteVersion(tx, deps.blobs, version, writer(ctx));
    });
    ctx.res.status(204).end();
  });

  registry.delete('/:name/:version/:file', 'write', async (ctx) => {
    const path = checkPath(ctx);
    await inTx(deps, async (tx) => {
      const { version } = await getVersion(tx, ctx.owner.id, 'generic', path.name, path.version);
      const file = await findFile(tx, version.id, path.file!);
      if (!file) throw notFound('package file does not exist', 'package file does not exist');
      await deleteFile(tx, deps.blobs, file);
    });
    ctx.res.status(204).end();
  });

  return registry;
}
