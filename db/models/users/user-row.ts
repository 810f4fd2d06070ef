import type { Queryable } from '../../data-source.js';
import type { AccessMode } from '../repos/repo-row.js';

/** A row of the `user` table, as every model operation and renderer sees it. */
export interface UserRow {
  id: number;
  lower_name: string;
  name: string;
  full_name: string;
  email: string;
  keep_email_private: boolean;
  passwd: string;
  passwd_hash_algo: string;
  salt: string;
  must_change_password: boolean;
  login_source: number;
  login_name: string;
  type: number;
  location: string;
  website: string;
  description: string;
  language: string;
  theme: string;
  diff_view_style: string;
  visibility: number;
  is_admin: boolean;
  is_active: boolean;
  prohibit_login: boolean;
  restricted: boolean;
  allow_git_hook: boolean;
  allow_import_local: boolean;
  allow_create_organization: boolean;
  max_repo_creation: number;
  hide_activity: boolean;
  num_followers: number;
  num_following: number;
  num_stars: number;
  num_repos: number;
  avatar: string;
  created: Date;
  updated: Date;
  last_login: Date | null;
  /**
   * Not a column: set on the actions bot's row when a task token authenticated the request. The bot then acts in
   * the task's repository only, with this mode (db/models/access.ts applies it).
   */
  actions_task?: { task_id: number; repo_id: number; mode: AccessMode };
}

export const userTypes = { individual: 0, organization: 1, bot: 4 } as const;
export const visibilities = ['public', 'limited', 'private'] as const;
export type Visibility = (typeof visibilities)[number];

/**
 * A user row as a query returned it, taken over and converted in place (bigint columns may come as strings; ids stay
 * well inside Number's exact range). In place, because copying a row this wide costs more than reading it.
 */
export function toUserRow(raw: Record<string, unknown>): UserRow {
  raw.id = Number(raw.id);
  raw.login_source = Number(raw.login_source);
  return raw as unknown as UserRow;
}

/** A user row PostgreSQL rendered as JSON (`row_to_json(u)`), taken over with its timestamps revived in place. */
export function userRowFromJson(json: Record<string, unknown>): UserRow {
  json.created = timestampOf(json.created);
  json.updated = timestampOf(json.updated);
  json.last_login = timestampOf(json.last_login);
  return toUserRow(json);
}

/** A timestamp column as JSON renders it, as the Date pg would have read. */
export const timestampOf = (value: unknown): Date | null => (value === null || value === undefined ? null : new Date(value as string));

export async function findUsersByIds(db: Queryable, ids: ReadonlyArray<number | null>): Promise<Map<number, UserRow>> {
  const wanted = [...new Set(ids.filter((id): id is number => id !== null))];
  if (wanted.length === 0) return new Map();
  const rows = await db.query('SELECT * FROM "user" WHERE id = ANY($1::bigint[])', [wanted]);
  return new Map(rows.map((raw) => toUserRow(raw)).map((user) => [user.id, user]));
}
