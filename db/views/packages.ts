import type { Queryable } from '../data-source.js';
import { selectPage, type PageWindow } from '../sql.js';
import type { PackageRow, PackageType, PackageVersionRow } from '../models/packages/packages.js';
import { findUsersByIds } from '../models/users/users.js';
import type { UserRow } from '../models/users/user-row.js';

/** What Gitea's Package object shows: one version of a package with its owner and creator. */
export interface PackageView {
  pkg: PackageRow;
  version: PackageVersionRow;
  owner: UserRow;
  creator: UserRow | null;
}

export async function loadPackageViews(db: Queryable, owner: UserRow, versions: Array<{ pkg: PackageRow; version: PackageVersionRow }>): Promise<PackageView[]> {
  const creators = await findUsersByIds(db, versions.map((v) => v.version.creator_id));
  return versions.map(({ pkg, version }) => ({ pkg, version, owner, creator: version.creator_id === null ? null : creators.get(version.creator_id) ?? null }));
}

export interface VersionFilter {
  type?: PackageType;
  /** A part of the package name. */
  q?: string;
}

/** An owner's package versions, newest first (Gitea's SearchVersions), with the total for paging. */
export async function listOwnerVersions(db: Queryable, owner: UserRow, filter: VersionFilter, page: PageWindow): Promise<{ rows: PackageView[]; total: number }> {
  const params: unknown[] = [owner.id];
  let where = 'p.owner_id = $1 AND NOT v.is_internal';
  if (filter.type) where += ` AND p.type = $${params.push(filter.type)}`;
  if (filter.q) where += ` AND p.lower_name LIKE $${params.push(`%${filter.q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`)}`;
  const { rows, total } = await selectPage<Record<string, unknown>>(db, {
    select: 'to_jsonb(p) AS pkg, to_jsonb(v) AS version',
    from: `package_version v JOIN package p ON p.id = v.package_id WHERE ${where}`,
    params,
    orderBy: 'v.created DESC, v.id DESC',
    page,
  });
  const versions = rows.map((row) => ({ pkg: fromJson<PackageRow>(row.pkg), version: fromJson<PackageVersionRow>(row.version) }));
  return { rows: await loadPackageViews(db, owner, versions), total };
}

/** A row read back through to_jsonb: ids are numbers already, timestamps strings. */
function fromJson<T extends { created: Date }>(value: unknown): T {
  const row = value as T;
  return { ...row, created: new Date(row.created) };
}
