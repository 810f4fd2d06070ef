import semver from 'semver';
import { inTx } from '../../db/data-source.js';
import { badRequest, notFound } from '../../db/errors.js';
import { withUpload } from '../../db/models/packages/blobs.js';
import { checkNpmName, checkTag, dropTagsOf, listDistTags, parseNpmPublish, removeDistTag, setDistTag } from '../../db/models/packages/npm.js';
import {
  addFile, countDownload, createVersion, deleteVersion, findFile, findVersion, getPackage, listFiles, listVersions,
  searchPackagesByName, setVersionMetadata, uploadLimit, type PackageFileView, type PackageRow, type PackageVersionRow,
} from '../../db/models/packages/packages.js';
import type { Deps } from '../deps.js';
import { discardBody, readBody } from './body.js';
import { readNpmPublish } from './npm-publish.js';
import { Registry, writer, type RegistryContext } from './registry.js';
import { serveFile } from './serve.js';

/**
 * npm publishes its tarball base64-encoded inside the JSON document: the tarball streams to the blob store as it
 * is decoded, the rest of the document (manifest, readme) is kept up to this size.
 */
const documentLimit = 64 * 1024 * 1024;
/** Bodies npm sends that Hearth reads past (its own copy of the document after an unpublish). */
const publishLimit = 512 * 1024 * 1024;

function nameOf(ctx: RegistryContext): string {
  const { scope, id } = ctx.req.params as Record<string, string | undefined>;
  const name = scope ? `@${scope}/${id}` : String(id);
  checkNpmName(name);
  return name;
}

interface NpmVersion {
  version: PackageVersionRow;
  file: PackageFileView | undefined;
}

async function loadVersions(deps: Deps, pkg: PackageRow): Promise<NpmVersion[]> {
  const versions = await listVersions(deps.db, pkg.id);
  const files = await listFiles(deps.db, versions.map((v) => v.id));
  return versions.map((version) => ({ version, file: files.get(version.id)?.[0] }));
}

function tarballUrl(base: string, pkg: PackageRow, version: PackageVersionRow, file: PackageFileView | undefined): string {
  return `${base}/${encodeURIComponent(pkg.name)}/-/${encodeURIComponent(version.version)}/${encodeURIComponent(file?.name ?? '')}`;
}

/** The latest tag when none was set: the highest version that is not a pre-release, else the highest. */
function withLatest(tags: Record<string, string>, versions: NpmVersion[]): Record<string, string> {
  if (tags.latest || versions.length === 0) return tags;
  const names = versions.map((v) => v.version.version);
  const latest = semver.rsort(names.filter((v) => !semver.prerelease(v)))[0] ?? semver.rsort([...names])[0];
  return { ...tags, latest };
}

/** The packument npm reads for view and install. */
function packument(base: string, pkg: PackageRow, versions: NpmVersion[], tags: Record<string, string>): Record<string, unknown> {
  const time: Record<string, string> = {};
  const entries: Record<string, unknown> = {};
  for (const { version, file } of versions) {
    const manifest = version.metadata.manifest as Record<string, unknown>;
    entries[version.version] = {
      ...manifest,
      name: pkg.name,
      version: version.version,
      _id: `${pkg.name}@${version.version}`,
      ...(typeof version.metadata.deprecated === 'string' ? { deprecated: version.metadata.deprecated } : {}),
      dist: { integrity: version.metadata.integrity, shasum: version.metadata.shasum, tarball: tarballUrl(base, pkg, version, file) },
    };
    time[version.version] = version.created.toISOString();
  }
  const distTags = withLatest(tags, versions);
  const latest = entries[distTags.latest] as Record<string, unknown> | undefined;
  return {
    _id: pkg.name,
    name: pkg.name,
    description: latest?.description,
    'dist-tags': distTags,
    versions: entries,
    time: { created: pkg.created.toISOString(), modified: versions.at(-1)?.version.created.toISOString(), ...time },
    readme: latest?.readme ?? '',
    homepage: latest?.homepage,
    license: latest?.license,
    repository: latest?.repository,
    keywords: latest?.keywords,
    author: latest?.author,
  };
}

