import type { Queryable } from '../../data-source.js';
import type { CommentRow } from './issue-row.js';

export async function findCommentById(db: Queryable, id: number): Promise<CommentRow | null> {
  const [row] = await db.query<CommentRow>('SELECT * FROM comment WHERE id = $1', [id]);
  return row ?? null;
}
