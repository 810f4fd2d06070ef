import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { deleteSecret, listSecrets, putSecret } from '../../../db/models/actions/secrets.js';
import { limits, text } from '../../http/fields.js';
import type { Context, RouteDefinition } from '../../http/route.js';
import { noContent, route } from '../../http/route.js';
import { renderSecret } from '../../render/actions.js';
import { orgLevel, repoLevel, userLevel, type ActionsLevel } from './levels.js';

/** Gitea's CreateOrUpdateSecretOption: `data` is Required. */
const secretBody = z.object({ data: text(limits.text).min(1) });

const nouns: Record<ActionsLevel['word'], string> = { Repo: 'a repository', Org: 'an organization', User: 'a user scope' };

const listRoute = (l: ActionsLevel, summary: string): RouteDefinition => route({
  method: 'get', path: `${l.base}/secrets`, operationId: `${l.word.toLowerCase()}ListActionsSecrets`, summary, tag: l.tag,
  scope: l.read, ...l.guards, paginated: true, responses: { 200: 'SecretList', 404: 'notFound' },
  handle: async (ctx) => {
    const { rows, total } = await listSecrets(ctx.deps.db, l.scopeOf(ctx as Context), ctx.page);
    return ctx.list(rows.map(renderSecret), total);
  },
});

function writeRoutes(l: ActionsLevel): RouteDefinition[] {
  return [
    route({
      method: 'put', path: `${l.base}/secrets/{secretname}`, operationId: `update${l.word}Secret`,
      summary: `Create or Update a secret value in ${nouns[l.word]}`, tag: l.tag,
      scope: l.write, ...l.guards, body: secretBody, responses: { 201: 'empty', 204: 'empty', 400: 'error', 404: 'notFound', 422: 'validationError' },
      handle: async (ctx) => {
        const scope = l.scopeOf(ctx as Context);
        const secretKey = ctx.deps.config.security.secretKey;
        const put = await inTx(ctx.deps, (tx) => putSecret(tx, secretKey, scope, ctx.params.secretname, ctx.body.data, ctx.doer!.id));
        return put.created ? { status: 201 } : noContent();
      },
    }),
    route({
      method: 'delete', path: `${l.base}/secrets/{secretname}`, operationId: `delete${l.word}Secret`, summary: `Delete a secret in ${nouns[l.word]}`, tag: l.tag,
      scope: l.write, ...l.guards, responses: { 204: 'empty', 400: 'error', 404: 'notFound' },
      handle: async (ctx) => {
        const scope = l.scopeOf(ctx as Context);
        await inTx(ctx.deps, (tx) => deleteSecret(tx, scope, ctx.params.secretname, ctx.doer!.id));
        return noContent();
      },
    }),
  ];
}

/** Actions secrets of repositories, organizations and users (Gitea has no list of a user's secrets). */
export const actionsSecretRoutes: RouteDefinition[] = [
  listRoute(orgLevel, "List an organization's actions secrets"),
  ...writeRoutes(orgLevel),
  listRoute(repoLevel, "List an repo's actions secrets"),
  ...writeRoutes(repoLevel),
  ...writeRoutes(userLevel),
];
