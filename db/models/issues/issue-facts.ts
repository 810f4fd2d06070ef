import type { Tx } from '../../data-source.js';
import type { UserRow } from '../users/user-row.js';
import type { CommentRow, IssueRow } from './issue-row.js';

/** What every issue event names: the issue by id and index, and whether it is a pull request. */
export const issueFacts = (issue: IssueRow): { issue_id: number; index: number; is_pull: boolean } =>
  ({ issue_id: issue.id, index: issue.index, is_pull: issue.is_pull });

/** The columns a timeline entry may set besides its type. */
export type TimelineFields = Partial<Omit<CommentRow, 'id' | 'issue_id' | 'poster_id' | 'created' | 'updated'>> & { type: number };

const timelineColumns = [
  'type', 'label_id', 'old_milestone_id', 'milestone_id', 'assignee_id', 'removed_assignee', 'old_title', 'new_title', 'old_ref',
  'new_ref', 'dependent_issue_id', 'ref_repo_id', 'ref_issue_id', 'ref_comment_id', 'ref_action', 'ref_is_pull', 'commit_sha',
  'time_id', 'review_id', 'content',
] as const;

/**
 * Records one entry of the issue's timeline (Gitea's CreateComment for a typed comment). Plain comments
 * (type 0) are written by createComment, which also counts them.
 */
export async function addTimelineComment(tx: Tx, issue: IssueRow, doer: UserRow, fields: TimelineFields): Promise<CommentRow> {
  const columns = timelineColumns.filter((column) => fields[column] !== undefined);
  const values = columns.map((column) => fields[column]);
  const [row] = await tx.query<CommentRow>(
    `INSERT INTO comment (issue_id, poster_id, ${columns.join(', ')})
     VALUES ($1, $2, ${columns.map((_, i) => `$${i + 3}`).join(', ')}) RETURNING *`,
    [issue.id, doer.id, ...values],
  );
  return row;
}
