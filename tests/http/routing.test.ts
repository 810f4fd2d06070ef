import { createServer } from 'node:http';
import test, { type ExecutionContext } from 'ava';
import express from 'express';
import { anonymous } from '../../api/auth/caller.js';
import type { Deps } from '../../api/deps.js';
import { mountRoutes } from '../../api/http/mount.js';
import { ok, route, type RouteDefinition } from '../../api/http/route.js';

const answering = (path: string, rest?: string) =>
  route({
    method: 'get', path, rest, operationId: path, summary: path, tag: 'test', scope: null, responses: { 200: 'ok' },
    handle: async ({ params }) => ok({ route: path, params }),
  });

async function serve(t: ExecutionContext, routes: RouteDefinition[]): Promise<(path: string, method?: string) => Promise<{ status: number; body: unknown }>> {
  const app = express();
  app.use((_req, res, next) => {
    res.locals.caller = anonymous;
    next();
  });
  app.use(mountRoutes(routes, { config: { rootUrl: 'http://127.0.0.1/' } } as unknown as Deps));
  app.use((_req, res) => {
    res.status(404).json({ route: null });
  });
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return async (path, method = 'GET') => {
    const response = await fetch(`${base}${path}`, { method });
    return { status: response.status, body: method === 'HEAD' ? null : await response.json() };
  };
}

test('a literal segment wins over a parameter, and a parameter over a rest parameter, whatever the declaration order', async (t) => {
  const call = await serve(t, [
    answering('/files/{path}', 'path'),
    answering('/files/{name}/meta'),
    answering('/things/{id}'),
    answering('/things/search'),
    answering('/things/{id}/{part}'),
    answering('/things/{id}/parts'),
  ]);
  const get = async (path: string) => (await call(path)).body as { route: string; params: Record<string, string> };

  t.is((await get('/things/search')).route, '/things/search');
  t.deepEqual(await get('/things/42'), { route: '/things/{id}', params: { id: '42' } });
  t.is((await get('/things/42/parts')).route, '/things/{id}/parts');
  t.is((await get('/things/42/bolts')).route, '/things/{id}/{part}');
  t.deepEqual(await get('/files/readme/meta'), { route: '/files/{name}/meta', params: { name: 'readme' } });
  t.deepEqual(await get('/files/docs/guide/intro.md'), { route: '/files/{path}', params: { path: 'docs/guide/intro.md' } });
});

test('a request meets the routes of its first segment and length: case, a trailing slash and rest parameters as Express matches them', async (t) => {
  const call = await serve(t, [
    answering('/{anything}'),
    answering('/repos/{owner}/{repo}'),
    answering('/repos/{owner}/{repo}/raw/{path}', 'path'),
    answering('/repos/search'),
    answering('/user'),
  ]);
  const route = async (path: string, method?: string) => {
    const { status, body } = await call(path, method);
    return status === 200 ? (body as { route: string } | null)?.route ?? 'HEAD' : status;
  };
  t.is(await route('/Repos/search'), '/repos/search');
  t.is(await route('/REPOS/a/b/'), '/repos/{owner}/{repo}');
  t.is(await route('/repos/a/b/raw/x/y/z/w/v/u/t/s'), '/repos/{owner}/{repo}/raw/{path}', 'a rest parameter meets paths longer than any route');
  t.is(await route('/repos/a/b/raw/'), 404, 'a rest parameter takes one segment at least');
  t.is(await route('/repos/a/b/c'), 404);
  t.is(await route('/user/'), '/user');
  t.is(await route('/elsewhere'), '/{anything}', 'a first segment no route spells meets the routes that start with a parameter');
  t.is(await route('/repos'), '/{anything}');
  t.is(await route('/repos/a/b', 'HEAD'), 'HEAD');
  t.is(await route('/repos/a/b', 'POST'), 404);
});
