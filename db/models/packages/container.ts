import { randomUUID } from 'node:crypto';
import type { BlobStore } from '../../blob-store.js';
import type { Queryable, Tx } from '../../data-source.js';
import { registryError, type HttpError } from '../../errors.js';
import type { Config } from '../../process/config.js';
import type { UserRow } from '../users/user-row.js';
import { releaseBlobs, toBlobRow, type PackageBlobRow, type PackageUpload } from './blobs.js';
import {
  addFile, createVersion, deleteFile, deleteVersion, ensurePackage, findPackage, findVersion, setVersionMetadata, toFile, toVersion,
  type PackageFileView, type PackageRow, type PackageVersionRow,
} from './packages.js';

// ---- names (the distribution spec's grammar, as Gitea checks it)

export const imageNamePattern = /^[a-z0-9]+([._-][a-z0-9]+)*(\/[a-z0-9]+([._-][a-z0-9]+)*)*$/;
export const tagPattern = /^[a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}$/;
export const digestPattern = /^sha256:[a-f0-9]{64}$/;
/** The file holding a manifest's own bytes in its version (Gitea's ManifestFilename). */
export const manifestFileName = 'manifest.json';
/** The internal version holding an image's uploaded blobs; no tag or digest can be spelled so. */
export const uploadVersionName = ':upload';

export const blobFileName = (digest: string): string => digest.replace(':', '_');
export const digestOf = (blob: Pick<PackageBlobRow, 'hash_sha256'>): string => `sha256:${blob.hash_sha256}`;

/** The distribution spec's error codes with their statuses; answered as `{ "errors": [{ "code", "message" }] }`. */
export const ociCodes = {
  BLOB_UNKNOWN: [404, 'blob unknown to registry'],
  BLOB_UPLOAD_INVALID: [400, 'blob upload invalid'],
  BLOB_UPLOAD_UNKNOWN: [404, 'blob upload unknown to registry'],
  DIGEST_INVALID: [400, 'provided digest did not match uploaded content'],
  MANIFEST_BLOB_UNKNOWN: [404, 'blob unknown to registry'],
  MANIFEST_INVALID: [400, 'manifest invalid'],
  MANIFEST_UNKNOWN: [404, 'manifest unknown'],
  NAME_INVALID: [400, 'invalid repository name'],
  NAME_UNKNOWN: [404, 'repository name not known to registry'],
  SIZE_INVALID: [400, 'provided length did not match content length'],
  UNAUTHORIZED: [401, 'authentication required'],
  DENIED: [403, 'requested access to the resource is denied'],
  UNSUPPORTED: [404, 'The operation is unsupported'],
} as const;
export type OciCode = keyof typeof ociCodes;

export function ociError(code: OciCode, message?: string, status?: number): HttpError {
  const [defaultStatus, defaultMessage] = ociCodes[code];
  return registryError(status ?? defaultStatus, message ?? defaultMessage, code);
}

// ---- manifests

const imageManifestTypes = ['application/vnd.oci.image.manifest.v1+json', 'application/vnd.docker.distribution.manifest.v2+json'];
const imageIndexTypes = ['application/vnd.oci.image.index.v1+json', 'application/vnd.docker.distribution.manifest.list.v2+json'];
const isKnownMediaType = (type: string): boolean => type.startsWith('application/vnd.docker.') || type.startsWith('application/vnd.oci.');

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  platform?: { os?: string; architecture?: string; variant?: string };
}

export type ParsedManifest =
  | { kind: 'image'; mediaType: string; config: Descriptor; layers: Descriptor[] }
  | { kind: 'index'; mediaType: string; manifests: Descriptor[] };

function descriptorOf(value: unknown, what: string): Descriptor {
  const d = value as Partial<Descriptor> | null;
  if (!d || typeof d !== 'object' || typeof d.digest !== 'string' || !digestPattern.test(d.digest)) {
    throw ociError('MANIFEST_INVALID', `${what} has no valid sha256 digest`);
  }
  if (d.size !== undefined && (typeof d.size !== 'number' || !Number.isSafeInteger(d.size) || d.size < 0)) throw ociError('MANIFEST_INVALID', `${what} has an invalid size`);
  const platform = d.platform && typeof d.platform === 'object' ? d.platform : undefined;
  return { mediaType: typeof d.mediaType === 'string' ? d.mediaType : '', digest: d.digest, size: d.size ?? 0, ...(platform ? { platform } : {}) };
}

