import type { Queryable } from '../data-source.js';
import type { AttachmentRow } from '../models/releases/attachments.js';
import type { ReleaseRow } from '../models/releases/releases.js';
import {
  attachmentFromJson, releaseViewOf, releaseViewSql, type ReleaseView, type ReleaseViewColumns,
} from '../models/releases/release-view-columns.js';
import { userRowFromJson } from '../models/users/user-row.js';

export type { ReleaseView };

/** The views of a list of releases in one statement, whatever its length: publishers and attachments as JSON. */
export async function loadReleaseViews(db: Queryable, releases: ReleaseRow[]): Promise<ReleaseView[]> {
  if (releases.length === 0) return [];
  const [row] = await db.query<{ publishers: Array<Record<string, unknown>>; attachments: Array<Record<string, unknown>> }>(
    `SELECT (SELECT coalesce(json_agg(u), '[]') FROM "user" u WHERE u.id = ANY($1::bigint[])) AS publishers,
            (SELECT coalesce(json_agg(a ORDER BY a.release_id, a.name, a.id), '[]') FROM attachment a WHERE a.release_id = ANY($2::bigint[])) AS attachments`,
    [[...new Set(releases.map((r) => r.publisher_id).filter((id) => id !== null))], releases.map((r) => r.id)],
  );
  const publishers = new Map(row.publishers.map((json) => userRowFromJson(json)).map((user) => [user.id, user]));
  const attachments = new Map<number, AttachmentRow[]>();
  for (const attachment of row.attachments.map(attachmentFromJson)) {
    const ofRelease = attachments.get(attachment.release_id!);
    if (ofRelease) ofRelease.push(attachment);
    else attachments.set(attachment.release_id!, [attachment]);
  }
  return releases.map((release) => ({
    release,
    publisher: publishers.get(release.publisher_id ?? 0) ?? null,
    attachments: attachments.get(release.id) ?? [],
  }));
}

export async function loadReleaseView(db: Queryable, release: ReleaseRow): Promise<ReleaseView> {
  return (await loadReleaseViews(db, [release]))[0];
}

/** The view of a release (not a bare tag) by id, row included, in one statement; null when there is none. */
export async function findReleaseView(db: Queryable, releaseId: number): Promise<ReleaseView | null> {
  const [row] = await db.query<ReleaseViewColumns>(`SELECT ${releaseViewSql('r')} FROM release r WHERE r.id = $1 AND NOT r.is_tag`, [releaseId]);
  return row ? releaseViewOf(row) : null;
}
