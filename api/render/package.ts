import type { PackageFileView } from '../../db/models/packages/packages.js';
import type { UserRow } from '../../db/models/users/user-row.js';
import type { PackageView } from '../../db/views/packages.js';
import { iso } from './time.js';
import { renderUser, type ApiUser, type RenderContext } from './user.js';

/** Gitea's Package: one version of a package (its id is the version's). */
export interface ApiPackage {
  id: number;
  owner: ApiUser;
  repository: null;
  creator: ApiUser | null;
  type: string;
  name: string;
  version: string;
  html_url: string;
  created_at: string;
}

/** Gitea's PackageFile; `Size` is capitalised in Gitea's JSON too. */
export interface ApiPackageFile {
  id: number;
  Size: number;
  name: string;
  md5: string;
  sha1: string;
  sha256: string;
  sha512: string;
}

export function renderPackage(view: PackageView, viewer: UserRow | null, ctx: RenderContext): ApiPackage {
  const { pkg, version, owner, creator } = view;
  return {
    id: version.id,
    owner: renderUser(owner, viewer, ctx),
    repository: null,
    creator: creator ? renderUser(creator, viewer, ctx) : null,
    type: pkg.type,
    name: pkg.name,
    version: version.version,
    html_url: `${ctx.rootUrl}${encodeURIComponent(owner.name)}/-/packages/${pkg.type}/${encodeURIComponent(pkg.name)}/${encodeURIComponent(version.version)}`,
    created_at: iso(version.created),
  };
}

export function renderPackageFile(file: PackageFileView): ApiPackageFile {
  return {
    id: file.id,
    Size: file.blob.size,
    name: file.name,
    md5: file.blob.hash_md5,
    sha1: file.blob.hash_sha1,
    sha256: file.blob.hash_sha256,
    sha512: file.blob.hash_sha512,
  };
}