/**
 * Reads an image manifest or an image index (OCI or Docker schema 2). The media type is the request's
 * Content-Type when it names an OCI or Docker type, else the document's own `mediaType`, as in Gitea.
 */
export function parseManifest(bytes: Buffer, contentType: string | undefined): ParsedManifest {
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
  } catch {
    throw ociError('MANIFEST_INVALID', 'the manifest is not valid JSON');
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw ociError('MANIFEST_INVALID', 'the manifest is not a JSON object');
  if (doc.schemaVersion !== 2) throw ociError('MANIFEST_INVALID', 'Schema version is not supported');
  let mediaType = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (!isKnownMediaType(mediaType)) mediaType = typeof doc.mediaType === 'string' ? doc.mediaType.toLowerCase() : '';
  if (!isKnownMediaType(mediaType)) {
    // an OCI manifest may leave mediaType out: its shape says which it is
    if (doc.manifests !== undefined) mediaType = imageIndexTypes[0];
    else if (doc.config !== undefined) mediaType = imageManifestTypes[0];
    else throw ociError('MANIFEST_INVALID', 'MediaType not recognized');
  }
  if (imageManifestTypes.includes(mediaType)) {
    if (!Array.isArray(doc.layers)) throw ociError('MANIFEST_INVALID', 'the manifest has no layers');
    return { kind: 'image', mediaType, config: descriptorOf(doc.config, 'config'), layers: doc.layers.map((l, i) => descriptorOf(l, `layer ${i}`)) };
  }
  if (imageIndexTypes.includes(mediaType)) {
    if (!Array.isArray(doc.manifests)) throw ociError('MANIFEST_INVALID', 'the index has no manifests');
    return { kind: 'index', mediaType, manifests: doc.manifests.map((m, i) => descriptorOf(m, `manifest ${i}`)) };
  }
  throw ociError('MANIFEST_INVALID', `unsupported manifest media type ${mediaType}`);
}

/** What a version keeps about its manifest: read back for Content-Type, tag lists and the package API. */
export interface ContainerMetadata {
  type: 'oci' | 'helm';
  media_type: string;
  digest: string;
  tagged: boolean;
  config_digest?: string;
  layers?: Array<{ digest: string; media_type: string; size: number }>;
  manifests?: Array<{ digest: string; media_type: string; size: number; platform: string }>;
  os?: string;
  architecture?: string;
  labels?: Record<string, string>;
}

/** The fields of an image configuration worth keeping; anything unreadable is left out. */
export function configMetadata(config: Buffer | null): Pick<ContainerMetadata, 'os' | 'architecture' | 'labels'> {
  if (!config) return {};
  try {
    const doc = JSON.parse(config.toString('utf8')) as { os?: unknown; architecture?: unknown; config?: { Labels?: unknown } };
    const labels = doc.config?.Labels && typeof doc.config.Labels === 'object' ? doc.config.Labels as Record<string, string> : undefined;
    return {
      ...(typeof doc.os === 'string' ? { os: doc.os } : {}),
      ...(typeof doc.architecture === 'string' ? { architecture: doc.architecture } : {}),
      ...(labels ? { labels } : {}),
    };
  } catch {
    return {};
  }
}

// ---- reading

export async function findImage(db: Queryable, ownerId: number, image: string): Promise<PackageRow | null> {
  return findPackage(db, ownerId, 'container', image);
}

/** A file of the image (in any version, uploads included) holding the blob of that digest. */
export async function findImageBlob(db: Queryable, ownerId: number, image: string, digest: string): Promise<PackageBlobRow | null> {
  if (!digestPattern.test(digest)) return null;
  const [raw] = await db.query<Record<string, unknown>>(
    `SELECT b.* FROM package p JOIN package_version v ON v.package_id = p.id JOIN package_file f ON f.version_id = v.id
       JOIN package_blob b ON b.id = f.blob_id
     WHERE p.owner_id = $1 AND p.type = 'container' AND p.lower_name = $2 AND b.hash_sha256 = $3 LIMIT 1`,
    [ownerId, image.toLowerCase(), digest.slice('sha256:'.length)],
  );
  return raw ? toBlobRow(raw) : null;
}

export interface ManifestFound {
  version: PackageVersionRow;
  file: PackageFileView;
  metadata: ContainerMetadata;
}

