import type { BlobStore } from '../../blob-store.js';
import type { Queryable, Tx } from '../../data-source.js';
import { conflict, notFound, tooLarge } from '../../errors.js';
import { emit } from '../../events/emit.js';
import type { Config } from '../../process/config.js';
import type { UserRow } from '../users/user-row.js';
import { attachUpload, noUploadLimit, releaseBlobs, toBlobRow, type PackageBlobRow, type PackageUpload, type UploadLimit } from './blobs.js';

export const packageTypes = ['generic', 'npm', 'cargo', 'maven', 'pypi', 'container'] as const;
export type PackageType = (typeof packageTypes)[number];

export interface PackageRow {
  id: number;
  owner_id: number;
  repo_id: number | null;
  type: PackageType;
  name: string;
  lower_name: string;
  semver_compatible: boolean;
  created: Date;
}

export interface PackageVersionRow {
  id: number;
  package_id: number;
  creator_id: number | null;
  version: string;
  lower_version: string;
  metadata: Record<string, unknown>;
  download_count: number;
  /** A version no listing shows (the container registry's uploaded blobs). */
  is_internal: boolean;
  created: Date;
}

export interface PackageFileRow {
  id: number;
  version_id: number;
  blob_id: number;
  name: string;
  lower_name: string;
  composite_key: string;
  is_lead: boolean;
  created: Date;
}

/** A file with the blob holding its bytes. */
export interface PackageFileView extends PackageFileRow {
  blob: PackageBlobRow;
}

export const toPackage = (raw: Record<string, unknown>): PackageRow =>
  ({ ...(raw as unknown as PackageRow), id: Number(raw.id), owner_id: Number(raw.owner_id), repo_id: raw.repo_id === null ? null : Number(raw.repo_id) });
export const toVersion = (raw: Record<string, unknown>): PackageVersionRow => ({
  ...(raw as unknown as PackageVersionRow),
  id: Number(raw.id), package_id: Number(raw.package_id), creator_id: raw.creator_id === null ? null : Number(raw.creator_id),
  download_count: Number(raw.download_count),
});
export const toFile = (raw: Record<string, unknown>): PackageFileRow =>
  ({ ...(raw as unknown as PackageFileRow), id: Number(raw.id), version_id: Number(raw.version_id), blob_id: Number(raw.blob_id) });

// ---- reading

export async function findPackage(db: Queryable, ownerId: number, type: PackageType, name: string): Promise<PackageRow | null> {
  const [raw] = await db.query<Record<string, unknown>>(
    'SELECT * FROM package WHERE owner_id = $1 AND type = $2 AND lower_name = $3', [ownerId, type, name.toLowerCase()]);
  return raw ? toPackage(raw) : null;
}

export async function getPackage(db: Queryable, ownerId: number, type: PackageType, name: string): Promise<PackageRow> {
  const found = await findPackage(db, ownerId, type, name);
  if (!found) throw notFound(`package ${name} does not exist`, 'package does not exist');
  return found;
}

export async function findVersion(db: Queryable, packageId: number, version: string): Promise<PackageVersionRow | null> {
  const [raw] = await db.query<Record<string, unknown>>(
    'SELECT * FROM package_version WHERE package_id = $1 AND lower_version = $2 AND NOT is_internal', [packageId, version.toLowerCase()]);
  return raw ? toVersion(raw) : null;
}

/** A version named by owner, type, package name and version; anything missing is the same 404. */
export async function getVersion(db: Queryable, ownerId: number, type: PackageType, name: string, version: string): Promise<{ pkg: PackageRow; version: PackageVersionRow }> {
  const pkg = await getPackage(db, ownerId, type, name);
  const found = await findVersion(db, pkg.id, version);
  if (!found) throw notFound(`package version ${version} does not exist`, 'package does not exist');
  return { pkg, version: found };
}

/** The versions of a package, oldest first. */
/** A version with its package by ids, or null when either is gone. */
export async function findPackageVersion(db: Queryable, packageId: number, versionId: number): Promise<{ pkg: PackageRow; version: PackageVersionRow } | null> {
  const [row] = await db.query<{ pkg: Record<string, unknown>; version: Record<string, unknown> }>(
    `SELECT to_jsonb(p) AS pkg, to_jsonb(v) AS version FROM package_version v JOIN package p ON p.id = v.package_id WHERE v.id = $1 AND p.id = $2`,
    [versionId, packageId],
  );
  if (!row) return null;
  return {
    pkg: { ...toPackage(row.pkg), created: new Date(String(row.pkg.created)) },
    version: { ...toVersion(row.version), created: new Date(String(row.version.created)) },
  };
}

