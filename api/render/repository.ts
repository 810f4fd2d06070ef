import { accessModes, type AccessMode, type RepoRow } from '../../db/models/repos/repo-row.js';
import { sshCloneUrl } from '../../db/models/repos/ssh-url.js';
import type { RepoTransferView, RepoView } from '../../db/views/repo.js';
import type { UserRow } from '../../db/models/users/user-row.js';
import { renderTeam, type ApiTeam } from './team.js';
import { goZeroTime, iso } from './time.js';
import { renderUser, type ApiUser, type RenderContext } from './user.js';

export interface ApiPermission {
  admin: boolean;
  push: boolean;
  pull: boolean;
}

/** The RepoTransfer definition of the Gitea 1.22 API description. */
export interface ApiRepoTransfer {
  doer: ApiUser;
  recipient: ApiUser;
  teams: ApiTeam[];
}

/** The Repository definition of the Gitea 1.22 API description. */
export interface ApiRepository {
  id: number;
  owner: ApiUser;
  name: string;
  full_name: string;
  description: string;
  empty: boolean;
  private: boolean;
  fork: boolean;
  template: boolean;
  parent: ApiRepository | null;
  mirror: boolean;
  size: number;
  language: string;
  languages_url: string;
  html_url: string;
  url: string;
  link: string;
  ssh_url: string;
  clone_url: string;
  original_url: string;
  website: string;
  stars_count: number;
  forks_count: number;
  watchers_count: number;
  open_issues_count: number;
  open_pr_counter: number;
  release_counter: number;
  default_branch: string;
  archived: boolean;
  created_at: string;
  updated_at: string;
  archived_at: string;
  permissions: ApiPermission;
  has_issues: boolean;
  internal_tracker?: RepoRow['internal_tracker'];
  external_tracker?: Record<string, string>;
  has_wiki: boolean;
  external_wiki?: { external_wiki_url: string };
  has_pull_requests: boolean;
  has_projects: boolean;
  projects_mode: string;
  has_releases: boolean;
  has_packages: boolean;
  has_actions: boolean;
  ignore_whitespace_conflicts: boolean;
  allow_merge_commits: boolean;
  allow_rebase: boolean;
  allow_rebase_explicit: boolean;
  allow_squash_merge: boolean;
  allow_fast_forward_only_merge: boolean;
  allow_rebase_update: boolean;
  default_delete_branch_after_merge: boolean;
  default_merge_style: string;
  default_allow_maintainer_edit: boolean;
  avatar_url: string;
  internal: boolean;
  mirror_interval: string;
  object_format_name: string;
  mirror_updated: string;
  /** Hearth's own, on mirrors only: when the next scheduled sync is due (null: no schedule), and why the last one failed. */
  mirror_next_update?: string | null;
  mirror_last_error?: string;
  repo_transfer: ApiRepoTransfer | null;
}

export function renderPermission(mode: AccessMode): ApiPermission {
  return { admin: mode >= accessModes.admin, push: mode >= accessModes.write, pull: mode >= accessModes.read };
}

/** Go's time.Duration spelling, which Gitea uses for mirror_interval (e.g. "8h0m0s"). */
export function formatDuration(seconds: number): string {
  if (seconds === 0) return '0s';
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return h ? `${h}h${m}m${s}s` : m ? `${m}m${s}s` : `${s}s`;
}

/** Gitea's ToRepoTransfer: the users as anyone sees them, the teams without their organization. */
export function renderRepoTransfer(transfer: RepoTransferView, ctx: RenderContext): ApiRepoTransfer {
  return {
    doer: renderUser(transfer.doer, null, ctx),
    recipient: renderUser(transfer.recipient, null, ctx),
    teams: transfer.teams.map((team) => renderTeam({ team, org: null }, null, ctx)),
  };
}

/**
 * The issue tracker shows as internal_tracker or external_tracker (never both) and the wiki's external
 * address only while the unit is on, as Gitea renders the one unit that is enabled.
 */
export function renderRepository(view: RepoView, viewer: UserRow | null, ctx: RenderContext): ApiRepository {
  const { repo, owner, mode, mirror } = view;
  const fullName = `${owner.name}/${repo.name}`;
  const html = `${ctx.rootUrl}${fullName}`;
  return {
    id: repo.id,
    owner: renderUser(owner, viewer, ctx),
    name: repo.name,
    full_name: fullName,
    description: repo.description,
    empty: repo.is_empty,
    private: repo.is_private,
    fork: repo.is_fork,
    template: repo.is_template,
    parent: view.parent ? renderRepository(view.parent, viewer, ctx) : null,
    mirror: repo.is_mirror,
    size: Math.round(repo.size / 1024),
    language: '',
    languages_url: `${ctx.rootUrl}api/v1/repos/${fullName}/languages`,
    html_url: html,
    url: `${ctx.rootUrl}api/v1/repos/${fullName}`,
    link: '',
    ssh_url: sshCloneUrl(ctx.ssh, owner.name, repo.name),
    clone_url: `${html}.git`,
    original_url: repo.original_url,
    website: repo.website,
    stars_count: repo.num_stars,
    forks_count: repo.num_forks,
    watchers_count: repo.num_watches,
    open_issues_count: repo.num_issues - repo.num_closed_issues,
    open_pr_counter: repo.num_pulls - repo.num_closed_pulls,
    release_counter: repo.num_releases,
    default_branch: repo.default_branch,
    archived: repo.is_archived,
    created_at: iso(repo.created),
    updated_at: iso(repo.updated),
    archived_at: iso(repo.archived_at),
    permissions: renderPermission(mode),
    has_issues: repo.has_issues,
    ...(repo.has_issues && !repo.external_tracker ? { internal_tracker: repo.internal_tracker } : {}),
    ...(repo.has_issues && repo.external_tracker ? { external_tracker: repo.external_tracker } : {}),
    has_wiki: repo.has_wiki,
    ...(repo.has_wiki && repo.external_wiki ? { external_wiki: repo.external_wiki } : {}),
    has_pull_requests: repo.has_pull_requests,
    has_projects: repo.has_projects,
    projects_mode: repo.projects_mode,
    has_releases: repo.has_releases,
    has_packages: repo.has_packages,
    has_actions: repo.has_actions,
    ignore_whitespace_conflicts: repo.ignore_whitespace_conflicts,
    allow_merge_commits: repo.allow_merge_commits,
    allow_rebase: repo.allow_rebase,
    allow_rebase_explicit: repo.allow_rebase_explicit,
    allow_squash_merge: repo.allow_squash_merge,
    allow_fast_forward_only_merge: repo.allow_fast_forward_only_merge,
    allow_rebase_update: repo.allow_rebase_update,
    default_delete_branch_after_merge: repo.default_delete_branch_after_merge,
    default_merge_style: repo.default_merge_style,
    default_allow_maintainer_edit: repo.default_allow_maintainer_edit,
    avatar_url: repo.avatar ? `${ctx.rootUrl}repo-avatars/${repo.avatar}` : '',
    internal: false,
    mirror_interval: mirror ? formatDuration(mirror.interval_seconds) : '',
    object_format_name: repo.object_format_name,
    mirror_updated: mirror ? iso(mirror.updated) : goZeroTime,
    ...(mirror ? { mirror_next_update: mirror.next_update && iso(mirror.next_update), mirror_last_error: mirror.last_error } : {}),
    repo_transfer: view.transfer ? renderRepoTransfer(view.transfer, ctx) : null,
  };
}
