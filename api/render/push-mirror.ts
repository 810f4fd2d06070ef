import type { PushMirrorRow } from '../../db/models/mirrors/push-mirrors.js';
import type { RepoRow } from '../../db/models/repos/repo-row.js';
import { formatDuration } from './repository.js';
import { iso } from './time.js';

/** Gitea's PushMirror (convert.ToPushMirror); the address carries no credentials, and credentials are never shown. */
export interface ApiPushMirror {
  repo_name: string;
  remote_name: string;
  remote_address: string;
  created: string;
  last_update: string | null;
  last_error: string;
  interval: string;
  sync_on_commit: boolean;
}

export function renderPushMirror(repo: RepoRow, row: PushMirrorRow): ApiPushMirror {
  return {
    repo_name: repo.name,
    remote_name: row.remote_name,
    remote_address: row.remote_address,
    created: iso(row.created),
    last_update: row.last_update ? iso(row.last_update) : null,
    last_error: row.last_error,
    interval: formatDuration(row.interval_seconds),
    sync_on_commit: row.sync_on_commit,
  };
}
