/** Gitea's PullRequestStatus. */
export const pullStatus = { conflict: 0, checking: 1, mergeable: 2, manuallyMerged: 3, error: 4, empty: 5, ancestor: 6 } as const;
export type PullStatus = (typeof pullStatus)[keyof typeof pullStatus];

/** A row of the `pull_request` table: the head and base of a pull request issue, its mergeability and its merge. */
export interface PullRow {
  id: number;
  issue_id: number;
  index: number;
  type: number;
  status: PullStatus;
  conflicted_files: string[];
  changed_protected_files: string[];
  commits_ahead: number;
  commits_behind: number;
  head_repo_id: number | null;
  base_repo_id: number;
  head_branch: string;
  base_branch: string;
  merge_base: string;
  head_commit_id: string;
  allow_maintainer_edit: boolean;
  has_merged: boolean;
  merged_commit_id: string;
  merger_id: number | null;
  merged_at: Date | null;
  created: Date;
  updated: Date;
}

/** The ref in the base repository that holds the pull request's head commit. */
export const pullHeadRef = (index: number): string => `refs/pull/${index}/head`;

/** Gitea's WORK_IN_PROGRESS_PREFIXES (default `WIP:`, `[WIP]`): a title starting with one marks a draft. */
const workInProgressPrefixes = ['wip:', '[wip]'];

export function isWorkInProgress(title: string): boolean {
  const lower = title.toLowerCase();
  return workInProgressPrefixes.some((prefix) => lower.startsWith(prefix));
}