/** A manifest by tag (the version of that name) or by digest (any version whose manifest has those bytes). */
export async function findManifest(db: Queryable, ownerId: number, image: string, reference: string): Promise<ManifestFound | null> {
  const byDigest = digestPattern.test(reference);
  if (!byDigest && !tagPattern.test(reference)) return null;
  const [raw] = await db.query<Record<string, unknown>>(
    `SELECT to_jsonb(v) AS version, to_jsonb(f) AS file, to_jsonb(b) AS blob
     FROM package p JOIN package_version v ON v.package_id = p.id AND NOT v.is_internal
       JOIN package_file f ON f.version_id = v.id AND f.lower_name = '${manifestFileName}' JOIN package_blob b ON b.id = f.blob_id
     WHERE p.owner_id = $1 AND p.type = 'container' AND p.lower_name = $2 AND ${byDigest ? 'b.hash_sha256 = $3' : 'v.lower_version = lower($3)'}
     ORDER BY v.id LIMIT 1`,
    [ownerId, image.toLowerCase(), byDigest ? reference.slice('sha256:'.length) : reference],
  );
  if (!raw) return null;
  const version = toVersion(raw.version as Record<string, unknown>);
  const file = { ...toFile(raw.file as Record<string, unknown>), blob: toBlobRow(raw.blob as Record<string, unknown>) };
  return { version: { ...version, created: new Date(version.created) }, file: { ...file, created: new Date(file.created) }, metadata: version.metadata as unknown as ContainerMetadata };
}

/** The tags of an image in name order, after `last`, at most `n` (all when n is undefined). */
export async function listTags(db: Queryable, packageId: number, n: number | undefined, last: string): Promise<string[]> {
  const rows = await db.query<{ version: string }>(
    `SELECT version FROM package_version WHERE package_id = $1 AND NOT is_internal AND (metadata->>'tagged')::boolean AND version > $2
     ORDER BY version ${n === undefined ? '' : 'LIMIT $3'}`,
    n === undefined ? [packageId, last] : [packageId, last, n],
  );
  return rows.map((r) => r.version);
}

/** `owner/image` of every image with a manifest whose owner the doer may see, in name order after `last`. */
export async function listCatalog(db: Queryable, doer: UserRow | null, n: number, last: string): Promise<string[]> {
  const rows = await db.query<{ name: string }>(
    `SELECT u.lower_name || '/' || p.lower_name AS name FROM package p JOIN "user" u ON u.id = p.owner_id
     WHERE p.type = 'container' AND EXISTS (SELECT 1 FROM package_version v WHERE v.package_id = p.id AND NOT v.is_internal)
       AND ($1::bigint IS NOT NULL AND ($2::boolean OR u.id = $1 OR EXISTS (SELECT 1 FROM org_user ou WHERE ou.org_id = u.id AND ou.uid = $1))
         OR (NOT $3::boolean AND (u.visibility = 0 OR (u.visibility = 1 AND $1::bigint IS NOT NULL))))
       AND u.lower_name || '/' || p.lower_name > $4
     ORDER BY 1 LIMIT $5`,
    [doer?.id ?? null, doer?.is_admin ?? false, doer?.restricted ?? false, last, n],
  );
  return rows.map((r) => r.name);
}

/** The owners of images holding a blob, named by `owner/image` when `from` is given: candidates for a cross-repository mount. */
export async function blobHolders(db: Queryable, digest: string, from: string): Promise<Array<{ blob: PackageBlobRow; ownerId: number }>> {
  if (!digestPattern.test(digest)) return [];
  const params: unknown[] = [digest.slice('sha256:'.length)];
  let where = '';
  if (from) {
    const slash = from.indexOf('/');
    if (slash < 0) return [];
    where = ` AND u.lower_name = $${params.push(from.slice(0, slash).toLowerCase())} AND p.lower_name = $${params.push(from.slice(slash + 1).toLowerCase())}`;
  }
  const rows = await db.query<Record<string, unknown>>(
    `SELECT DISTINCT p.owner_id, to_jsonb(b) AS blob FROM package_blob b JOIN package_file f ON f.blob_id = b.id
       JOIN package_version v ON v.id = f.version_id JOIN package p ON p.id = v.package_id JOIN "user" u ON u.id = p.owner_id
     WHERE b.hash_sha256 = $1 AND p.type = 'container'${where}`,
    params,
  );
  return rows.map((r) => ({ ownerId: Number(r.owner_id), blob: toBlobRow(r.blob as Record<string, unknown>) }));
}

