import { inTx } from '../../db/data-source.js';
import { badRequest, notFound, tooLarge } from '../../db/errors.js';
import { storePackageUpload, withUpload } from '../../db/models/packages/blobs.js';
import { checkCrateName, indexPath, parseCargoMetadata, type CargoMetadata } from '../../db/models/packages/cargo.js';
import {
  addFile, countDownload, createVersion, findFile, findPackage, findVersion, getPackage, listFiles, listVersions, searchCrates, setVersionMetadata,
  uploadLimit,
} from '../../db/models/packages/packages.js';
import { visibilities } from '../../db/models/users/user-row.js';
import type { Deps } from '../deps.js';
import { BodyReader } from './body.js';
import { Registry, writer, type RegistryContext } from './registry.js';
import { serveFile } from './serve.js';

/** The JSON metadata before the .crate in a publish request is read whole; the .crate streams to the blob store. */
const metadataLimit = 16 * 1024 * 1024;

function crateOf(ctx: RegistryContext): string {
  const name = String(ctx.req.params.package);
  checkCrateName(name);
  return name;
}

/** Gitea's Cargo registry: the sparse index, publish, download, yank/unyank, owners and search; errors as `{ "errors": [{ "detail" }] }`. */
export function cargoRegistry(deps: Deps): Registry {
  const registry = new Registry(deps, 'cargo', (res, status, message) => {
    res.status(status).json({ errors: [{ detail: message }] });
  });

  registry.get('/config.json', 'read', async (ctx) => {
    ctx.res.json({ dl: `${ctx.base}/api/v1/crates`, api: ctx.base, 'auth-required': visibilities[ctx.owner.visibility] !== 'public' });
  });

  const index = async (ctx: RegistryContext): Promise<void> => {
    const name = crateOf(ctx);
    if (`${ctx.req.path.slice(1)}` !== indexPath(name)) throw notFound('package does not exist', 'package does not exist');
    const pkg = await findPackage(deps.db, ctx.owner.id, 'cargo', name);
    const versions = pkg ? await listVersions(deps.db, pkg.id) : [];
    if (!pkg || versions.length === 0) throw notFound('package does not exist', 'package does not exist');
    const files = await listFiles(deps.db, versions.map((v) => v.id));
    const lines = versions.map((version) => {
      const meta = version.metadata as unknown as CargoMetadata;
      return JSON.stringify({
        name: pkg.name, vers: version.version, deps: meta.deps, cksum: files.get(version.id)?.[0]?.blob.hash_sha256 ?? '',
        features: meta.features, yanked: meta.yanked, ...(meta.links ? { links: meta.links } : {}), ...(meta.rust_version ? { rust_version: meta.rust_version } : {}),
      });
    });
    ctx.res.status(200).type('text/plain').send(`${lines.join('\n')}\n`);
  };

  registry.get('/api/v1/crates', 'read', async (ctx) => {
    const q = typeof ctx.req.query.q === 'string' ? ctx.req.query.q.toLowerCase() : '';
    const perPage = Math.min(Math.max(Number(ctx.req.query.per_page) || 10, 1), 100);
    const { rows, total } = await searchCrates(deps.db, ctx.owner.id, q, perPage);
    ctx.res.json({ crates: rows.map((r) => ({ name: r.name, max_version: r.max_version, description: r.description ?? '' })), meta: { total } });
  });

  registry.put('/api/v1/crates/new', 'write', async (ctx) => {
    const doer = writer(ctx);
    const body = new BodyReader(ctx.req);
    const jsonLength = (await body.read(4, 'the publish request')).readUInt32LE(0);
    if (jsonLength > metadataLimit) throw tooLarge('the crate metadata is too large');
    const published = parseCargoMetadata(await body.read(jsonLength, 'the crate metadata'));
    const crateLength = (await body.read(4, 'the publish request')).readUInt32LE(0);
    if (crateLength === 0) throw badRequest('the crate file is empty');
    const limit = await uploadLimit(deps.db, deps.config, ctx.owner, 'cargo', crateLength);
    const upload = await storePackageUpload(deps, body.stream(crateLength, 'the crate file'), limit);
    await withUpload(deps.blobs, upload, () => inTx(deps, async (tx) => {
      const { pkg, version } = await createVersion(tx, deps.config, {
        owner: ctx.owner, creator: doer, type: 'cargo', name: published.name, version: published.version,
        metadata: published.metadata as unknown as Record<string, unknown>, semverCompatible: true,
      }, 'refuse');
      await addFile(tx, deps, ctx.owner, pkg, version, upload, { name: `${published.name}-${published.version}.crate`.toLowerCase(), isLead: true });
    }));
    ctx.res.json({ warnings: { invalid_categories: [], invalid_badges: [], other: [] } });
  });

  registry.get('/api/v1/crates/:package/:version/download', 'read', async (ctx) => {
    const pkg = await getPackage(deps.db, ctx.owner.id, 'cargo', crateOf(ctx));
    const version = await findVersion(deps.db, pkg.id, String(ctx.req.params.version));
    const file = version && (await findFile(deps.db, version.id, `${pkg.name}-${version.version}.crate`));
    if (!version || !file) throw notFound('package does not exist', 'package does not exist');
    await countDownload(deps.db, version.id);
    await serveFile(ctx.res, deps, file);
  });

  const setYanked = (yanked: boolean) => async (ctx: RegistryContext): Promise<void> => {
    const name = crateOf(ctx);
    await inTx(deps, async (tx) => {
      const pkg = await getPackage(tx, ctx.owner.id, 'cargo', name);
      const version = await findVersion(tx, pkg.id, String(ctx.req.params.version));
      if (!version) throw notFound('package does not exist', 'package does not exist');
      await setVersionMetadata(tx, version, { ...version.metadata, yanked });
    });
    ctx.res.json({ ok: true });
  };
  registry.delete('/api/v1/crates/:package/:version/yank', 'write', setYanked(true));
  registry.put('/api/v1/crates/:package/:version/unyank', 'write', setYanked(false));

  registry.get('/api/v1/crates/:package/owners', 'read', async (ctx) => {
    await getPackage(deps.db, ctx.owner.id, 'cargo', crateOf(ctx));
    ctx.res.json({ users: [{ id: ctx.owner.id, login: ctx.owner.name, name: ctx.owner.full_name || ctx.owner.name }] });
  });

  // last: `/{a}/{b}/{crate}` would also match the API's own three-segment paths
  for (const path of ['/1/:package', '/2/:package', '/3/:a/:package', '/:a/:b/:package']) registry.get(path, 'read', index);
  return registry;
}
