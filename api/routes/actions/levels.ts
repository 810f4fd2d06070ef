import { notFound } from '../../../db/errors.js';
import { isUnitEnabled } from '../../../db/models/access.js';
import { ownerScope, repoScope, type ActionsScope } from '../../../db/models/actions/scope.js';
import type { Scope } from '../../../db/scopes.js';
import type { Context } from '../../http/route.js';

/**
 * A level that holds actions secrets, variables and a runner registration token: its path, operation names and
 * guards (Gitea's addActionsRoutes with reqOwner, reqOrgOwnership, the signed-in user), and the scope a request names.
 */
export interface ActionsLevel {
  base: string;
  /** The word in Gitea's operationIds: updateRepoSecret, getOrgVariable, ... */
  word: 'Repo' | 'Org' | 'User';
  tag: string;
  read: Scope;
  write: Scope;
  guards: Record<string, unknown>;
  scopeOf(ctx: Context): ActionsScope;
}

/**
 * With [actions] ENABLED off, actions routes answer 404 as Gitea's MustEnableActions does; a repository's routes
 * answer 404 too while its actions unit (`has_actions`) is off.
 */
export function requireActions(ctx: Pick<Context, 'deps' | 'repo'>): void {
  if (!ctx.deps.config.actions.enabled) throw notFound(undefined, 'actions are disabled');
  if (ctx.repo && !isUnitEnabled(ctx.repo.repo, 'repo.actions')) throw notFound(undefined, 'actions are disabled for this repository');
}

const checked = (scopeOf: (ctx: Context) => ActionsScope) => (ctx: Context): ActionsScope => {
  requireActions(ctx);
  return scopeOf(ctx);
};

export const repoLevel: ActionsLevel = {
  base: '/repos/{owner}/{repo}/actions', word: 'Repo', tag: 'repository', read: 'read:repository', write: 'write:repository',
  guards: { signedIn: true, repo: { mode: 'admin' } }, scopeOf: checked((ctx) => repoScope(ctx.repo!.repo.id)),
};

export const orgLevel: ActionsLevel = {
  base: '/orgs/{org}/actions', word: 'Org', tag: 'organization', read: 'read:organization', write: 'write:organization',
  guards: { signedIn: true, org: { role: 'owner' } }, scopeOf: checked((ctx) => ownerScope(ctx.org!.id)),
};

export const userLevel: ActionsLevel = {
  base: '/user/actions', word: 'User', tag: 'user', read: 'read:user', write: 'write:user',
  guards: { signedIn: true }, scopeOf: checked((ctx) => ownerScope(ctx.doer!.id)),
};
