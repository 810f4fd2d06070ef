import type { Queryable } from '../data-source.js';
import type { FeedEntry } from '../models/activity/activity-feeds.js';
import { findReposByIds } from '../models/repos/repos.js';
import type { UserRow } from '../models/users/user-row.js';
import { loadRepoViews, type RepoView } from './repo.js';

/** A feed entry with its repository as the viewer sees it. */
export interface FeedView {
  entry: FeedEntry;
  repo: RepoView;
}

/**
 * The views of a page of feed entries: their repositories in one query and one view per repository, however many
 * entries share it. Views the caller already holds (`known`, a repository's own feed) are used as they are; an
 * entry whose repository is gone is left out.
 */
export async function loadFeedViews(db: Queryable, entries: FeedEntry[], viewer: UserRow | null, known: RepoView[] = []): Promise<FeedView[]> {
  const views = new Map(known.map((view) => [view.repo.id, view]));
  const missing = [...new Set(entries.map((entry) => entry.repo_id))].filter((id) => !views.has(id));
  if (missing.length) {
    for (const view of await loadRepoViews(db, await findReposByIds(db, missing), viewer)) views.set(view.repo.id, view);
  }
  return entries.flatMap((entry) => {
    const repo = views.get(entry.repo_id);
    return repo ? [{ entry, repo }] : [];
  });
}
