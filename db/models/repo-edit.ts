import type { Tx } from '../data-source.js';
import { invalid } from '../errors.js';
import { emit } from '../events.js';
import { gitOk, runGit } from '../git/run.js';
import { assertValidBranchName, renameRepository, updateRepoColumns, type RepoContext } from './repos.js';
import type { RepoRow } from './repo-row.js';
import type { UserRow } from './user-row.js';

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

const plainColumns = [
  'description', 'website', 'has_issues', 'has_wiki', 'has_pull_requests', 'has_projects', 'has_releases', 'has_packages',
  'has_actions', 'projects_mode', 'ignore_whitespace_conflicts', 'allow_merge_commits', 'allow_rebase', 'allow_rebase_explicit',
  'allow_squash_merge', 'allow_fast_forward_only_merge', 'allow_manual_merge', 'autodetect_manual_merge', 'allow_rebase_update',
  'default_delete_branch_after_merge', 'default_merge_style', 'default_allow_maintainer_edit',
] as const;

/** Parses Go-style durations as Gitea accepts them for mirror_interval: "8h", "10m", "1h30m", "0" (off). */
export function parseDuration(text: string): number {
  if (text.trim() === '0') return 0;
  const match = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(text.trim());
  if (!match || text.trim() === '') throw invalid(`invalid mirror interval: ${text}`);
  return Number(match[1] ?? 0) * 3600 + Number(match[2] ?? 0) * 60 + Number(match[3] ?? 0);
}

/** repoEdit: only EditRepoOption's columns change, each validated; a rename moves the repository on disk. */
export async function editRepository(tx: Tx, ctx: RepoContext & { minMirrorInterval: string }, repo: RepoRow, doer: UserRow, edit: RepoEdit): Promise<RepoRow> {
  let current = repo;
  if (edit.name !== undefined && edit.name !== repo.name) current = await renameRepository(tx, ctx, current, doer, edit.name);
  const sets: Record<string, unknown> = {};
  for (const column of plainColumns) if (edit[column] !== undefined) sets[column] = edit[column];
  if (edit.private !== undefined) sets.is_private = edit.private;
  if (edit.template !== undefined) sets.is_template = edit.template;
  if (edit.archived !== undefined && edit.archived !== repo.is_archived) {
    if (repo.is_mirror && edit.archived) throw invalid('a mirror repository cannot be archived');
    sets.is_archived = edit.archived;
    sets.archived_at = edit.archived ? new Date() : null;
  }
  if (edit.internal_tracker !== undefined) sets.internal_tracker = JSON.stringify({ ...repo.internal_tracker, ...edit.internal_tracker });
  if (edit.external_tracker !== undefined) {
    if (edit.external_tracker.external_tracker_url && !/^https?:\/\//.test(edit.external_tracker.external_tracker_url)) {
      throw invalid('External tracker URL is not valid.');
    }
    sets.external_tracker = JSON.stringify(edit.external_tracker);
  }
  if (edit.external_wiki !== undefined) {
    if (edit.external_wiki.external_wiki_url && !/^https?:\/\//.test(edit.external_wiki.external_wiki_url)) {
      throw invalid('External wiki URL is not valid.');
    }
    sets.external_wiki = JSON.stringify(edit.external_wiki);
  }
  if (edit.default_branch !== undefined && edit.default_branch !== repo.default_branch) {
    await changeDefaultBranch(tx, ctx, current, edit.default_branch);
    sets.default_branch = edit.default_branch;
  }
  if (edit.mirror_interval !== undefined || edit.enable_prune !== undefined) {
    if (!repo.is_mirror) throw invalid('repo is not a mirror, can not change mirror interval or pruning');
    await editMirror(tx, current, edit, parseDuration(ctx.minMirrorInterval));
  }
  const updated = await updateRepoColumns(tx, current, sets);
  if (sets.default_branch !== undefined) {
    await emit(tx, { kind: 'repository.default_branch_changed', repoId: repo.id, doerId: doer.id, payload: { from: repo.default_branch, to: edit.default_branch } });
  }
  return updated;
}

/** The default branch must exist, unless the repository is still empty (the first push will create it). */
async function changeDefaultBranch(tx: Tx, ctx: RepoContext, repo: RepoRow, branch: string): Promise<void> {
  assertValidBranchName(branch);
  const dir = ctx.git.pathOf(repo.owner_name, repo.name);
  if (!repo.is_empty) {
    const exists = await runGit(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`], { cwd: dir });
    if (exists.code !== 0) throw invalid(`branch does not exist: ${branch}`);
  }
  await gitOk(['symbolic-ref', 'HEAD', `refs/heads/${branch}`], { cwd: dir });
  tx.onRollback(async () => {
    await gitOk(['symbolic-ref', 'HEAD', `refs/heads/${repo.default_branch}`], { cwd: dir });
  });
}

/** enable_prune is saved even when mirror_interval is absent. */
async function editMirror(tx: Tx, repo: RepoRow, edit: RepoEdit, minSeconds: number): Promise<void> {
  if (edit.mirror_interval !== undefined) {
    const seconds = parseDuration(edit.mirror_interval);
    if (seconds !== 0 && seconds < minSeconds) throw invalid(`mirror interval is below the minimum of ${minSeconds}s`);
    await tx.query(
      `UPDATE mirror SET interval_seconds = $2,
         next_update = CASE WHEN $2 = 0 THEN NULL ELSE COALESCE(updated, now()) + make_interval(secs => $2) END
       WHERE repo_id = $1`,
      [repo.id, seconds],
    );
  }
  if (edit.enable_prune !== undefined) await tx.query('UPDATE mirror SET enable_prune = $2 WHERE repo_id = $1', [repo.id, edit.enable_prune]);
}
