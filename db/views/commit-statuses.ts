import type { Queryable } from '../data-source.js';
import type { CommitStatusRow } from '../models/code/commit-statuses.js';
import { findUsersByIds } from '../models/users/users.js';
import type { UserRow } from '../models/users/user-row.js';

/** A commit status with its creator (null once deleted). */
export interface CommitStatusView {
  status: CommitStatusRow;
  creator: UserRow | null;
}

/** The views of a list of statuses in one query, whatever its length. */
export async function loadCommitStatusViews(db: Queryable, statuses: CommitStatusRow[]): Promise<CommitStatusView[]> {
  const creators = await findUsersByIds(db, statuses.map((s) => s.creator_id));
  return statuses.map((status) => ({ status, creator: creators.get(status.creator_id ?? 0) ?? null }));
}
