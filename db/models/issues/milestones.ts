import type { Queryable, Tx } from '../../data-source.js';
import { invalid, notFound } from '../../errors.js';
import { selectPage } from '../../sql.js';
import type { MilestoneRow } from './issue-row.js';

export type MilestoneState = 'open' | 'closed' | 'all';

export interface MilestoneInput {
  title?: string;
  description?: string;
  due_on?: Date;
  state?: 'open' | 'closed';
}

export async function findMilestone(db: Queryable, repoId: number, id: number): Promise<MilestoneRow | null> {
  const [row] = await db.query<MilestoneRow>('SELECT * FROM milestone WHERE id = $1 AND repo_id = $2', [id, repoId]);
  return row ?? null;
}

/** Gitea's getMilestoneByIDOrName: a number names an id first, then anything is tried as a name. */
export async function getMilestoneByIdOrName(db: Queryable, repoId: number, key: string): Promise<MilestoneRow> {
  if (/^\d{1,15}$/.test(key)) {
    const byId = await findMilestone(db, repoId, Number(key));
    if (byId) return byId;
  }
  const [byName] = await db.query<MilestoneRow>('SELECT * FROM milestone WHERE repo_id = $1 AND lower(name) = lower($2) ORDER BY id LIMIT 1', [repoId, key]);
  if (!byName) throw notFound(`milestone ${key} does not exist`);
  return byName;
}

/** A milestone of the repository for an issue to be put in: an unknown id is a 422. */
export async function resolveMilestone(db: Queryable, repoId: number, id: number): Promise<MilestoneRow> {
  const row = await findMilestone(db, repoId, id);
  if (!row) throw invalid(`milestone does not exist [id: ${id}, repo_id: ${repoId}]`);
  return row;
}

export async function milestonesByIds(db: Queryable, ids: ReadonlyArray<number | null>): Promise<Map<number, MilestoneRow>> {
  const wanted = [...new Set(ids.filter((id): id is number => id !== null))];
  if (wanted.length === 0) return new Map();
  const rows = await db.query<MilestoneRow>('SELECT * FROM milestone WHERE id = ANY($1::bigint[])', [wanted]);
  return new Map(rows.map((row) => [row.id, row]));
}

/** Milestones of a repository, the nearest due first (those without a due date last), as Gitea sorts them. */
export async function listMilestones(
  db: Queryable, repoId: number, filter: { state: MilestoneState; name?: string }, page?: { limit: number; offset: number },
): Promise<{ rows: MilestoneRow[]; total: number }> {
  const params: unknown[] = [repoId];
  const conditions = ['repo_id = $1'];
  if (filter.state !== 'all') conditions.push(`is_closed = $${params.push(filter.state === 'closed')}`);
  if (filter.name) conditions.push(`strpos(lower(name), lower($${params.push(filter.name)})) > 0`);
  return selectPage<MilestoneRow>(db, { select: '*', from: `milestone WHERE ${conditions.join(' AND ')}`, params, orderBy: 'deadline ASC NULLS LAST, id ASC', page });
}

function assertTitle(title: string): void {
  if (!title.trim()) throw invalid('[Title]: Required');
  if (title.length > 255) throw invalid('[Title]: must be at most 255 characters');
}

export async function createMilestone(tx: Tx, repoId: number, input: MilestoneInput): Promise<MilestoneRow> {
  assertTitle(input.title ?? '');
  const closed = input.state === 'closed';
  const [row] = await tx.query<MilestoneRow>(
    `INSERT INTO milestone (repo_id, name, content, deadline, is_closed, closed_at)
     VALUES ($1, $2, $3, $4, $5, CASE WHEN $5 THEN now() END) RETURNING *`,
    [repoId, input.title, input.description ?? '', input.due_on ?? null, closed],
  );
  return row;
}

/** Gitea's EditMilestone: a non-empty title, and the other fields when given; changing the state sets or clears closed_at. */
export async function editMilestone(tx: Tx, milestone: MilestoneRow, edit: MilestoneInput): Promise<MilestoneRow> {
  if (edit.title !== undefined && edit.title !== '') assertTitle(edit.title);
  const closed = edit.state === undefined ? milestone.is_closed : edit.state === 'closed';
  const [row] = await tx.query<MilestoneRow>(
    `UPDATE milestone SET name = $2, content = $3, deadline = $4, is_closed = $5,
       closed_at = CASE WHEN $5 = is_closed THEN closed_at WHEN $5 THEN now() END, updated = now()
     WHERE id = $1 RETURNING *`,
    [milestone.id, edit.title || milestone.name, edit.description ?? milestone.content, edit.due_on ?? milestone.deadline, closed],
  );
  if (!row) throw notFound();
  return row;
}

/** Deletes the milestone; its issues lose it (the foreign key clears their milestone_id). */
export async function deleteMilestone(tx: Tx, milestone: MilestoneRow): Promise<void> {
  await tx.query('DELETE FROM milestone WHERE id = $1', [milestone.id]);
}

/** Gitea's UpdateMilestoneCounters: the open and closed issue counts recomputed. */
export async function recountMilestones(tx: Tx, ids: ReadonlyArray<number | null>): Promise<void> {
  const wanted = [...new Set(ids.filter((id): id is number => id !== null))];
  if (wanted.length === 0) return;
  await tx.query(
    `UPDATE milestone m SET
       num_issues = (SELECT count(*) FROM issue i WHERE i.milestone_id = m.id),
       num_closed_issues = (SELECT count(*) FROM issue i WHERE i.milestone_id = m.id AND i.is_closed)
     WHERE m.id = ANY($1::bigint[])`,
    [wanted],
  );
}
