import { inTx } from '../../../db/data-source.js';
import { registrationTokenFor } from '../../../db/models/actions/registration-tokens.js';
import { instanceScope, type ActionsScope } from '../../../db/models/actions/scope.js';
import type { Context, RouteDefinition } from '../../http/route.js';
import { ok, route } from '../../http/route.js';
import { orgLevel, repoLevel, requireActions, userLevel } from './levels.js';

/** Gitea's shared.GetRegistrationToken: the level's active token, issued on first request, as `{"token": ...}`. */
async function tokenReply(ctx: Context, scope: ActionsScope) {
  const secretKey = ctx.deps.config.security.secretKey;
  const token = await inTx(ctx.deps, (tx) => registrationTokenFor(tx, secretKey, scope, ctx.doer?.id ?? null));
  return ok({ token });
}

/** Runner registration tokens of the instance, an organization, the signed-in user and a repository. */
export const runnerTokenRoutes: RouteDefinition[] = [
  route({
    method: 'get', path: '/admin/runners/registration-token', operationId: 'adminGetRunnerRegistrationToken',
    summary: 'Get an global actions runner registration token', tag: 'admin',
    scope: 'read:admin', admin: true, responses: { 200: 'RegistrationToken', 404: 'notFound' },
    handle: async (ctx) => {
      requireActions(ctx);
      return tokenReply(ctx as Context, instanceScope);
    },
  }),
  route({
    method: 'get', path: `${orgLevel.base}/runners/registration-token`, operationId: 'orgGetRunnerRegistrationToken',
    summary: "Get an organization's actions runner registration token", tag: orgLevel.tag,
    scope: orgLevel.read, ...orgLevel.guards, responses: { 200: 'RegistrationToken', 404: 'notFound' },
    handle: async (ctx) => tokenReply(ctx as Context, orgLevel.scopeOf(ctx as Context)),
  }),
  route({
    method: 'get', path: `${userLevel.base}/runners/registration-token`, operationId: 'userGetRunnerRegistrationToken',
    summary: "Get an user's actions runner registration token", tag: userLevel.tag,
    scope: userLevel.read, ...userLevel.guards, responses: { 200: 'RegistrationToken', 404: 'notFound' },
    handle: async (ctx) => tokenReply(ctx as Context, userLevel.scopeOf(ctx as Context)),
  }),
  // Gitea 1.22 serves the repository's token outside /actions.
  route({
    method: 'get', path: '/repos/{owner}/{repo}/runners/registration-token', operationId: 'repoGetRunnerRegistrationToken',
    summary: "Get a repository's actions runner registration token", tag: repoLevel.tag,
    scope: repoLevel.read, ...repoLevel.guards, responses: { 200: 'RegistrationToken', 404: 'notFound' },
    handle: async (ctx) => tokenReply(ctx as Context, repoLevel.scopeOf(ctx as Context)),
  }),
];
