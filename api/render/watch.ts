import type { RepoRow } from '../../db/models/repos/repo-row.js';
import type { WatchRow } from '../../db/models/repos/watches.js';
import { iso } from './time.js';
import type { RenderContext } from './user.js';

/** The WatchInfo definition. */
export interface ApiWatchInfo {
  subscribed: boolean;
  ignored: boolean;
  reason: null;
  created_at: string;
  url: string;
  repository_url: string;
}

export function renderWatchInfo(watch: WatchRow, repo: Pick<RepoRow, 'owner_name' | 'name'>, { rootUrl }: RenderContext): ApiWatchInfo {
  const repositoryUrl = `${rootUrl}api/v1/repos/${repo.owner_name}/${repo.name}`;
  return {
    subscribed: true,
    ignored: false,
    reason: null,
    created_at: iso(watch.created),
    url: `${repositoryUrl}/subscription`,
    repository_url: repositoryUrl,
  };
}

/** Gitea's answer to an issue subscription check: created_at is the issue's, and "ignored" is simply "not subscribed". */
export function renderIssueWatchInfo(subscribed: boolean, issueCreated: Date, issueUrl: string, repositoryUrl: string): ApiWatchInfo {
  return { subscribed, ignored: !subscribed, reason: null, created_at: iso(issueCreated), url: `${issueUrl}/subscriptions`, repository_url: repositoryUrl };
}
