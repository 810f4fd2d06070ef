import type { Queryable } from '../data-source.js';
import type { AttachmentRow } from '../models/releases/attachments.js';
import type { ReleaseRow } from '../models/releases/releases.js';
import { userRowFromJson, type UserRow } from '../models/users/user-row.js';
import { rowFromJson } from '../sql.js';

/** A release with what its JSON shows besides the row: the publisher (null once deleted) and the attachments. */
export interface ReleaseView {
  release: ReleaseRow;
  publisher: UserRow | null;
  attachments: AttachmentRow[];
}

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

const attachmentFromJson = (json: Record<string, unknown>): AttachmentRow => rowFromJson<AttachmentRow>(json, ['created']);

/** SQL columns of the view of release row `alias` (any statement that has it), read back by releaseViewOf. */
export const releaseViewSql = (alias: string): string =>
  `row_to_json(${alias}) AS release, (SELECT row_to_json(u) FROM "user" u WHERE u.id = ${alias}.publisher_id) AS publisher,
   (SELECT coalesce(json_agg(a ORDER BY a.name, a.id), '[]') FROM attachment a WHERE a.release_id = ${alias}.id) AS attachments`;

export interface ReleaseViewColumns {
  release: Record<string, unknown>;
  publisher: Record<string, unknown> | null;
  attachments: Array<Record<string, unknown>>;
}

export function releaseViewOf(row: ReleaseViewColumns): ReleaseView {
  return {
    release: rowFromJson<ReleaseRow>(row.release, ['created']),
    publisher: row.publisher ? userRowFromJson(row.publisher) : null,
    attachments: row.attachments.map(attachmentFromJson),
  };
}

/** The view of a release (not a bare tag) by id, row included, in one statement; null when there is none. */
export async function findReleaseView(db: Queryable, releaseId: number): Promise<ReleaseView | null> {
  const [row] = await db.query<ReleaseViewColumns>(`SELECT ${releaseViewSql('r')} FROM release r WHERE r.id = $1 AND NOT r.is_tag`, [releaseId]);
  return row ? releaseViewOf(row) : null;
}
