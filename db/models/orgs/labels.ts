import type { Queryable, Tx } from '../../data-source.js';
import { invalid, notFound } from '../../errors.js';
import { selectPage, updateRow, type RowChanges } from '../../sql.js';

/** A row of the `label` table: a label belongs to one repository or to one organization (shared by its repositories). */
export interface LabelRow {
  id: number;
  repo_id: number | null;
  org_id: number | null;
  name: string;
  exclusive: boolean;
  archived_at: Date | null;
  /** Always `#rrggbb`, lower case. */
  color: string;
  description: string;
  num_issues: number;
  num_closed_issues: number;
  created: Date;
  updated: Date;
}

export type LabelOwner = { repoId: number } | { orgId: number };

const colorPattern = /^#?(?:[\da-f]{6}|[\da-f]{3})$/;

/** Gitea's NormalizeColor: `rrggbb`, `#rrggbb` and the three-digit short forms become `#rrggbb`. */
export function normalizeLabelColor(color: string): string {
  const lower = color.trim().toLowerCase();
  if (!colorPattern.test(lower)) throw invalid(`bad color code: ${color}`);
  const hex = lower.replace(/^#/, '');
  return `#${hex.length === 3 ? [...hex].map((c) => c + c).join('') : hex}`;
}

function ownerColumn(owner: LabelOwner): ['repo_id' | 'org_id', number] {
  return 'repoId' in owner ? ['repo_id', owner.repoId] : ['org_id', owner.orgId];
}

function assertLabelName(name: string): void {
  if (!name.trim()) throw invalid('[Name]: label name must not be empty');
  if (name.length > 255) throw invalid('[Name]: label name must be at most 255 characters');
}

function assertDescription(description: string): void {
  if (description.length > 200) throw invalid('[Description]: label description must be at most 200 characters');
}

export interface LabelInput {
  name: string;
  color: string;
  description?: string;
  exclusive?: boolean;
  is_archived?: boolean;
}

export async function createLabel(tx: Tx, owner: LabelOwner, input: LabelInput): Promise<LabelRow> {
  assertLabelName(input.name);
  assertDescription(input.description ?? '');
  const color = normalizeLabelColor(input.color);
  const [column, id] = ownerColumn(owner);
  const [label] = await tx.query<LabelRow>(
    `INSERT INTO label (${column}, name, color, description, exclusive, archived_at)
     VALUES ($1, $2, $3, $4, $5, CASE WHEN $6 THEN now() END) RETURNING *`,
    [id, input.name, color, input.description ?? '', input.exclusive ?? false, input.is_archived ?? false],
  );
  return label;
}

/** The label with this id, if it belongs to `owner`. */
export async function findLabel(db: Queryable, owner: LabelOwner, id: number): Promise<LabelRow | null> {
  const [column, ownerId] = ownerColumn(owner);
  const [label] = await db.query<LabelRow>(`SELECT * FROM label WHERE id = $1 AND ${column} = $2`, [id, ownerId]);
  return label ?? null;
}

export async function findLabelByName(db: Queryable, owner: LabelOwner, name: string): Promise<LabelRow | null> {
  const [column, ownerId] = ownerColumn(owner);
  const [label] = await db.query<LabelRow>(`SELECT * FROM label WHERE name = $1 AND ${column} = $2 ORDER BY id LIMIT 1`, [name, ownerId]);
  return label ?? null;
}

export async function listLabels(db: Queryable, owner: LabelOwner, page: { limit: number; offset: number }): Promise<{ labels: LabelRow[]; total: number }> {
  const [column, ownerId] = ownerColumn(owner);
  const { rows, total } = await selectPage<LabelRow>(db, { select: '*', from: `label WHERE ${column} = $1`, params: [ownerId], orderBy: 'name, id', page });
  return { labels: rows, total };
}

export interface LabelEdit {
  name?: string;
  color?: string;
  description?: string;
  exclusive?: boolean;
  is_archived?: boolean;
}

/** Only the fields present change. */
export async function editLabel(tx: Tx, label: LabelRow, edit: LabelEdit): Promise<LabelRow> {
  const sets: RowChanges<'label'> = {};
  if (edit.name !== undefined) {
    assertLabelName(edit.name);
    sets.name = edit.name;
  }
  if (edit.color !== undefined) sets.color = normalizeLabelColor(edit.color);
  if (edit.description !== undefined) {
    assertDescription(edit.description);
    sets.description = edit.description;
  }
  if (edit.exclusive !== undefined) sets.exclusive = edit.exclusive;
  if (edit.is_archived !== undefined) sets.archived_at = edit.is_archived ? (label.archived_at ?? new Date()) : null;
  const row = await updateRow<'label', LabelRow>(tx, 'label', label.id, sets);
  if (!row) throw notFound();
  return row;
}

export async function deleteLabel(tx: Tx, label: LabelRow): Promise<void> {
  const deleted = await tx.query('DELETE FROM label WHERE id = $1 RETURNING id', [label.id]);
  if (deleted.length === 0) throw notFound();
}