/** Gitea's npm registry: publish, install, view, dist-tags, unpublish, deprecate and search; errors as `{ "error": ... }`. */
export function npmRegistry(deps: Deps): Registry {
  const registry = new Registry(deps, 'npm', (res, status, message) => {
    res.status(status).json({ error: message });
  });
  // a scoped name comes as `@scope%2fname` (one segment) or `@scope/name`
  const both = (path: string): string[] => [`/:id${path}`, `/@:scope/:id${path}`];

  for (const path of both('')) {
    registry.get(path, 'read', async (ctx) => {
      const pkg = await getPackage(deps.db, ctx.owner.id, 'npm', nameOf(ctx));
      const versions = await loadVersions(deps, pkg);
      ctx.res.json(packument(ctx.base, pkg, versions, await listDistTags(deps.db, pkg)));
    });

    registry.put(path, 'write', async (ctx) => {
      const name = nameOf(ctx);
      const doer = writer(ctx);
      const limit = await uploadLimit(deps.db, deps.config, ctx.owner, 'npm');
      const { document, tarball } = await readNpmPublish(ctx.req, deps, documentLimit, limit);
      const work = async (): Promise<void> => {
        if (isDeprecation(document)) {
          await deprecate(ctx, name, document as { versions: Record<string, { deprecated?: unknown }> });
          ctx.res.status(200).json({ ok: true });
          return;
        }
        const published = parseNpmPublish(document, name, tarball);
        await inTx(deps, async (tx) => {
          const metadata = { manifest: published.manifest, integrity: published.integrity, shasum: published.shasum };
          const { pkg, version } = await createVersion(tx, deps.config, {
            owner: ctx.owner, creator: doer, type: 'npm', name: published.name, version: published.version, metadata, semverCompatible: true,
          }, 'refuse');
          await addFile(tx, deps, ctx.owner, pkg, version, tarball!, { name: published.filename, isLead: true });
          for (const [tag, target] of Object.entries(published.distTags)) await setDistTag(tx, pkg, tag, target);
        });
        ctx.res.status(201).json({ ok: true });
      };
      await (tarball ? withUpload(deps.blobs, tarball, work) : work());
    });
  }

  async function deprecate(ctx: RegistryContext, name: string, body: { versions: Record<string, { deprecated?: unknown }> }): Promise<void> {
    await inTx(deps, async (tx) => {
      const pkg = await getPackage(tx, ctx.owner.id, 'npm', name);
      for (const [number, manifest] of Object.entries(body.versions)) {
        const version = await findVersion(tx, pkg.id, number);
        if (!version) continue;
        const { deprecated: _previous, ...rest } = version.metadata;
        const message = typeof manifest?.deprecated === 'string' && manifest.deprecated !== '' ? manifest.deprecated : undefined;
        await setVersionMetadata(tx, version, message ? { ...rest, deprecated: message } : rest);
      }
    });
  }

  for (const path of both('/-/:version/:filename')) {
    registry.get(path, 'read', async (ctx) => {
      const pkg = await getPackage(deps.db, ctx.owner.id, 'npm', nameOf(ctx));
      const version = await findVersion(deps.db, pkg.id, String(ctx.req.params.version));
      const file = version && (await findFile(deps.db, version.id, String(ctx.req.params.filename)));
      if (!version || !file) throw notFound('package file does not exist', 'package file does not exist');
      await countDownload(deps.db, version.id);
      await serveFile(ctx.res, deps, file);
    });
  }

  for (const path of both('/-/:filename')) {
    registry.get(path, 'read', async (ctx) => {
      const pkg = await getPackage(deps.db, ctx.owner.id, 'npm', nameOf(ctx));
      const versions = await loadVersions(deps, pkg);
      const found = versions.find((v) => v.file?.name === ctx.req.params.filename);
      if (!found?.file) throw notFound('package file does not exist', 'package file does not exist');
      await countDownload(deps.db, found.version.id);
      await serveFile(ctx.res, deps, found.file);
    });
  }

  for (const path of both('/-/:version/:filename/-rev/:rev')) {
    registry.delete(path, 'write', async (ctx) => {
      const name = nameOf(ctx);
      await inTx(deps, async (tx) => {
        const pkg = await getPackage(tx, ctx.owner.id, 'npm', name);
        const version = await findVersion(tx, pkg.id, String(ctx.req.params.version));
        if (!version) throw notFound('package does not exist', 'package does not exist');
        await dropTagsOf(tx, pkg.id, version.version);
        await deleteVersion(tx, deps.blobs, version, writer(ctx));
      });
      ctx.res.status(200).json({ ok: true });
    });
  }

  for (const path of both('/-rev/:rev')) {
    // npm tells what it still knows after removing a version from its copy of the document: nothing to do
    registry.put(path, 'write', async (ctx) => {
      await discardBody(ctx.req, publishLimit);
      ctx.res.status(200).json({ ok: true });
    });
    registry.delete(path, 'write', async (ctx) => {
      const name = nameOf(ctx);
      await inTx(deps, async (tx) => {
        const pkg = await getPackage(tx, ctx.owner.id, 'npm', name);
        for (const version of await listVersions(tx, pkg.id)) await deleteVersion(tx, deps.blobs, version, writer(ctx));
      });
      ctx.res.status(200).json({ ok: true });
    });
  }

  for (const path of ['/-/package/:id/dist-tags', '/-/package/@:scope/:id/dist-tags']) {
    registry.get(path, 'read', async (ctx) => {
      const pkg = await getPackage(deps.db, ctx.owner.id, 'npm', nameOf(ctx));
      ctx.res.json(withLatest(await listDistTags(deps.db, pkg), await loadVersions(deps, pkg)));
    });
    registry.put(`${path}/:tag`, 'write', async (ctx) => {
      const name = nameOf(ctx);
      const tag = String(ctx.req.params.tag);
      checkTag(tag);
      const target = (await readBody(ctx.req, 1024)).toString('utf8').trim().replace(/^"|"$/g, '');
      await inTx(deps, async (tx) => {
        const pkg = await getPackage(tx, ctx.owner.id, 'npm', name);
        if (!(await findVersion(tx, pkg.id, target))) throw notFound('package version does not exist', 'package version does not exist');
        await setDistTag(tx, pkg, tag, target);
      });
      ctx.res.status(200).json({ ok: true });
    });
    registry.delete(`${path}/:tag`, 'write', async (ctx) => {
      const name = nameOf(ctx);
      await inTx(deps, async (tx) => removeDistTag(tx, await getPackage(tx, ctx.owner.id, 'npm', name), String(ctx.req.params.tag)));
      ctx.res.status(200).json({ ok: true });
    });
  }

  registry.get('/-/v1/search', 'read', async (ctx) => {
    const text = typeof ctx.req.query.text === 'string' ? ctx.req.query.text.trim().toLowerCase() : '';
    const size = Math.min(Math.max(Number(ctx.req.query.size) || 20, 1), 250);
    const from = Math.max(Number(ctx.req.query.from) || 0, 0);
    const { rows: found, total } = await searchPackagesByName(deps.db, ctx.owner.id, 'npm', text, size, from);
    const objects = [];
    for (const pkg of found) {
      const versions = await loadVersions(deps, pkg);
      const doc = packument(ctx.base, pkg, versions, await listDistTags(deps.db, pkg));
      const latest = (doc.versions as Record<string, Record<string, unknown>>)[(doc['dist-tags'] as Record<string, string>).latest];
      const scope = pkg.name.startsWith('@') ? pkg.name.slice(1, pkg.name.indexOf('/')) : 'unscoped';
      objects.push({
        package: {
          scope, name: pkg.name, version: latest?.version, date: versions.at(-1)?.version.created.toISOString(),
          description: latest?.description, keywords: latest?.keywords ?? [], author: latest?.author,
          publisher: { username: ctx.owner.name }, maintainers: [{ username: ctx.owner.name }],
          links: { npm: `${deps.config.rootUrl}${ctx.owner.name}/-/packages/npm/${encodeURIComponent(pkg.name)}` },
        },
        score: { final: 1, detail: { quality: 1, popularity: 1, maintenance: 1 } },
        searchScore: 1,
      });
    }
    ctx.res.json({ objects, total, time: new Date().toUTCString() });
  });

  return registry;
}

/** `npm deprecate` sends the document back with `deprecated` on versions and no attachment. */
function isDeprecation(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) throw badRequest('the package document must be a JSON object');
  const doc = body as Record<string, unknown>;
  return doc._attachments === undefined && typeof doc.versions === 'object' && doc.versions !== null;
}

