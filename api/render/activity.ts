import type { EventPayload } from '../../db/events/catalogue.js';
import { feedKinds, type FeedKind } from '../../db/models/activity/activity-feeds.js';
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

/** What the entry's kind reads from its payload. */
function readEntry<K extends FeedKind>(kind: K, payload: EventPayload<K>): Pick<ApiActivity, 'op_type' | 'content' | 'ref_name'> {
  const reading = feedKinds[kind];
  return { op_type: reading.opType, content: reading.content(payload), ref_name: reading.refName?.(payload) ?? '' };
}

/** One feed entry with its repository; `user_id` is the repository's owner, whose feed holds it. */
export function renderActivity({ entry, repo: view }: FeedView, viewer: UserRow | null, ctx: RenderContext): ApiActivity {
  const read = readEntry(entry.kind, entry.payload);
  return {
    id: entry.id,
    user_id: view.repo.owner_id,
    op_type: read.op_type,
    act_user_id: entry.doer.id,
    act_user: renderUser(entry.doer, viewer, ctx),
    repo_id: view.repo.id,
    repo: renderRepository(view, viewer, ctx),
    comment_id: 0,
    comment: null,
    ref_name: read.ref_name,
    is_private: view.repo.is_private,
    content: read.content,
    created: iso(entry.created),
  };
}
