import type { ReleaseRow } from '../models/releases/releases.js';
import type { RepoRow } from '../models/repos/repo-row.js';

/** Rows a change deleted, kept on its event so the notifier can still render them. */
export interface EventSnapshot {
  repository?: RepoRow;
  release?: ReleaseRow;
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
  const { repository, release } = stored as Record<string, unknown>;
  return { repository: revive<RepoRow>(repository), release: revive<ReleaseRow>(release) };
}
