import { inTx } from '../../../db/data-source.js';
import { forbidden, notFound } from '../../../db/errors.js';
import { isSubscribed, listSubscribers, setSubscription } from '../../../db/models/issues/subscriptions.js';
import { findUserByName } from '../../../db/models/users/users.js';
import type { UserRow } from '../../../db/models/users/user-row.js';
import { loadIssue } from '../../context/issue.js';
import type { LoadedRepo } from '../../context/repo.js';
import type { Deps } from '../../deps.js';
import { created, ok, route, type Reply } from '../../http/route.js';
import { issueApiUrl, repoApiUrl } from '../../render/issue.js';
import { renderUser } from '../../render/user.js';
import { renderIssueWatchInfo } from '../../render/watch.js';
import { issuesRepo } from './issues.js';

/** Gitea's setIssueSubscription: users change their own subscription, site administrators anyone's; 201 when it changed, 200 when not. */
async function subscribe(deps: Deps, repo: LoadedRepo, doer: UserRow, index: number, userName: string, watching: boolean): Promise<Reply> {
  const { issue } = await loadIssue(deps, repo, index);
  const user = await findUserByName(deps.db, userName);
  if (!user) throw notFound(`user ${userName} does not exist`);
  if (user.id !== doer.id && !doer.is_admin) throw forbidden(`${doer.name} is not permitted to change subscriptions for ${user.name}`);
  const changed = await inTx(deps, (tx) => setSubscription(tx, user, issue, watching));
  return changed ? created(undefined) : ok(undefined);
}

export const issueSubscriptionRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/issues/{index}/subscriptions', operationId: 'issueSubscriptions', summary: 'Get users who subscribed on an issue.', tag: 'issue',
    scope: 'read:issue', repo: issuesRepo, ids: ['index'], paginated: true, responses: { 200: 'UserList' },
    handle: async ({ deps, repo, doer, ids, page, list }) => {
      const { issue } = await loadIssue(deps, repo, ids.index);
      const { users, total } = await listSubscribers(deps.db, issue.id, page);
      return list(users.map((user) => renderUser(user, doer, deps.config)), total);
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/issues/{index}/subscriptions/check', operationId: 'issueCheckSubscription',
    summary: 'Check if user is subscribed to an issue', tag: 'issue',
    scope: 'read:issue', signedIn: true, repo: issuesRepo, ids: ['index'], responses: { 200: 'WatchInfo' },
    handle: async ({ deps, repo, doer, ids }) => {
      const { issue } = await loadIssue(deps, repo, ids.index);
      const subscribed = await isSubscribed(deps.db, doer, issue);
      return ok(renderIssueWatchInfo(subscribed, issue.created, issueApiUrl(repo.repo, issue, deps.config), repoApiUrl(repo.repo, deps.config)));
    },
  }),
  route({
    method: 'put', path: '/repos/{owner}/{repo}/issues/{index}/subscriptions/{user}', operationId: 'issueAddSubscription', summary: 'Subscribe user to issue', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: issuesRepo, ids: ['index'], responses: { 200: 'empty', 201: 'empty', 304: 'empty' },
    handle: async ({ deps, repo, doer, ids, params }) => subscribe(deps, repo, doer, ids.index, params.user, true),
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/issues/{index}/subscriptions/{user}', operationId: 'issueDeleteSubscription', summary: 'Unsubscribe user from issue', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: issuesRepo, ids: ['index'], responses: { 200: 'empty', 201: 'empty', 304: 'empty' },
    handle: async ({ deps, repo, doer, ids, params }) => subscribe(deps, repo, doer, ids.index, params.user, false),
  }),
];
