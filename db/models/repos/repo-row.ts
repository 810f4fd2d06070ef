import { timestampOf } from '../users/user-row.js';

/** A row of the `repository` table. */
export interface RepoRow {
  id: number;
  owner_id: number;
  owner_name: string;
  lower_name: string;
  name: string;
  description: string;
  website: string;
  original_url: string;
  /** The kind of service a migration came from (`gitea`, `git`, …), empty for a repository made here. */
  original_service_type: string;
  default_branch: string;
  object_format_name: string;
  num_watches: number;
  num_stars: number;
  num_forks: number;
  num_issues: number;
  num_closed_issues: number;
  num_pulls: number;
  num_closed_pulls: number;
  num_releases: number;
  is_private: boolean;
  is_empty: boolean;
  is_archived: boolean;
  archived_at: Date | null;
  is_mirror: boolean;
  /** 0 ready, 1 being migrated. */
  status: number;
  is_fork: boolean;
  fork_id: number | null;
  is_template: boolean;
  template_id: number | null;
  size: number;
  topics: string[];
  avatar: string;
  has_issues: boolean;
  has_wiki: boolean;
  has_pull_requests: boolean;
  has_projects: boolean;
  has_releases: boolean;
  has_packages: boolean;
  has_actions: boolean;
  projects_mode: string;
  ignore_whitespace_conflicts: boolean;
  allow_merge_commits: boolean;
  allow_rebase: boolean;
  allow_rebase_explicit: boolean;
  allow_squash_merge: boolean;
  allow_fast_forward_only_merge: boolean;
  allow_rebase_update: boolean;
  allow_manual_merge: boolean;
  autodetect_manual_merge: boolean;
  default_delete_branch_after_merge: boolean;
  default_merge_style: string;
  default_allow_maintainer_edit: boolean;
  internal_tracker: { enable_time_tracker: boolean; allow_only_contributors_to_track_time: boolean; enable_issue_dependencies: boolean };
  external_tracker: Record<string, string> | null;
  external_wiki: { external_wiki_url: string } | null;
  created: Date;
  updated: Date;
}

/** A repository row PostgreSQL rendered as JSON (`row_to_json(r)`), taken over with its timestamps revived in place. */
export function repoRowFromJson(json: Record<string, unknown>): RepoRow {
  json.created = timestampOf(json.created);
  json.updated = timestampOf(json.updated);
  json.archived_at = timestampOf(json.archived_at);
  return json as unknown as RepoRow;
}

/** Gitea's access modes, ordered: a higher mode includes the lower ones. */
export const accessModes = { none: 0, read: 1, write: 2, admin: 3, owner: 4 } as const;
export type AccessMode = (typeof accessModes)[keyof typeof accessModes];
