import { feedKinds } from '../../db/models/activity/activity-feeds.js';
import type { UserRow } from '../../db/models/users/user-row.js';
import type { FeedView } from '../../db/views/feeds.js';
import { renderRepository, type ApiRepository } from './repository.js';
import { iso } from './time.js';
import { renderUser, type ApiUser, type RenderContext } from './user.js';

/** The Activity definition. */
export interface ApiActivity {
  id: number;
  user_id: number;
  op_type: string;
  act_user_id: number;
  act_user: ApiUser;
  repo_id: number;
  repo: ApiRepository;
  comment_id: number;
  comment: null;
  ref_name: string;
  is_private: boolean;
  content: string;
  created: string;
}

/** One feed entry with its repository; `user_id` is the repository's owner, whose feed holds it. */
export function renderActivity({ entry, repo: view }: FeedView, viewer: UserRow | null, ctx: RenderContext): ApiActivity {
  const reading = feedKinds[entry.kind];
  return {
    id: entry.id,
    user_id: view.repo.owner_id,
    op_type: reading.opType,
    act_user_id: entry.doer.id,
    act_user: renderUser(entry.doer, viewer, ctx),
    repo_id: view.repo.id,
    repo: renderRepository(view, viewer, ctx),
    comment_id: 0,
    comment: null,
    ref_name: reading.refName?.(entry.payload) ?? '',
    is_private: view.repo.is_private,
    content: reading.content(entry.payload),
    created: iso(entry.created),
  };
}
