import { inTx } from '../../../db/data-source.js';
import { notFound } from '../../../db/errors.js';
import { deleteRunner, listRunners, type RunnerLevel } from '../../../db/models/actions/runners.js';
import type { Scope } from '../../../db/scopes.js';
import { noContent, ok, route, type Context } from '../../http/route.js';
import { renderRunner } from '../../render/actions-runs.js';
import { requireActions } from './levels.js';

/**
 * Runner lists and removal at each level a registration token exists (Gitea 1.22 has none of these; the paths,
 * operation names and `ActionRunnersResponse` are those of Gitea's later API). A level sees its own runners; the
 * instance's list has every runner.
 */
interface Level {
  base: string;
  word: 'Admin' | 'Org' | 'Repo' | 'User';
  tag: string;
  read: Scope;
  write: Scope;
  guards: Record<string, unknown>;
  levelOf(ctx: Context): RunnerLevel;
}

const levels: Level[] = [
  {
    base: '/admin/actions/runners', word: 'Admin', tag: 'admin', read: 'read:admin', write: 'write:admin', guards: { admin: true },
    levelOf: () => ({ kind: 'instance' }),
  },
  {
    base: '/orgs/{org}/actions/runners', word: 'Org', tag: 'organization', read: 'read:organization', write: 'write:organization',
    guards: { signedIn: true, org: { role: 'owner' } }, levelOf: (ctx) => ({ kind: 'owner', ownerId: ctx.org!.id }),
  },
  {
    base: '/repos/{owner}/{repo}/actions/runners', word: 'Repo', tag: 'repository', read: 'read:repository', write: 'write:repository',
    guards: { signedIn: true, repo: { mode: 'admin' } }, levelOf: (ctx) => ({ kind: 'repo', repoId: ctx.repo!.repo.id }),
  },
  {
    base: '/user/actions/runners', word: 'User', tag: 'user', read: 'read:user', write: 'write:user',
    guards: { signedIn: true }, levelOf: (ctx) => ({ kind: 'owner', ownerId: ctx.doer!.id }),
  },
];

export const actionRunnerRoutes = levels.flatMap((l) => [
  route({
    method: 'get', path: l.base, operationId: `get${l.word}Runners`, summary: `Get the runners of this level (Hearth's own)`, tag: l.tag,
    scope: l.read, ...l.guards, paginated: true, responses: { 200: 'ActionRunnersResponse', 404: 'notFound' },
    handle: async (ctx: Context) => {
      requireActions(ctx);
      const { rows, total } = await listRunners(ctx.deps.db, l.levelOf(ctx), ctx.page!);
      return ok({ runners: rows.map(renderRunner), total_count: total });
    },
  }),
  route({
    method: 'delete', path: `${l.base}/{runner_id}`, operationId: `delete${l.word}Runner`, summary: `Delete a runner of this level (Hearth's own)`, tag: l.tag,
    scope: l.write, ...l.guards, ids: ['runner_id'], responses: { 204: 'empty', 404: 'notFound' },
    handle: async (ctx: Context) => {
      requireActions(ctx);
      const removed = await inTx(ctx.deps, (tx) => deleteRunner(tx, l.levelOf(ctx), ctx.ids.runner_id));
      if (!removed) throw notFound();
      return noContent();
    },
  }),
]);
