import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { forbidden, notFound } from '../../../db/errors.js';
import { createStandaloneTask, getHookTask, listHookTasks, redeliverHookTask } from '../../../db/models/hooks/hook-tasks.js';
import { createHook, deleteHook, editHook, getHook, listHooks, type HookLevel } from '../../../db/models/hooks/webhooks.js';
import { accessModes } from '../../../db/models/repos/repo-row.js';
import { commitViews } from '../../../db/views/hook-sources.js';
import type { Scope } from '../../../db/scopes.js';
import type { Context, RouteDefinition } from '../../http/route.js';
import { created, noContent, ok, route } from '../../http/route.js';
import { renderHook, renderHookDelivery } from '../../render/hook.js';
import { renderTestPushPayload } from '../../render/hook-payloads.js';
import { formatPayload } from '../../render/hook-formats/index.js';

const createHookBody = z.object({
  type: z.string(),
  config: z.record(z.string(), z.string()),
  events: z.array(z.string()).optional(),
  branch_filter: z.string().optional(),
  active: z.boolean().optional(),
  authorization_header: z.string().optional(),
});
const editHookBody = z.object({
  config: z.record(z.string(), z.string()).optional(),
  events: z.array(z.string()).optional(),
  branch_filter: z.string().optional(),
  active: z.boolean().optional(),
  authorization_header: z.string().optional(),
});

/** One level of hooks: its path, operation names, guards, and how a request names the level. */
interface Level {
  base: string;
  prefix: 'repo' | 'org' | 'user' | 'admin';
  tag: string;
  read: Scope;
  write: Scope;
  guards: Record<string, unknown>;
  level(ctx: Context): HookLevel;
  noun: string;
}

const levels: Level[] = [
  {
    base: '/repos/{owner}/{repo}/hooks', prefix: 'repo', tag: 'repository', read: 'read:repository', write: 'write:repository', noun: 'in a repository',
    guards: { signedIn: true, repo: { mode: 'admin' } }, level: (ctx) => ({ repoId: ctx.repo!.repo.id }),
  },
  {
    base: '/orgs/{org}/hooks', prefix: 'org', tag: 'organization', read: 'read:organization', write: 'write:organization', noun: "of an organization",
    guards: { signedIn: true, org: { role: 'owner' } }, level: (ctx) => ({ ownerId: ctx.org!.id }),
  },
  {
    base: '/user/hooks', prefix: 'user', tag: 'user', read: 'read:user', write: 'write:user', noun: 'of the authenticated user',
    guards: { signedIn: true }, level: (ctx) => ({ ownerId: ctx.doer!.id }),
  },
  {
    base: '/admin/hooks', prefix: 'admin', tag: 'admin', read: 'read:admin', write: 'write:admin', noun: 'of the system',
    guards: { admin: true }, level: () => ({ system: true }),
  },
];

const listIds: Record<Level['prefix'], string> = { repo: 'repoListHooks', org: 'orgListHooks', user: 'userListHooks', admin: 'adminListHooks' };
const editIds: Record<Level['prefix'], string> = { repo: 'repoEditHook', org: 'orgEditHook', user: 'userEditHook', admin: 'adminEditHook' };

function levelRoutes(l: Level): RouteDefinition[] {
  const guarded = { ...l.guards };
  return [
    route({
      method: 'get', path: l.base, operationId: listIds[l.prefix], summary: `List the webhooks ${l.noun}`, tag: l.tag,
      scope: l.read, ...guarded, paginated: true, responses: { 200: 'HookList' },
      handle: async (ctx) => {
        const { rows, total } = await listHooks(ctx.deps.db, l.level(ctx as Context), ctx.page);
        return ctx.list(rows.map(renderHook), total);
      },
    }),
    route({
      method: 'post', path: l.base, operationId: `${l.prefix}CreateHook`, summary: 'Create a hook', tag: l.tag,
      scope: l.write, ...guarded, body: createHookBody, responses: { 201: 'Hook', 422: 'validationError' },
      handle: async (ctx) => {
        const row = await inTx(ctx.deps, (tx) => createHook(tx, ctx.deps.config.security.secretKey, l.level(ctx as Context), ctx.body));
        return created(renderHook(row));
      },
    }),
    route({
      method: 'get', path: `${l.base}/{id}`, operationId: `${l.prefix}GetHook`, summary: 'Get a hook', tag: l.tag,
      scope: l.read, ...guarded, ids: ['id'], responses: { 200: 'Hook' },
      handle: async (ctx) => ok(renderHook(await getHook(ctx.deps.db, l.level(ctx as Context), ctx.ids.id))),
    }),
    route({
      method: 'patch', path: `${l.base}/{id}`, operationId: editIds[l.prefix], summary: 'Update a hook', tag: l.tag,
      scope: l.write, ...guarded, ids: ['id'], body: editHookBody, responses: { 200: 'Hook', 422: 'validationError' },
      handle: async (ctx) => {
        const hook = await getHook(ctx.deps.db, l.level(ctx as Context), ctx.ids.id);
        return ok(renderHook(await inTx(ctx.deps, (tx) => editHook(tx, ctx.deps.config.security.secretKey, hook, ctx.body))));
      },
    }),
    route({
      method: 'delete', path: `${l.base}/{id}`, operationId: `${l.prefix}DeleteHook`, summary: 'Delete a hook', tag: l.tag,
      scope: l.write, ...guarded, ids: ['id'], responses: { 204: 'empty' },
      handle: async (ctx) => {
        const hook = await getHook(ctx.deps.db, l.level(ctx as Context), ctx.ids.id);
        await inTx(ctx.deps, (tx) => deleteHook(tx, hook));
        return noContent();
      },
    }),
    // Beyond Gitea's API: the delivery log of a hook and redelivery of one past delivery.
    route({
      method: 'get', path: `${l.base}/{id}/deliveries`, operationId: `${l.prefix}ListHookDeliveries`,
      summary: "List a hook's deliveries, newest first, with request, response and duration (Hearth)", tag: l.tag,
      scope: l.read, ...guarded, ids: ['id'], paginated: true, responses: { 200: 'HookDeliveryList' },
      handle: async (ctx) => {
        const hook = await getHook(ctx.deps.db, l.level(ctx as Context), ctx.ids.id);
        const { rows, total } = await listHookTasks(ctx.deps.db, hook.id, ctx.page);
        return ctx.list(rows.map(renderHookDelivery), total);
      },
    }),
    route({
      method: 'post', path: `${l.base}/{id}/deliveries/{delivery}/redeliver`, operationId: `${l.prefix}RedeliverHook`,
      summary: 'Deliver a past delivery of a hook again, as a new delivery (Hearth)', tag: l.tag,
      scope: l.write, ...guarded, ids: ['id', 'delivery'], responses: { 201: 'HookDelivery' },
      handle: async (ctx) => {
        const hook = await getHook(ctx.deps.db, l.level(ctx as Context), ctx.ids.id);
        const task = await getHookTask(ctx.deps.db, hook.id, ctx.ids.delivery);
        const again = await inTx(ctx.deps, (tx) => redeliverHookTask(tx, ctx.deps.config.webhook.deliverTimeoutSeconds, task));
        return created(renderHookDelivery(again));
      },
    }),
  ] as RouteDefinition[];
}