// ---- writing

/** The image's internal version for uploaded blobs, created when missing (no event: nothing is published yet). */
async function ensureUploadVersion(tx: Tx, pkg: PackageRow, creator: UserRow): Promise<PackageVersionRow> {
  const [raw] = await tx.query<Record<string, unknown>>(
    `INSERT INTO package_version (package_id, creator_id, version, lower_version, is_internal) VALUES ($1, $2, $3, $3, true)
     ON CONFLICT (package_id, lower_version) DO UPDATE SET is_internal = true RETURNING *`,
    [pkg.id, creator.id, uploadVersionName],
  );
  return toVersion(raw);
}

async function hasFile(tx: Tx, versionId: number, name: string): Promise<boolean> {
  const rows = await tx.query('SELECT 1 FROM package_file WHERE version_id = $1 AND lower_name = $2', [versionId, name.toLowerCase()]);
  return rows.length > 0;
}

/** A file naming a blob that is stored already (a layer named by a manifest, a mounted blob). */
async function addBlobFile(tx: Tx, versionId: number, blobId: number, name: string, isLead = false): Promise<void> {
  await tx.query(
    `INSERT INTO package_file (version_id, blob_id, name, lower_name, composite_key, is_lead) VALUES ($1, $2, $3, $4, '', $5)
     ON CONFLICT (version_id, lower_name, composite_key) DO NOTHING`,
    [versionId, blobId, name, name.toLowerCase(), isLead],
  );
}

export interface ImageRef {
  owner: UserRow;
  creator: UserRow;
  image: string;
}

/** An uploaded blob becomes part of the image (its upload version); the same digest again is kept once. */
export async function saveBlob(tx: Tx, deps: { blobs: BlobStore; config: Config }, ref: ImageRef, upload: PackageUpload): Promise<void> {
  const pkg = await ensurePackage(tx, ref.owner, 'container', ref.image);
  const version = await ensureUploadVersion(tx, pkg, ref.creator);
  const name = blobFileName(`sha256:${upload.sha256}`);
  if (await hasFile(tx, version.id, name)) return;
  await addFile(tx, deps, ref.owner, pkg, version, upload, { name });
}

/** A blob of another image, made part of this one without copying its bytes. */
export async function mountBlob(tx: Tx, ref: ImageRef, blob: PackageBlobRow): Promise<void> {
  const pkg = await ensurePackage(tx, ref.owner, 'container', ref.image);
  const version = await ensureUploadVersion(tx, pkg, ref.creator);
  await addBlobFile(tx, version.id, blob.id, blobFileName(digestOf(blob)));
}

export interface ManifestInput extends ImageRef {
  reference: string;
  manifest: ParsedManifest;
  /** The manifest's bytes, streamed to the blob store already. */
  upload: PackageUpload;
  config: Pick<ContainerMetadata, 'os' | 'architecture' | 'labels'>;
}

/**
 * Records a manifest under a tag or its digest, in one transaction: the version (created with its package event,
 * or, for a tag that exists, emptied and refilled with its download count kept), the manifest's bytes as the lead
 * file and a file for each blob it names, which must all be in the image already.
 */
