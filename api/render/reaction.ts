import type { ReactionRow } from '../../db/models/issues/reactions.js';
import type { UserRow } from '../../db/models/users/user-row.js';
import { renderPerson } from './issue.js';
import { iso } from './time.js';
import { renderStandIn, type ApiUser, type RenderContext } from './user.js';

/** The Reaction definition of the Gitea 1.22 API description. */
export interface ApiReaction {
  user: ApiUser;
  content: string;
  created_at: string;
}

/**
 * A reaction with its user (null once the account is gone: Gitea's ghost) as `viewer` may see them. A reaction a
 * migration brought is shown as its author at the source, `name(service)` (Gitea's ReactionList.LoadUsers), with the
 * kind of service the repository was migrated from.
 */
export function renderReaction(reaction: ReactionRow, user: UserRow | null, viewer: UserRow | null, ctx: RenderContext, service = ''): ApiReaction {
  const shownUser = reaction.original_author ? renderStandIn(`${reaction.original_author}(${service})`, ctx) : renderPerson(user, ctx, viewer);
  return { user: shownUser, content: reaction.type, created_at: iso(reaction.created) };
}
