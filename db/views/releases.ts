import type { Queryable } from '../data-source.js';
import { listReleaseAttachments, type AttachmentRow } from '../models/releases/attachments.js';
import type { ReleaseRow } from '../models/releases/releases.js';
import { findUsersByIds } from '../models/users/users.js';
import type { UserRow } from '../models/users/user-row.js';

/** A release with what its JSON shows besides the row: the publisher (null once deleted) and the attachments. */
export interface ReleaseView {
  release: ReleaseRow;
  publisher: UserRow | null;
  attachments: AttachmentRow[];
}

/** The views of a list of releases in two queries, whatever its length. */
export async function loadReleaseViews(db: Queryable, releases: ReleaseRow[]): Promise<ReleaseView[]> {
  const [publishers, attachments] = await Promise.all([
    findUsersByIds(db, releases.map((r) => r.publisher_id)),
    listReleaseAttachments(db, releases.map((r) => r.id)),
  ]);
  return releases.map((release) => ({
    release,
    publisher: publishers.get(release.publisher_id ?? 0) ?? null,
    attachments: attachments.get(release.id) ?? [],
  }));
}

export async function loadReleaseView(db: Queryable, release: ReleaseRow): Promise<ReleaseView> {
  return (await loadReleaseViews(db, [release]))[0];
}