export async function putManifest(tx: Tx, deps: { blobs: BlobStore; config: Config }, input: ManifestInput): Promise<string> {
  const { manifest } = input;
  const digest = `sha256:${input.upload.sha256}`;
  const tagged = !digestPattern.test(input.reference);
  const pkg = await ensurePackage(tx, input.owner, 'container', input.image);

  const blobs = new Map<string, { blob: PackageBlobRow; mediaType: string }>();
  let metadata: ContainerMetadata;
  if (manifest.kind === 'image') {
    for (const d of [manifest.config, ...manifest.layers]) {
      const blob = await findImageBlob(tx, input.owner.id, input.image, d.digest);
      if (!blob) throw ociError('MANIFEST_BLOB_UNKNOWN', `blob ${d.digest} is unknown to the image`);
      if (!blobs.has(d.digest)) blobs.set(d.digest, { blob, mediaType: d.mediaType });
    }
    metadata = {
      type: manifest.config.mediaType === 'application/vnd.cncf.helm.config.v1+json' ? 'helm' : 'oci',
      media_type: manifest.mediaType, digest, tagged, config_digest: manifest.config.digest,
      layers: manifest.layers.map((l) => ({ digest: l.digest, media_type: l.mediaType, size: blobs.get(l.digest)!.blob.size })),
      ...input.config,
    };
  } else {
    const manifests = [];
    for (const d of manifest.manifests) {
      const found = await findManifest(tx, input.owner.id, input.image, d.digest);
      if (!found) throw ociError('MANIFEST_BLOB_UNKNOWN', `manifest ${d.digest} is unknown to the image`);
      const platform = [d.platform?.os, d.platform?.architecture, d.platform?.variant].filter((p) => typeof p === 'string' && p).join('/');
      manifests.push({ digest: d.digest, media_type: d.mediaType || found.metadata.media_type, size: found.file.blob.size, platform });
    }
    metadata = { type: 'oci', media_type: manifest.mediaType, digest, tagged, manifests };
  }

  let version = await findVersion(tx, pkg.id, input.reference);
  if (version && !tagged) return digest; // the same bytes under their own digest: already there
  if (version) {
    const old = await tx.query<{ blob_id: string }>('DELETE FROM package_file WHERE version_id = $1 RETURNING blob_id', [version.id]);
    await setVersionMetadata(tx, version, metadata as unknown as Record<string, unknown>);
    await addFile(tx, deps, input.owner, pkg, version, input.upload, { name: manifestFileName, isLead: true });
    for (const [d, { blob }] of blobs) await addBlobFile(tx, version.id, blob.id, blobFileName(d));
    await releaseBlobs(tx, deps.blobs, old.map((f) => Number(f.blob_id)));
    return digest;
  }
  ({ version } = await createVersion(tx, deps.config, {
    owner: input.owner, creator: input.creator, type: 'container', name: input.image, version: input.reference,
    metadata: metadata as unknown as Record<string, unknown>,
  }, 'refuse'));
  await addFile(tx, deps, input.owner, pkg, version, input.upload, { name: manifestFileName, isLead: true });
  for (const [d, { blob }] of blobs) await addBlobFile(tx, version.id, blob.id, blobFileName(d));
  return digest;
}

/** Deletes a tag, or every version whose manifest has that digest; false when there was none. */
export async function deleteManifest(tx: Tx, blobs: BlobStore, ownerId: number, image: string, reference: string, doer: UserRow): Promise<boolean> {
  const byDigest = digestPattern.test(reference);
  if (!byDigest && !tagPattern.test(reference)) return false;
  const rows = await tx.query<Record<string, unknown>>(
    `SELECT v.* FROM package p JOIN package_version v ON v.package_id = p.id AND NOT v.is_internal
       JOIN package_file f ON f.version_id = v.id AND f.lower_name = '${manifestFileName}' JOIN package_blob b ON b.id = f.blob_id
     WHERE p.owner_id = $1 AND p.type = 'container' AND p.lower_name = $2 AND ${byDigest ? 'b.hash_sha256 = $3' : 'v.lower_version = lower($3)'}
     FOR UPDATE OF v`,
    [ownerId, image.toLowerCase(), byDigest ? reference.slice('sha256:'.length) : reference],
  );
  const versions = new Map(rows.map((raw) => [Number(raw.id), toVersion(raw)]));
  for (const version of versions.values()) await deleteVersion(tx, blobs, version, doer);
  return versions.size > 0;
}

/** Removes a blob from the image: every file naming it but the manifests' own (Gitea's DeleteBlob). */
export async function deleteImageBlob(tx: Tx, blobs: BlobStore, ownerId: number, image: string, digest: string): Promise<void> {
  if (!digestPattern.test(digest)) return;
  const files = await tx.query<Record<string, unknown>>(
    `SELECT f.* FROM package p JOIN package_version v ON v.package_id = p.id JOIN package_file f ON f.version_id = v.id
       JOIN package_blob b ON b.id = f.blob_id
     WHERE p.owner_id = $1 AND p.type = 'container' AND p.lower_name = $2 AND b.hash_sha256 = $3 AND f.lower_name <> '${manifestFileName}'
     FOR UPDATE OF f`,
    [ownerId, image.toLowerCase(), digest.slice('sha256:'.length)],
  );
  for (const raw of files) await deleteFile(tx, blobs, toFile(raw));
}

// ---- uploads in progress: chunks are blob-store keys listed on the row until the upload ends

