import { storedBlobs } from '../helpers/blobs.js';
import type { TestHearth } from '../helpers/hearth.js';

/** What the package tables and the blob store hold: a refusal must leave all of it as it was. */
export interface Stored {
  packages: number;
  versions: number;
  files: number;
  blobs: number;
  /** Every file under the blob store's root, temporary ones included (see storedBlobs). */
  blobFiles: string[];
}

export async function stored(hearth: TestHearth): Promise<Stored> {
  const [row] = await hearth.deps.db.query<Record<string, number>>(
    `SELECT (SELECT count(*)::int FROM package) AS packages, (SELECT count(*)::int FROM package_version) AS versions,
       (SELECT count(*)::int FROM package_file) AS files, (SELECT count(*)::int FROM package_blob) AS blobs`,
  );
  const blobFiles = await storedBlobs(hearth);
  return { packages: row.packages, versions: row.versions, files: row.files, blobs: row.blobs, blobFiles };
}
