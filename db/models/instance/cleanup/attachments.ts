import type { BlobStore } from '../../../blob-store.js';
import type { Tx } from '../../../data-source.js';

/**
 * Removes attachments that no issue, comment or release names, uploaded more than `olderThanSeconds` ago: the rows
 * now, the files once that commits.
 */
export async function deleteUnlinkedAttachments(tx: Tx, blobs: BlobStore, olderThanSeconds: number): Promise<number> {
  const gone = await tx.query<{ uuid: string }>(
    `DELETE FROM attachment WHERE issue_id IS NULL AND comment_id IS NULL AND release_id IS NULL
       AND created < now() - $1 * interval '1 second' RETURNING uuid::text`,
    [olderThanSeconds],
  );
  tx.afterCommit(async () => {
    for (const { uuid } of gone) await blobs.delete(uuid);
  });
  return gone.length;
}
