import type { Queryable } from './data-source.js';
import type { ProtectionRow } from './models/code/branch-protection.js';
import type { LabelRow } from './models/orgs/labels.js';
import type { OrgRow } from './models/orgs/orgs.js';
import type { TeamRow } from './models/orgs/teams.js';
import type { RepoRow } from './models/repos/repo-row.js';

/** The tables partial updates write, with their rows: a change names columns of the row. Each has an `updated` column. */
export interface UpdatableRows {
  /** Users and organizations share the table; OrgRow has every column. */
  user: OrgRow;
  repository: RepoRow;
  protected_branch: ProtectionRow;
  label: LabelRow;
  team: TeamRow;
}

export type UpdatableTable = keyof UpdatableRows;
/** New values by column; pg serializes them (objects as JSON). */
export type RowChanges<T extends UpdatableTable> = Partial<Record<keyof UpdatableRows[T] & string, unknown>>;

const tableNames: Record<UpdatableTable, string> = {
  user: '"user"',
  repository: 'repository',
  protected_branch: 'protected_branch',
  label: 'label',
  team: 'team',
};

/** A column name, quoted; names come from the row types, the check keeps anything else out of the SQL text. */
function quoteColumn(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a column name: ${name}`);
  return `"${name}"`;
}

/**
 * Gitea's UpdateCols: sets the given columns of row `id` and `updated = now()` (also when `changes` is empty),
 * and answers the row as it now is, or null when no row has that id (and the `where` columns' values).
 */
export async function updateRow<T extends UpdatableTable, R = Record<string, unknown>>(
  tx: Queryable,
  table: T,
  id: number,
  changes: RowChanges<T>,
  options: { where?: RowChanges<T> } = {},
): Promise<R | null> {
  const params: unknown[] = [id];
  const assignments = Object.entries(changes).map(([column, value]) => `${quoteColumn(column)} = $${params.push(value)}`);
  const conditions = Object.entries(options.where ?? {}).map(([column, value]) => ` AND ${quoteColumn(column)} = $${params.push(value)}`);
  const [row] = await tx.query<R>(
    `UPDATE ${tableNames[table]} SET ${[...assignments, 'updated = now()'].join(', ')} WHERE id = $1${conditions.join('')} RETURNING *`,
    params,
  );
  return row ?? null;
}

/** Which rows of a list a caller asked for. */
export interface PageWindow {
  limit: number;
  offset: number;
}

export interface PageQuery {
  /** The columns of each row, e.g. `u.*`. */
  select: string;
  /** Everything after FROM that chooses the rows: tables, joins and the WHERE clause, using `params` as $1..$n. */
  from: string;
  params: unknown[];
  /** A total order (end with a unique column), so pages neither overlap nor skip rows. */
  orderBy: string;
  /** Parameters of `orderBy` alone, numbered after `params`. */
  orderParams?: unknown[];
  /** Without a window, every row. */
  page?: PageWindow;
}

/** A page of rows and the number of rows on all pages: the count, then the page, with the same FROM and WHERE. */
export async function selectPage<T>(db: Queryable, query: PageQuery): Promise<{ rows: T[]; total: number }> {
  const [{ total }] = await db.query<{ total: number }>(`SELECT count(*)::int AS total FROM ${query.from}`, query.params);
  return { rows: await selectRows<T>(db, query), total };
}

/** The page alone, for a caller that knows the total another way. */
export async function selectRows<T>(db: Queryable, query: PageQuery): Promise<T[]> {
  const params = [...query.params, ...(query.orderParams ?? [])];
  const window = query.page ? ` LIMIT $${params.push(query.page.limit)} OFFSET $${params.push(query.page.offset)}` : '';
  return db.query<T>(`SELECT ${query.select} FROM ${query.from} ORDER BY ${query.orderBy}${window}`, params);
}

/**
 * A row PostgreSQL rendered as JSON (`json_agg(t)`, `to_jsonb(t)`), with its timestamp columns revived as dates;
 * numbers (bigint ids included) come as numbers already.
 */
export function rowFromJson<T>(json: Record<string, unknown>, dates: ReadonlyArray<keyof T & string>): T {
  const row: Record<string, unknown> = { ...json };
  for (const column of dates) {
    const value = json[column];
    row[column] = value === null || value === undefined ? null : new Date(value as string);
  }
  return row as T;
}