export async function listVersions(db: Queryable, packageId: number): Promise<PackageVersionRow[]> {
  const rows = await db.query<Record<string, unknown>>('SELECT * FROM package_version WHERE package_id = $1 AND NOT is_internal ORDER BY created, id', [packageId]);
  return rows.map(toVersion);
}

/** The files of several versions with their blobs, each list ordered by name. */
export async function listFiles(db: Queryable, versionIds: number[]): Promise<Map<number, PackageFileView[]>> {
  const byVersion = new Map<number, PackageFileView[]>(versionIds.map((id) => [id, []]));
  if (versionIds.length === 0) return byVersion;
  const rows = await db.query<Record<string, unknown>>(
    `SELECT f.*, to_jsonb(b) AS blob FROM package_file f JOIN package_blob b ON b.id = f.blob_id
     WHERE f.version_id = ANY($1::bigint[]) ORDER BY f.version_id, f.lower_name, f.id`,
    [versionIds],
  );
  for (const { blob, ...file } of rows) {
    byVersion.get(Number(file.version_id))?.push({ ...toFile(file), blob: toBlobRow(blob as Record<string, unknown>) });
  }
  return byVersion;
}

export async function findFile(db: Queryable, versionId: number, name: string, compositeKey = ''): Promise<PackageFileView | null> {
  const [raw] = await db.query<Record<string, unknown>>(
    `SELECT f.*, to_jsonb(b) AS blob FROM package_file f JOIN package_blob b ON b.id = f.blob_id
     WHERE f.version_id = $1 AND f.lower_name = $2 AND f.composite_key = $3`,
    [versionId, name.toLowerCase(), compositeKey],
  );
  if (!raw) return null;
  const { blob, ...file } = raw;
  return { ...toFile(file), blob: toBlobRow(blob as Record<string, unknown>) };
}

export async function countDownload(db: Queryable, versionId: number): Promise<void> {
  await db.query('UPDATE package_version SET download_count = download_count + 1 WHERE id = $1', [versionId]);
}

// ---- writing

/** The package of that owner, type and name, created when missing; its row stays locked until the transaction ends. */
export async function ensurePackage(tx: Tx, owner: UserRow, type: PackageType, name: string, semverCompatible = false): Promise<PackageRow> {
  const [raw] = await tx.query<Record<string, unknown>>(
    `INSERT INTO package (owner_id, type, name, lower_name, semver_compatible) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (owner_id, type, lower_name) DO UPDATE SET lower_name = EXCLUDED.lower_name RETURNING *`,
    [owner.id, type, name, name.toLowerCase(), semverCompatible],
  );
  return toPackage(raw);
}

export interface NewVersion {
  owner: UserRow;
  creator: UserRow;
  type: PackageType;
  name: string;
  version: string;
  metadata?: Record<string, unknown>;
  semverCompatible?: boolean;
}

/**
 * Creates a version (and its package when new), checking the owner's count limit and emitting the package
 * event. `existing: 'reuse'` hands back a version that exists (files added one by one, as Maven and the generic
 * registry do); `'refuse'` answers 409 as Gitea's ErrDuplicatePackageVersion does.
 */
export async function createVersion(tx: Tx, config: Config, input: NewVersion, existing: 'reuse' | 'refuse'): Promise<{ pkg: PackageRow; version: PackageVersionRow; created: boolean }> {
  const pkg = await ensurePackage(tx, input.owner, input.type, input.name, input.semverCompatible);
  const found = await findVersion(tx, pkg.id, input.version);
  if (found) {
    if (existing === 'refuse') throw conflict('package version already exists');
    return { pkg, version: found, created: false };
  }
  await checkCountLimit(tx, config, input.owner);
  const [raw] = await tx.query<Record<string, unknown>>(
    `INSERT INTO package_version (package_id, creator_id, version, lower_version, metadata) VALUES ($1, $2, $3, $4, $5) RETURNING *`,
    [pkg.id, input.creator.id, input.version, input.version.toLowerCase(), JSON.stringify(input.metadata ?? {})],
  );
  const version = toVersion(raw);
  await emit(tx, {
    kind: 'package',
    doerId: input.creator.id,
    payload: { action: 'created', owner_id: input.owner.id, package_id: pkg.id, version_id: version.id, type: pkg.type, name: pkg.name, version: version.version },
  });
  return { pkg, version, created: true };
}

