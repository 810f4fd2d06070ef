import type { Tx } from '../../data-source.js';
import { invalid } from '../../errors.js';
import { emit } from '../../events/emit.js';
import { actionsUnitChanged } from '../actions/triggers.js';
import { assertValidBranchName, renameRepository, updateRepoColumns, type RepoContext } from './repos.js';
import type { RepoRow } from './repo-row.js';
import type { UserRow } from '../users/user-row.js';

export interface RepoEdit {
  name?: string;
  description?: string;
  website?: string;
  private?: boolean;
  template?: boolean;
  archived?: boolean;
  default_branch?: string;
  has_issues?: boolean;
  has_wiki?: boolean;
  has_pull_requests?: boolean;
  has_projects?: boolean;
  has_releases?: boolean;
  has_packages?: boolean;
  has_actions?: boolean;
  projects_mode?: 'repo' | 'owner' | 'all';
  internal_tracker?: { enable_time_tracker?: boolean; allow_only_contributors_to_track_time?: boolean; enable_issue_dependencies?: boolean };
  external_tracker?: { external_tracker_url?: string; external_tracker_format?: string; external_tracker_style?: string; external_tracker_regexp_pattern?: string };
  external_wiki?: { external_wiki_url?: string };
  ignore_whitespace_conflicts?: boolean;
  allow_merge_commits?: boolean;
  allow_rebase?: boolean;
  allow_rebase_explicit?: boolean;
  allow_squash_merge?: boolean;
  allow_fast_forward_only_merge?: boolean;
  allow_manual_merge?: boolean;
  autodetect_manual_merge?: boolean;
  allow_rebase_update?: boolean;
  default_delete_branch_after_merge?: boolean;
  default_merge_style?: 'merge' | 'rebase' | 'rebase-merge' | 'squash' | 'fast-forward-only' | 'manually-merged';
  default_allow_maintainer_edit?: boolean;
  mirror_interval?: string;
  enable_prune?: boolean;
}

export interface EditContext extends RepoContext {
  /** MIN_INTERVAL of [mirror], a Go duration. */
  minMirrorInterval: string;
  /** The public address: external tracker and wiki addresses may not point into this API. */
  appUrl: string;
}

/** The pull request unit's settings: they change only while pull requests are (or become) enabled. */
const pullRequestColumns = [
  'ignore_whitespace_conflicts', 'allow_merge_commits', 'allow_rebase', 'allow_rebase_explicit', 'allow_squash_merge',
  'allow_fast_forward_only_merge', 'allow_manual_merge', 'autodetect_manual_merge', 'allow_rebase_update',
  'default_delete_branch_after_merge', 'default_merge_style', 'default_allow_maintainer_edit',
] as const;

const durationUnits: Record<string, number> = { ns: 1e-9, us: 1e-6, 'µs': 1e-6, 'μs': 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };

