import type { ReactionRow } from '../../db/models/issues/reactions.js';
import type { UserRow } from '../../db/models/users/user-row.js';
import { renderPerson } from './issue.js';
import { iso } from './time.js';
import type { ApiUser, RenderContext } from './user.js';

/** The Reaction definition of the Gitea 1.22 API description. */
export interface ApiReaction {
  user: ApiUser;
  content: string;
  created_at: string;
}

/** A reaction with its user (null once the account is gone: Gitea's ghost) as `viewer` may see them. */
export function renderReaction(reaction: ReactionRow, user: UserRow | null, viewer: UserRow | null, ctx: RenderContext): ApiReaction {
  return { user: renderPerson(user, ctx, viewer), content: reaction.type, created_at: iso(reaction.created) };
}
