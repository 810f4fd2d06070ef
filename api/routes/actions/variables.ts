import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { createVariable, deleteVariable, getVariable, listVariables, updateVariable } from '../../../db/models/actions/variables.js';
import { limits, text } from '../../http/fields.js';
import type { Context, RouteDefinition } from '../../http/route.js';
import { noContent, ok, route } from '../../http/route.js';
import { renderVariable } from '../../render/actions.js';
import { orgLevel, repoLevel, userLevel, type ActionsLevel } from './levels.js';

/** Gitea's CreateVariableOption and UpdateVariableOption: `value` is Required; an empty `name` keeps the name. */
const createBody = z.object({ value: text(limits.text).min(1) });
const updateBody = z.object({ value: text(limits.text).min(1), name: text(limits.name).optional() });

const summaries: Record<ActionsLevel['word'], { list: string; get: string; create: string; update: string; remove: string }> = {
  Repo: {
    list: 'Get repo-level variables list', get: 'Get a repo-level variable', create: 'Create a repo-level variable',
    update: 'Update a repo-level variable', remove: 'Delete a repo-level variable',
  },
  Org: {
    list: 'Get an org-level variables list', get: 'Get an org-level variable', create: 'Create an org-level variable',
    update: 'Update an org-level variable', remove: 'Delete an org-level variable',
  },
  User: {
    list: 'Get the user-level list of variables which is created by current doer', get: 'Get a user-level variable which is created by current doer',
    create: 'Create a user-level variable', update: 'Update a user-level variable which is created by current doer',
    remove: 'Delete a user-level variable which is created by current doer',
  },
};

function variableRoutes(l: ActionsLevel): RouteDefinition[] {
  const s = summaries[l.word];
  const path = `${l.base}/variables/{variablename}`;
  return [
    route({
      method: 'get', path: `${l.base}/variables`, operationId: `get${l.word}VariablesList`, summary: s.list, tag: l.tag,
      scope: l.read, ...l.guards, paginated: true, responses: { 200: 'VariableList', 400: 'error', 404: 'notFound' },
      handle: async (ctx) => {
        const { rows, total } = await listVariables(ctx.deps.db, l.scopeOf(ctx as Context), ctx.page);
        return ctx.list(rows.map(renderVariable), total);
      },
    }),
    route({
      method: 'get', path, operationId: `get${l.word}Variable`, summary: s.get, tag: l.tag,
      scope: l.read, ...l.guards, responses: { 200: 'ActionVariable', 400: 'error', 404: 'notFound' },
      handle: async (ctx) => ok(renderVariable(await getVariable(ctx.deps.db, l.scopeOf(ctx as Context), ctx.params.variablename))),
    }),
    route({
      method: 'post', path, operationId: `create${l.word}Variable`, summary: s.create, tag: l.tag,
      scope: l.write, ...l.guards, body: createBody, responses: { 201: 'empty', 400: 'error', 404: 'notFound', 409: 'conflict', 422: 'validationError' },
      handle: async (ctx) => {
        const scope = l.scopeOf(ctx as Context);
        await inTx(ctx.deps, (tx) => createVariable(tx, scope, ctx.params.variablename, ctx.body.value, ctx.doer!.id));
        return { status: 201 };
      },
    }),
    route({
      method: 'put', path, operationId: `update${l.word}Variable`, summary: s.update, tag: l.tag,
      scope: l.write, ...l.guards, body: updateBody, responses: { 204: 'empty', 400: 'error', 404: 'notFound', 409: 'conflict', 422: 'validationError' },
      handle: async (ctx) => {
        const scope = l.scopeOf(ctx as Context);
        await inTx(ctx.deps, (tx) => updateVariable(tx, scope, ctx.params.variablename, ctx.body, ctx.doer!.id));
        return noContent();
      },
    }),
    route({
      method: 'delete', path, operationId: `delete${l.word}Variable`, summary: s.remove, tag: l.tag,
      scope: l.write, ...l.guards, responses: { 204: 'empty', 400: 'error', 404: 'notFound' },
      handle: async (ctx) => {
        const scope = l.scopeOf(ctx as Context);
        await inTx(ctx.deps, (tx) => deleteVariable(tx, scope, ctx.params.variablename, ctx.doer!.id));
        return noContent();
      },
    }),
  ];
}

/** Actions variables of organizations, repositories and users; values are returned (they are not secret). */
export const actionsVariableRoutes: RouteDefinition[] = [...variableRoutes(orgLevel), ...variableRoutes(repoLevel), ...variableRoutes(userLevel)];