const repoAdmin = { signedIn: true, repo: { mode: 'admin' } } as const;
/** Gitea 1.22 disables server-side git hooks by default (DISABLE_GIT_HOOKS): nobody may edit them. */
const gitHooksDisabled = (): never => {
  throw forbidden('must be allowed to edit Git hooks');
};

const gitHookRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/hooks/git', operationId: 'repoListGitHooks', summary: 'List the Git hooks in a repository', tag: 'repository',
    scope: 'read:repository', ...repoAdmin, responses: { 200: 'GitHookList' },
    handle: async () => gitHooksDisabled(),
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/hooks/git/{id}', operationId: 'repoGetGitHook', summary: 'Get a Git hook', tag: 'repository',
    scope: 'read:repository', ...repoAdmin, responses: { 200: 'GitHook' },
    handle: async () => gitHooksDisabled(),
  }),
  route({
    method: 'patch', path: '/repos/{owner}/{repo}/hooks/git/{id}', operationId: 'repoEditGitHook', summary: 'Edit a Git hook in a repository', tag: 'repository',
    scope: 'write:repository', ...repoAdmin, body: z.object({ content: z.string().optional() }), responses: { 200: 'GitHook' },
    handle: async () => gitHooksDisabled(),
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/hooks/git/{id}', operationId: 'repoDeleteGitHook', summary: 'Delete a Git hook in a repository', tag: 'repository',
    scope: 'write:repository', ...repoAdmin, responses: { 204: 'empty' },
    handle: async () => gitHooksDisabled(),
  }),
];

const testHookRoute = route({
  method: 'post', path: '/repos/{owner}/{repo}/hooks/{id}/tests', operationId: 'repoTestHook', summary: 'Test a push webhook', tag: 'repository',
  scope: 'write:repository', ...repoAdmin, ids: ['id'], query: z.object({ ref: z.string().optional() }), responses: { 204: 'empty' },
  handle: async ({ deps, repo, doer, ids, query }) => {
    const hook = await getHook(deps.db, { repoId: repo.repo.id }, ids.id);
    const reader = deps.git.open(repo.repo);
    const asked = query.ref?.trim() || '';
    const ref = asked || `refs/heads/${repo.repo.default_branch}`;
    const sha = asked
      ? (await reader.resolve(`refs/heads/${asked}`)) ?? (await reader.resolve(`refs/tags/${asked}`)) ?? (await reader.resolve(asked))
      : await reader.resolve(ref);
    if (!sha) {
      if (asked) throw notFound(`no commit found for the ref [ref: ${asked}]`);
      return noContent();
    }
    const commit = await reader.findCommit(sha);
    if (!commit) return noContent();
    const [head] = await commitViews(deps.db, reader, [commit]);
    const view = { ...repo, mode: accessModes.none };
    const payload = formatPayload(hook, { type: 'push', body: renderTestPushPayload(ref, head, view, doer, deps.config) }, deps.config.rootUrl);
    if (payload === null) return noContent();
    await inTx(deps, (tx) =>
      createStandaloneTask(tx, deps.config.webhook.deliverTimeoutSeconds, { hookId: hook.id, repoId: repo.repo.id, eventType: 'push', payload }));
    return noContent();
  },
});

export const hookRoutes: RouteDefinition[] = [...gitHookRoutes, testHookRoute, ...levels.flatMap(levelRoutes)];