export interface BlobUploadRow {
  id: string;
  owner_id: number;
  image: string;
  bytes_received: number;
  chunks: PackageUpload[];
}

const toUpload = (raw: Record<string, unknown>): BlobUploadRow =>
  ({ id: String(raw.id), owner_id: Number(raw.owner_id), image: String(raw.image), bytes_received: Number(raw.bytes_received), chunks: raw.chunks as PackageUpload[] });

/** Uploads nobody touched for a day are abandoned. */
const staleAfter = '24 hours';

export async function createUpload(db: Queryable, ownerId: number, image: string): Promise<BlobUploadRow> {
  const [raw] = await db.query<Record<string, unknown>>(
    'INSERT INTO package_blob_upload (id, owner_id, image) VALUES ($1, $2, $3) RETURNING *', [randomUUID(), ownerId, image.toLowerCase()]);
  return toUpload(raw);
}

/** An upload of that image of that owner; any other is unknown. */
export async function findUpload(db: Queryable, id: string, ownerId: number, image: string): Promise<BlobUploadRow | null> {
  if (!/^[0-9a-f-]{36}$/.test(id)) return null;
  const [raw] = await db.query<Record<string, unknown>>(
    'SELECT * FROM package_blob_upload WHERE id = $1 AND owner_id = $2 AND image = $3', [id, ownerId, image.toLowerCase()]);
  return raw ? toUpload(raw) : null;
}

/** Appends a stored chunk when the upload still has the size the chunk was sent for; null when another request won. */
export async function appendChunk(db: Queryable, upload: BlobUploadRow, chunk: PackageUpload): Promise<BlobUploadRow | null> {
  const [raw] = await db.query<Record<string, unknown>>(
    `UPDATE package_blob_upload SET bytes_received = bytes_received + $3, chunks = chunks || $4::jsonb, updated = now()
     WHERE id = $1 AND bytes_received = $2 RETURNING *`,
    [upload.id, upload.bytes_received, chunk.size, JSON.stringify([chunk])],
  );
  return raw ? toUpload(raw) : null;
}

/** Ends an upload: its row goes (in the caller's transaction when given) and its chunks once that is durable. */
export async function removeUpload(db: Queryable | Tx, blobs: BlobStore, id: string): Promise<boolean> {
  const [raw] = await db.query<Record<string, unknown>>('DELETE FROM package_blob_upload WHERE id = $1 RETURNING *', [id]);
  if (!raw) return false;
  const drop = async (): Promise<void> => {
    for (const chunk of toUpload(raw).chunks) await blobs.delete(chunk.key);
  };
  if ('afterCommit' in db) db.afterCommit(drop);
  else await drop();
  return true;
}

/** Removes uploads abandoned for a day, with their chunks (once the removal is durable, in a transaction). */
export async function removeStaleUploads(db: Queryable | Tx, blobs: BlobStore): Promise<number> {
  const rows = await db.query<Record<string, unknown>>(`DELETE FROM package_blob_upload WHERE updated < now() - interval '${staleAfter}' RETURNING *`);
  const drop = async (): Promise<void> => {
    for (const raw of rows) for (const chunk of toUpload(raw).chunks) await blobs.delete(chunk.key);
  };
  if ('afterCommit' in db) db.afterCommit(drop);
  else await drop();
  return rows.length;
}

/**
 * Gitea's container cleanup: uploads abandoned for a day, and blobs uploaded to an image more than a day ago
 * that none of its manifests names (a push that never finished). Answers how many it removed.
 */
export async function cleanupContainerUploads(tx: Tx, blobs: BlobStore): Promise<number> {
  const uploads = await removeStaleUploads(tx, blobs);
  const files = await tx.query<Record<string, unknown>>(
    `SELECT f.* FROM package_file f JOIN package_version v ON v.id = f.version_id AND v.is_internal
       JOIN package p ON p.id = v.package_id AND p.type = 'container'
     WHERE f.created < now() - interval '${staleAfter}'
       AND NOT EXISTS (SELECT 1 FROM package_file g JOIN package_version w ON w.id = g.version_id AND NOT w.is_internal
                       WHERE w.package_id = p.id AND g.blob_id = f.blob_id)
     ORDER BY f.id FOR UPDATE OF f`,
  );
  for (const raw of files) await deleteFile(tx, blobs, toFile(raw));
  return uploads + files.length;
}
