/** An issue or comment row read back through to_jsonb (ids are numbers already): its timestamps become dates again. */
export function reviveJsonRow<T>(raw: T): T {
  const row = { ...raw } as Record<string, unknown>;
  for (const key of ['created', 'updated', 'deadline', 'closed_at']) {
    if (typeof row[key] === 'string') row[key] = new Date(row[key] as string);
  }
  return row as T;
}

/** A row of the `issue` table: an issue, or the issue of a pull request (`is_pull`). */
export interface IssueRow {
  id: number;
  repo_id: number;
  index: number;
  poster_id: number | null;
  original_author: string;
  original_author_id: number;
  title: string;
  content: string;
  milestone_id: number | null;
  priority: number;
  is_pull: boolean;
  is_closed: boolean;
  is_locked: boolean;
  num_comments: number;
  ref: string;
  pin_order: number;
  deadline: Date | null;
  closed_at: Date | null;
  created: Date;
  updated: Date;
}

/** A row of the `milestone` table. */
export interface MilestoneRow {
  id: number;
  repo_id: number;
  name: string;
  content: string;
  is_closed: boolean;
  num_issues: number;
  num_closed_issues: number;
  deadline: Date | null;
  closed_at: Date | null;
  created: Date;
  updated: Date;
}

/** A row of the `comment` table: a comment or a timeline event, as Gitea's `type` says. */
export interface CommentRow {
  id: number;
  type: CommentType;
  poster_id: number | null;
  original_author: string;
  original_author_id: number;
  issue_id: number;
  label_id: number | null;
  old_milestone_id: number | null;
  milestone_id: number | null;
  assignee_id: number | null;
  removed_assignee: boolean;
  old_title: string;
  new_title: string;
  old_ref: string;
  new_ref: string;
  dependent_issue_id: number | null;
  ref_repo_id: number | null;
  ref_issue_id: number | null;
  ref_comment_id: number | null;
  ref_action: number;
  ref_is_pull: boolean;
  commit_sha: string;
  time_id: number | null;
  review_id: number | null;
  content: string;
  /** Code comments (type `code`): the file, the signed line (negative: the old file's), the diff around it. */
  tree_path: string;
  line: number;
  patch: string;
  invalidated: boolean;
  resolve_doer_id: number | null;
  /** A team's review request (type `review_request`). */
  assignee_team_id: number | null;
  created: Date;
  updated: Date;
}

/** Gitea's CommentType names, in its numbering (the index is the stored `type`). */
export const commentTypeNames = [
  'comment', 'reopen', 'close', 'issue_ref', 'commit_ref', 'comment_ref', 'pull_ref', 'label', 'milestone', 'assignees',
  'change_title', 'delete_branch', 'start_tracking', 'stop_tracking', 'add_time_manual', 'cancel_tracking', 'added_deadline',
  'modified_deadline', 'removed_deadline', 'add_dependency', 'remove_dependency', 'code', 'review', 'lock', 'unlock',
  'change_target_branch', 'delete_time_manual', 'review_request', 'merge_pull', 'pull_push', 'project', 'project_board',
  'dismiss_review', 'change_issue_ref', 'pull_scheduled_merge', 'pull_cancel_scheduled_merge', 'pin', 'unpin',
] as const;

export type CommentTypeName = (typeof commentTypeNames)[number];
export type CommentType = number;

/** The stored number of a comment type. */
export const commentType = Object.fromEntries(commentTypeNames.map((name, index) => [name, index])) as Record<CommentTypeName, number>;