export interface NewFile {
  name: string;
  compositeKey?: string;
  isLead?: boolean;
  /** Replace a file of the same name (Maven's metadata files); otherwise the same name is a 409. */
  replace?: boolean;
}

/** Adds an uploaded file to a version after checking the size limits; the upload's bytes become the file's blob. */
export async function addFile(tx: Tx, deps: { blobs: BlobStore; config: Config }, owner: UserRow, pkg: PackageRow, version: PackageVersionRow, upload: PackageUpload, file: NewFile): Promise<PackageFileView> {
  await checkSizeLimits(tx, deps.config, owner, pkg.type, upload.size);
  const compositeKey = file.compositeKey ?? '';
  const previous = await findFile(tx, version.id, file.name, compositeKey);
  if (previous) {
    if (!file.replace) throw conflict('package file already exists');
    await tx.query('DELETE FROM package_file WHERE id = $1', [previous.id]);
  }
  const blob = await attachUpload(tx, deps.blobs, upload);
  const [raw] = await tx.query<Record<string, unknown>>(
    `INSERT INTO package_file (version_id, blob_id, name, lower_name, composite_key, is_lead) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (version_id, lower_name, composite_key) DO NOTHING RETURNING *`,
    [version.id, blob.id, file.name, file.name.toLowerCase(), compositeKey, file.isLead ?? false],
  );
  if (!raw) throw conflict('package file already exists');
  if (previous) await releaseBlobs(tx, deps.blobs, [previous.blob_id]);
  return { ...toFile(raw), blob };
}

export async function setVersionMetadata(tx: Tx, version: PackageVersionRow, metadata: Record<string, unknown>): Promise<void> {
  await tx.query('UPDATE package_version SET metadata = $2 WHERE id = $1', [version.id, JSON.stringify(metadata)]);
}

/** Removes one file; the version goes with its last file, the package with its last version. */
export async function deleteFile(tx: Tx, blobs: BlobStore, file: PackageFileRow): Promise<void> {
  await tx.query('DELETE FROM package_file WHERE id = $1', [file.id]);
  const [left] = await tx.query<{ n: string }>('SELECT count(*) AS n FROM package_file WHERE version_id = $1', [file.version_id]);
  if (Number(left.n) === 0) {
    const [raw] = await tx.query<Record<string, unknown>>('SELECT * FROM package_version WHERE id = $1', [file.version_id]);
    if (raw) await deleteVersion(tx, blobs, toVersion(raw), null);
  }
  await releaseBlobs(tx, blobs, [file.blob_id]);
}

/** Removes a version with its files (and the package with its last version); blobs no file names go once that commits. */
export async function deleteVersion(tx: Tx, blobs: BlobStore, version: PackageVersionRow, doer: UserRow | null): Promise<void> {
  const files = await tx.query<{ blob_id: string }>('DELETE FROM package_file WHERE version_id = $1 RETURNING blob_id', [version.id]);
  const [gone] = await tx.query<Record<string, unknown>>('DELETE FROM package_version WHERE id = $1 RETURNING *', [version.id]);
  if (!gone) throw notFound('package version does not exist', 'package does not exist');
  const [pkg] = await tx.query<Record<string, unknown>>('SELECT * FROM package WHERE id = $1', [version.package_id]);
  if (doer && pkg) {
    await emit(tx, {
      kind: 'package',
      doerId: doer.id,
      payload: { action: 'deleted', owner_id: Number(pkg.owner_id), package_id: version.package_id, version_id: version.id, type: String(pkg.type), name: String(pkg.name), version: version.version },
      snapshot: { package: { pkg: toPackage(pkg), version: toVersion(gone) } },
    });
  }
  await tx.query('DELETE FROM package p WHERE p.id = $1 AND NOT EXISTS (SELECT 1 FROM package_version v WHERE v.package_id = p.id)', [version.package_id]);
  await releaseBlobs(tx, blobs, files.map((f) => Number(f.blob_id)));
}

// ---- limits (Gitea's [packages] LIMIT_*), answered with 413

async function checkCountLimit(tx: Tx, config: Config, owner: UserRow): Promise<void> {
  const limit = config.packages.limitTotalOwnerCount;
  if (limit < 0) return;
  const [row] = await tx.query<{ n: string }>(
    'SELECT count(*) AS n FROM package_version v JOIN package p ON p.id = v.package_id WHERE p.owner_id = $1 AND NOT v.is_internal', [owner.id]);
  if (Number(row.n) >= limit) throw tooLarge('maximum allowed package count exceeded');
}

