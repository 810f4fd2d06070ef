import semver from 'semver';
import type { Queryable, Tx } from '../../data-source.js';
import { badRequest, notFound } from '../../errors.js';
import type { PackageRow } from './packages.js';

/** npm's package name rule: lower case, URL-safe, optionally under one `@scope/`. */
const npmName = /^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;

export interface NpmPublish {
  name: string;
  version: string;
  /** The version's manifest as npm sent it (dependencies, bin, engines, ...), without `dist` and `_` fields. */
  manifest: Record<string, unknown>;
  integrity: string;
  shasum: string;
  filename: string;
  distTags: Record<string, string>;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function checkNpmName(name: string): void {
  if (name.length > 214 || !npmName.test(name)) throw badRequest(`invalid package name: ${name}`);
}

/** The tarball of a publish as it was streamed to the blob store: its size and hex digests. */
export interface NpmTarball {
  size: number;
  sha1: string;
  sha512: string;
}

/**
 * Reads the document `npm publish` sends: one version with its manifest and one tarball (decoded from its
 * base64 while it streamed in, its place in the document left empty) whose sha512 integrity and sha1 shasum
 * must match what the manifest claims.
 */
export function parseNpmPublish(body: unknown, nameInPath: string, tarball: NpmTarball | null): NpmPublish {
  if (!isObject(body)) throw badRequest('the package document must be a JSON object');
  const name = body.name;
  if (typeof name !== 'string') throw badRequest('the package document has no name');
  checkNpmName(name);
  if (name !== nameInPath) throw badRequest('the package name does not match the address');
  const versions = isObject(body.versions) ? Object.entries(body.versions) : [];
  const attachments = isObject(body._attachments) ? Object.entries(body._attachments) : [];
  if (versions.length !== 1 || attachments.length !== 1) throw badRequest('a publish must carry exactly one version and one attachment');
  const [version, manifest] = versions[0];
  if (!semver.valid(version) || !isObject(manifest) || manifest.version !== version || manifest.name !== name) throw badRequest(`invalid package version: ${version}`);
  const [filename, attachment] = attachments[0];
  if (!isObject(attachment) || typeof attachment.data !== 'string' || !/^[\w.+-]+\.tgz$/.test(filename.split('/').pop() ?? '')) {
    throw badRequest('the attachment is malformed');
  }
  if (!tarball || tarball.size === 0 || (typeof attachment.length === 'number' && attachment.length !== tarball.size)) throw badRequest('the attachment is malformed');
  const dist = isObject(manifest.dist) ? manifest.dist : {};
  const integrity = `sha512-${Buffer.from(tarball.sha512, 'hex').toString('base64')}`;
  const shasum = tarball.sha1;
  if (typeof dist.integrity === 'string' && dist.integrity !== integrity) throw badRequest('the tarball does not match its integrity');
  if (typeof dist.shasum === 'string' && dist.shasum !== shasum) throw badRequest('the tarball does not match its shasum');
  const distTags: Record<string, string> = {};
  for (const [tag, target] of Object.entries(isObject(body['dist-tags']) ? body['dist-tags'] : {})) {
    checkTag(tag);
    if (target === version) distTags[tag] = version;
  }
  const kept = Object.fromEntries(Object.entries(manifest).filter(([key]) => key !== 'dist' && !key.startsWith('_')));
  if (typeof body.readme === 'string' && kept.readme === undefined) kept.readme = body.readme;
  return { name, version, manifest: kept, integrity, shasum, filename: filename.split('/').pop()!, distTags };
}

/** A dist-tag is any non-empty name that is not itself a version (Gitea's rule). */
export function checkTag(tag: string): void {
  if (!tag || semver.valid(tag) || !/^[\w.-]+$/.test(tag)) throw badRequest('The tag name is invalid');
}

const tagProperty = (tag: string): string => `npm.tag.${tag}`;

export async function listDistTags(db: Queryable, pkg: PackageRow): Promise<Record<string, string>> {
  const rows = await db.query<{ name: string; value: string }>(
    `SELECT name, value FROM package_property WHERE package_id = $1 AND name LIKE 'npm.tag.%' ORDER BY name`, [pkg.id]);
  return Object.fromEntries(rows.map((row) => [row.name.slice('npm.tag.'.length), row.value]));
}

export async function setDistTag(tx: Tx, pkg: PackageRow, tag: string, version: string): Promise<void> {
  checkTag(tag);
  await tx.query(
    `INSERT INTO package_property (package_id, name, value) VALUES ($1, $2, $3) ON CONFLICT (package_id, name) DO UPDATE SET value = EXCLUDED.value`,
    [pkg.id, tagProperty(tag), version],
  );
}

export async function removeDistTag(tx: Tx, pkg: PackageRow, tag: string): Promise<void> {
  checkTag(tag);
  const gone = await tx.query('DELETE FROM package_property WHERE package_id = $1 AND name = $2 RETURNING id', [pkg.id, tagProperty(tag)]);
  if (gone.length === 0) throw notFound('tag does not exist', 'tag does not exist');
}

/** The tags that pointed at a removed version go with it. */
export async function dropTagsOf(tx: Tx, packageId: number, version: string): Promise<void> {
  await tx.query(`DELETE FROM package_property WHERE package_id = $1 AND name LIKE 'npm.tag.%' AND value = $2`, [packageId, version]);
}
