import type { BlobStore } from '../../../blob-store.js';
import type { Tx } from '../../../data-source.js';

/**
 * Gitea's expired unreferenced blobs: package blobs that no package file names (their versions deleted while a
 * removal of the bytes did not happen, or a publish that never committed its file), stored more than
 * `olderThanSeconds` ago. The rows now, the bytes once that commits.
 */
export async function deleteUnreferencedPackageBlobs(tx: Tx, blobs: BlobStore, olderThanSeconds: number): Promise<number> {
  const gone = await tx.query<{ blob_key: string }>(
    `DELETE FROM package_blob b WHERE b.created < now() - $1 * interval '1 second'
       AND NOT EXISTS (SELECT 1 FROM package_file f WHERE f.blob_id = b.id)
     RETURNING blob_key`,
    [olderThanSeconds],
  );
  tx.afterCommit(async () => {
    for (const { blob_key } of gone) await blobs.delete(blob_key);
  });
  return gone.length;
}