/** The limit for one file of a type, checked while it streams in; -1 for none. */
export function typeSizeLimit(config: Config, type: PackageType): number {
  return config.packages.limitSize[type] ?? -1;
}

const typeSizeMessage = 'maximum allowed package type size exceeded';
const quotaMessage = 'maximum allowed package storage quota exceeded';

/** The bytes of every file of the owner's packages (Gitea's CalculateFileSize). */
async function ownerSize(db: Queryable, owner: UserRow): Promise<number> {
  const [row] = await db.query<{ n: string | null }>(
    `SELECT sum(b.size) AS n FROM package_file f JOIN package_blob b ON b.id = f.blob_id
     JOIN package_version v ON v.id = f.version_id JOIN package p ON p.id = v.package_id WHERE p.owner_id = $1`,
    [owner.id],
  );
  return Number(row.n ?? 0);
}

/**
 * How many more bytes an upload of `type` for `owner` may bring, `already` of them received: the type's limit or what
 * the owner's quota leaves, whichever binds, with its message. A size the client declared (its Content-Length) past
 * that is refused here, before a byte of the body is read. The transaction recording the file checks again.
 */
export async function uploadLimit(db: Queryable, config: Config, owner: UserRow, type: PackageType, declared: number | null = null, already = 0): Promise<UploadLimit> {
  const limits: UploadLimit[] = [];
  const typeLimit = typeSizeLimit(config, type);
  if (typeLimit >= 0) limits.push({ bytes: Math.max(typeLimit - already, 0), message: typeSizeMessage });
  const total = config.packages.limitTotalOwnerSize;
  if (total >= 0) limits.push({ bytes: Math.max(total - (await ownerSize(db, owner)) - already, 0), message: quotaMessage });
  const binding = limits.sort((a, b) => a.bytes - b.bytes)[0] ?? noUploadLimit;
  if (declared !== null && binding.bytes >= 0 && declared > binding.bytes) throw tooLarge(binding.message);
  return binding;
}

async function checkSizeLimits(tx: Tx, config: Config, owner: UserRow, type: PackageType, size: number): Promise<void> {
  const typeLimit = typeSizeLimit(config, type);
  if (typeLimit >= 0 && size > typeLimit) throw tooLarge(typeSizeMessage);
  const total = config.packages.limitTotalOwnerSize;
  if (total >= 0 && (await ownerSize(tx, owner)) + size > total) throw tooLarge(quotaMessage);
}

const likeText = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** An owner's packages of one type whose lower-case name contains `text`, by name, one window and the count of all. */
export async function searchPackagesByName(
  db: Queryable, ownerId: number, type: string, text: string, limit: number, offset: number,
): Promise<{ rows: PackageRow[]; total: number }> {
  const rows = await db.query<Record<string, unknown> & { total: number }>(
    `SELECT p.*, count(*) OVER ()::int AS total FROM package p WHERE p.owner_id = $1 AND p.type = $2 AND p.lower_name LIKE $3
     ORDER BY p.lower_name LIMIT $4 OFFSET $5`,
    [ownerId, type, likeText(text), limit, offset],
  );
  return { rows: rows.map(({ total: _total, ...row }) => toPackage(row)), total: rows[0]?.total ?? 0 };
}

/** Cargo's crate search: each matching crate's newest version and its description, by name, with the count of all. */
export async function searchCrates(
  db: Queryable, ownerId: number, text: string, limit: number,
): Promise<{ rows: Array<{ name: string; max_version: string; description: string | null }>; total: number }> {
  const rows = await db.query<{ name: string; max_version: string; description: string | null; total: number }>(
    `SELECT p.name, (SELECT v.version FROM package_version v WHERE v.package_id = p.id ORDER BY v.created DESC, v.id DESC LIMIT 1) AS max_version,
       (SELECT v.metadata->>'description' FROM package_version v WHERE v.package_id = p.id ORDER BY v.created DESC, v.id DESC LIMIT 1) AS description,
       count(*) OVER ()::int AS total
     FROM package p WHERE p.owner_id = $1 AND p.type = 'cargo' AND p.lower_name LIKE $2 ORDER BY p.lower_name LIMIT $3`,
    [ownerId, likeText(text), limit],
  );
  return { rows: rows.map(({ total: _total, ...row }) => row), total: rows[0]?.total ?? 0 };
}