/** Go's time.ParseDuration, which Gitea uses for mirror_interval ("8h", "1h30m", "90s", "1.5h", "0"), in whole seconds. */
export function parseDuration(text: string): number {
  const source = text.trim();
  const bad = invalid(`time: invalid duration "${text}"`);
  if (source === '0' || source === '+0' || source === '-0') return 0;
  const match = /^([-+]?)((?:(?:\d+\.?\d*|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+)$/.exec(source);
  if (!match) throw bad;
  let seconds = 0;
  for (const [, value, unit] of match[2].matchAll(/(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) seconds += Number(value) * durationUnits[unit];
  return Math.floor(match[1] === '-' ? -seconds : seconds);
}

/** Gitea's IsValidExternalURL: an http(s) address that does not point at this server's own API. */
function isValidExternalUrl(url: string, appUrl: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
  return !url.toLowerCase().startsWith(`${appUrl}api`.toLowerCase());
}

/** An external tracker format may only use the {user}, {repo} and {index} placeholders, each in braces. */
function isValidTrackerFormat(format: string, appUrl: string): boolean {
  if (!isValidExternalUrl(format, appUrl)) return false;
  return [...format.matchAll(/(\{?)(?:user|repo|index)(\}?)/g)].every(([, open, close]) => open === '{' && close === '}');
}

/**
 * The issue tracker is internal, external or off (Gitea's issues and external-tracker units). has_issues=true with
 * external_tracker switches to that tracker; without it, to the internal one (with internal_tracker's settings, the
 * current ones, or the defaults); false turns both off. Without has_issues, the tracker in use takes its own settings.
 */
function decideIssueColumns(repo: RepoRow, edit: RepoEdit, appUrl: string): Record<string, unknown> {
  const enabled = edit.has_issues ?? repo.has_issues;
  if (!enabled) return edit.has_issues === false ? { has_issues: false, external_tracker: null } : {};
  const internalNow = repo.has_issues && !repo.external_tracker;
  if (edit.external_tracker) {
    const tracker = {
      external_tracker_url: edit.external_tracker.external_tracker_url ?? '',
      external_tracker_format: edit.external_tracker.external_tracker_format ?? '',
      external_tracker_style: edit.external_tracker.external_tracker_style ?? '',
      external_tracker_regexp_pattern: edit.external_tracker.external_tracker_regexp_pattern ?? '',
    };
    if (!isValidExternalUrl(tracker.external_tracker_url, appUrl)) throw invalid('External tracker URL not valid');
    if (tracker.external_tracker_format && !isValidTrackerFormat(tracker.external_tracker_format, appUrl)) {
      throw invalid('External tracker URL format not valid');
    }
    return { has_issues: true, external_tracker: JSON.stringify(tracker) };
  }
  if (edit.has_issues === undefined && !internalNow) return {};
  const given = edit.internal_tracker;
  const config = given
    ? {
        enable_time_tracker: given.enable_time_tracker ?? false,
        allow_only_contributors_to_track_time: given.allow_only_contributors_to_track_time ?? false,
        enable_issue_dependencies: given.enable_issue_dependencies ?? false,
      }
    : internalNow
      ? repo.internal_tracker
      : { enable_time_tracker: true, allow_only_contributors_to_track_time: true, enable_issue_dependencies: true };
  return { has_issues: true, external_tracker: null, internal_tracker: JSON.stringify(config) };
}

/** The wiki is internal, external or off, by the same rule as the issue tracker. */
function decideWikiColumns(repo: RepoRow, edit: RepoEdit, appUrl: string): Record<string, unknown> {
  const enabled = edit.has_wiki ?? repo.has_wiki;
  if (!enabled) return edit.has_wiki === false ? { has_wiki: false, external_wiki: null } : {};
  if (edit.external_wiki) {
    const url = edit.external_wiki.external_wiki_url ?? '';
    if (!isValidExternalUrl(url, appUrl)) throw invalid('Invalid external wiki URL');
    return { has_wiki: true, external_wiki: JSON.stringify({ external_wiki_url: url }) };
  }
  if (edit.has_wiki === undefined && repo.external_wiki) return {};
  return { has_wiki: true, external_wiki: null };
}

/** Pull request and project settings apply while the unit is (or becomes) enabled; a disabled project unit forgets its mode. */
function decideUnitColumns(repo: RepoRow, edit: RepoEdit, appUrl: string): Record<string, unknown> {
  const sets: Record<string, unknown> = { ...decideIssueColumns(repo, edit, appUrl), ...decideWikiColumns(repo, edit, appUrl) };
  if (edit.has_pull_requests !== undefined) sets.has_pull_requests = edit.has_pull_requests;
  if (edit.has_pull_requests ?? repo.has_pull_requests) {
    for (const column of pullRequestColumns) if (edit[column] !== undefined) sets[column] = edit[column];
  }
  if (edit.has_projects !== undefined) sets.has_projects = edit.has_projects;
  if (edit.has_projects ?? repo.has_projects) {
    if (edit.projects_mode !== undefined) sets.projects_mode = edit.projects_mode;
  } else if (repo.has_projects) {
    sets.projects_mode = 'all';
  }
  for (const column of ['has_releases', 'has_packages', 'has_actions'] as const) if (edit[column] !== undefined) sets[column] = edit[column];
  return sets;
}

/** A fork's visibility follows its base repository, whatever the edit asks. */
async function resolveVisibility(tx: Tx, repo: RepoRow, requested: boolean): Promise<boolean> {
  if (!repo.fork_id) return requested;
  const [base] = await tx.query<{ is_private: boolean }>('SELECT is_private FROM repository WHERE id = $1', [repo.fork_id]);
  return base ? base.is_private : requested;
}

/** repoEdit: only EditRepoOption's columns change, each validated, in one transaction; a rename moves the repository on disk. */
export async function editRepository(tx: Tx, ctx: EditContext, repo: RepoRow, doer: UserRow, edit: RepoEdit): Promise<RepoRow> {
  let current = repo;
  if (edit.name !== undefined && edit.name !== repo.name) current = await renameRepository(tx, ctx, current, doer, edit.name);
  const sets: Record<string, unknown> = {};
  if (edit.description !== undefined) sets.description = edit.description;
  if (edit.website !== undefined) sets.website = edit.website;
  if (edit.private !== undefined) sets.is_private = await resolveVisibility(tx, repo, edit.private);
  if (edit.template !== undefined) sets.is_template = edit.template;
  if (edit.default_branch !== undefined && edit.default_branch !== repo.default_branch) {
    await changeDefaultBranch(tx, ctx, current, edit.default_branch);
    sets.default_branch = edit.default_branch;
  }
  Object.assign(sets, decideUnitColumns(repo, edit, ctx.appUrl));
  if (edit.archived !== undefined) {
    if (repo.is_mirror) throw invalid('repo is a mirror, cannot archive/un-archive');
    if (edit.archived !== repo.is_archived) {
      sets.is_archived = edit.archived;
      sets.archived_at = edit.archived ? new Date() : null;
    }
  }
  if (edit.mirror_interval !== undefined || edit.enable_prune !== undefined) {
    if (!repo.is_mirror) throw invalid('repo is not a mirror, can not change mirror interval');
    await editMirror(tx, current, edit, parseDuration(ctx.minMirrorInterval));
  }
  const updated = await updateRepoColumns(tx, current, sets);
  if (sets.has_actions !== undefined && sets.has_actions !== repo.has_actions) {
    await actionsUnitChanged(tx, ctx.git, ctx.config.actions.enabled, updated, doer.id);
  }
  if (sets.default_branch !== undefined) {
    await emit(tx, { kind: 'repository.default_branch_changed', repoId: repo.id, doerId: doer.id, payload: { previous: { default_branch: repo.default_branch }, default_branch: updated.default_branch } });
  }
  return updated;
}

/** The default branch must exist, unless the repository is still empty (the first push will create it). */
async function changeDefaultBranch(tx: Tx, ctx: RepoContext, repo: RepoRow, branch: string): Promise<void> {
  assertValidBranchName(branch);
  const repoGit = ctx.git.open(repo);
  if (!repo.is_empty && !(await repoGit.resolve(`refs/heads/${branch}`))) throw invalid(`branch does not exist: ${branch}`);
  await repoGit.setHead(branch);
  tx.onRollback(() => repoGit.setHead(repo.default_branch));
}

/** enable_prune is saved even when mirror_interval is absent; a new interval schedules the next sync from now. */
async function editMirror(tx: Tx, repo: RepoRow, edit: RepoEdit, minSeconds: number): Promise<void> {
  if (edit.mirror_interval !== undefined) {
    const seconds = parseDuration(edit.mirror_interval);
    if (seconds !== 0 && seconds < minSeconds) {
      throw invalid(`invalid mirror interval: ${edit.mirror_interval} is below minimum interval: ${minSeconds}s`);
    }
    await tx.query(
      `UPDATE mirror SET interval_seconds = $2,
         next_update = CASE WHEN $2 = 0 THEN NULL ELSE now() + make_interval(secs => $2) END
       WHERE repo_id = $1`,
      [repo.id, seconds],
    );
  }
  if (edit.enable_prune !== undefined) await tx.query('UPDATE mirror SET enable_prune = $2 WHERE repo_id = $1', [repo.id, edit.enable_prune]);
}
