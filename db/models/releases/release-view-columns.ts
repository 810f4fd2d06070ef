import type { AttachmentRow } from './attachments.js';
import type { ReleaseRow } from './releases.js';
import { userRowFromJson, type UserRow } from '../users/user-row.js';
import { rowFromJson } from '../../sql.js';

/** A release with what its JSON shows besides the row: the publisher (null once deleted) and the attachments. */
export interface ReleaseView {
  release: ReleaseRow;
  publisher: UserRow | null;
  attachments: AttachmentRow[];
}

export const attachmentFromJson = (json: Record<string, unknown>): AttachmentRow => rowFromJson<AttachmentRow>(json, ['created']);

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
