import type { CommentRow } from '../models/issues/issue-row.js';
import type { PackageRow, PackageVersionRow } from '../models/packages/packages.js';
import type { ReleaseRow } from '../models/releases/releases.js';
import type { RepoRow } from '../models/repos/repo-row.js';

/** Rows a change deleted, kept on its event so the notifier can still render them. */
export interface EventSnapshot {
  repository?: RepoRow;
  release?: ReleaseRow;
  package?: { pkg: PackageRow; version: PackageVersionRow };
  comment?: CommentRow;
}

const timestampColumns = new Set(['created', 'updated', 'archived_at']);

/** A snapshot as read back from JSON: the timestamp columns are dates again. */
export function reviveSnapshot(stored: unknown): EventSnapshot {
  if (!stored || typeof stored !== 'object') return {};
  const revive = <T>(row: unknown): T | undefined => {
    if (!row || typeof row !== 'object') return undefined;
    const out: Record<string, unknown> = { ...(row as Record<string, unknown>) };
    for (const key of Object.keys(out)) if (timestampColumns.has(key) && typeof out[key] === 'string') out[key] = new Date(out[key] as string);
    return out as T;
  };
  const { repository, release, package: pkg, comment } = stored as Record<string, unknown>;
  const deleted = pkg as { pkg?: unknown; version?: unknown } | undefined;
  const pkgRow = revive<PackageRow>(deleted?.pkg);
  const versionRow = revive<PackageVersionRow>(deleted?.version);
  return {
    repository: revive<RepoRow>(repository),
    release: revive<ReleaseRow>(release),
    comment: revive<CommentRow>(comment),
    ...(pkgRow && versionRow ? { package: { pkg: pkgRow, version: versionRow } } : {}),
  };
}
