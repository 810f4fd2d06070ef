import type { Queryable } from '../data-source.js';
import { issuesByIds } from '../models/issues/issues.js';
import type { IssueRow } from '../models/issues/issue-row.js';
import type { NotificationRow } from '../models/notifications/notifications.js';
import { findReposByIds } from '../models/repos/repos.js';
import { loadRepoView, type RepoView } from './repo.js';

/** A thread with its repository and issue, as NotificationThread shows them; threads whose issue is gone are left out. */
export interface NotificationView {
  thread: NotificationRow;
  repo: RepoView;
  issue: IssueRow;
}

export async function loadNotificationViews(db: Queryable, threads: NotificationRow[]): Promise<NotificationView[]> {
  const [issues, repos] = await Promise.all([
    issuesByIds(db, threads.map((t) => t.issue_id)),
    findReposByIds(db, [...new Set(threads.map((t) => t.repo_id))]),
  ]);
  const views = new Map<number, RepoView>();
  for (const repo of repos) views.set(repo.id, await loadRepoView(db, repo, null));
  return threads.flatMap((thread) => {
    const issue = issues.get(thread.issue_id);
    const repo = views.get(thread.repo_id);
    return issue && repo ? [{ thread, repo, issue }] : [];
  });
}
