import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { inTx } from '../../db/data-source.js';
import { badRequest, notFound } from '../../db/errors.js';
import { storePackageUpload, withUpload } from '../../db/models/packages/blobs.js';
import { artifactMetadataXml, checkPom, mavenMetadataFile, mavenPackageName, parseMavenPath, type ChecksumKind, type MavenPath } from '../../db/models/packages/maven.js';
import { addFile, countDownload, createVersion, findFile, findPackage, findVersion, listVersions, uploadLimit, type PackageFileView } from '../../db/models/packages/packages.js';
import type { Deps } from '../deps.js';
import { declaredLength, readBody } from './body.js';
import { plainTextError, Registry, writer, type RegistryContext } from './registry.js';
import { serveFile } from './serve.js';

const pomLimit = 16 * 1024 * 1024;

function pathOf(ctx: RegistryContext): MavenPath {
  const raw = ctx.req.params.path as unknown as string[] | string;
  return parseMavenPath(Array.isArray(raw) ? raw.join('/') : raw);
}

const hashOf = (file: PackageFileView, kind: ChecksumKind): string =>
  ({ md5: file.blob.hash_md5, sha1: file.blob.hash_sha1, sha256: file.blob.hash_sha256, sha512: file.blob.hash_sha512 })[kind];

function contentTypeOf(filename: string): string {
  if (filename.endsWith('.jar')) return 'application/java-archive';
  if (filename.endsWith('.pom') || filename.endsWith('.xml')) return 'text/xml';
  return 'application/octet-stream';
}

/** Text Maven reads (generated metadata, a checksum), with the headers a HEAD needs too. */
function sendText(ctx: RegistryContext, text: string, contentType: string, modified: Date, headOnly: boolean): void {
  ctx.res.status(200).set({ 'Content-Type': contentType, 'Content-Length': String(Buffer.byteLength(text)), 'Last-Modified': modified.toUTCString() });
  if (headOnly) ctx.res.end();
  else ctx.res.end(text);
}

/** Gitea's Maven registry: PUT, GET and HEAD of artifacts, generated metadata, checksums served and verified; errors in plain text. */
export function mavenRegistry(deps: Deps): Registry {
  const registry = new Registry(deps, 'maven', plainTextError);

  const download = (headOnly: boolean) => async (ctx: RegistryContext): Promise<void> => {
    const path = pathOf(ctx);
    const pkg = await findPackage(deps.db, ctx.owner.id, 'maven', mavenPackageName(path));
    if (!pkg) throw notFound('package does not exist', 'package does not exist');
    if (path.version === '') {
      const versions = await listVersions(deps.db, pkg.id);
      if (versions.length === 0) throw notFound('package does not exist', 'package does not exist');
      const xml = artifactMetadataXml(path.groupId, path.artifactId, versions);
      const modified = versions.at(-1)!.created;
      if (path.checksum) sendText(ctx, createHash(path.checksum).update(xml).digest('hex'), 'text/plain', modified, headOnly);
      else sendText(ctx, xml, 'text/xml', modified, headOnly);
      return;
    }
    const version = await findVersion(deps.db, pkg.id, path.version);
    const file = version && (await findFile(deps.db, version.id, path.filename));
    if (!version || !file) throw notFound('package file does not exist', 'package file does not exist');
    if (path.checksum) {
      sendText(ctx, hashOf(file, path.checksum), 'text/plain', new Date(file.created), headOnly);
      return;
    }
    if (!headOnly) await countDownload(deps.db, version.id);
    await serveFile(ctx.res, deps, file, { contentType: contentTypeOf(file.name), headOnly, attachment: false });
  };
  // HEAD first: Express would otherwise answer it with the GET route
  registry.head('/*path', 'read', download(true));
  registry.get('/*path', 'read', download(false));

  registry.put('/*path', 'write', async (ctx) => {
    const path = pathOf(ctx);
    const doer = writer(ctx);
    if (path.version === '') {
      // the artifact-level metadata is Hearth's to generate from its versions
      await readBody(ctx.req, pomLimit);
      ctx.res.status(200).end();
      return;
    }
    if (path.checksum) {
      const claimed = (await readBody(ctx.req, 1024)).toString('utf8').trim().split(/\s+/)[0]?.toLowerCase() ?? '';
      const pkg = await findPackage(deps.db, ctx.owner.id, 'maven', mavenPackageName(path));
      const version = pkg && (await findVersion(deps.db, pkg.id, path.version));
      const file = version && (await findFile(deps.db, version.id, path.filename));
      if (!file) throw notFound('package file does not exist', 'package file does not exist');
      if (claimed !== hashOf(file, path.checksum)) throw badRequest(`${path.checksum} checksum mismatch for ${path.filename}`);
      ctx.res.status(200).end();
      return;
    }
    const limit = await uploadLimit(deps.db, deps.config, ctx.owner, 'maven', declaredLength(ctx.req));
    const isPom = path.filename.endsWith('.pom');
    let content: Readable = ctx.req;
    if (isPom) {
      const pom = await readBody(ctx.req, pomLimit);
      checkPom(pom, path);
      content = Readable.from([pom]);
    }
    const upload = await storePackageUpload(deps, content, limit);
    await withUpload(deps.blobs, upload, () => inTx(deps, async (tx) => {
      const { pkg, version } = await createVersion(tx, deps.config, {
        owner: ctx.owner, creator: doer, type: 'maven', name: mavenPackageName(path), version: path.version,
        metadata: { group_id: path.groupId, artifact_id: path.artifactId },
      }, 'reuse');
      // a snapshot's own maven-metadata.xml is rewritten by every deploy; any other file is uploaded once
      await addFile(tx, deps, ctx.owner, pkg, version, upload, { name: path.filename, isLead: isPom, replace: path.filename === mavenMetadataFile });
    }));
    ctx.res.status(201).end();
  });

  return registry;
}
