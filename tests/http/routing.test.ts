import { createServer } from 'node:http';
import test from 'ava';
import express from 'express';
import { anonymous } from '../../api/auth/caller.js';
import type { Deps } from '../../api/deps.js';
import { mountRoutes } from '../../api/http/mount.js';
import { ok, route } from '../../api/http/route.js';

const answering = (path: string, rest?: string) =>
  route({
    method: 'get', path, rest, operationId: path, summary: path, tag: 'test', scope: null, responses: { 200: 'ok' },
    handle: async ({ params }) => ok({ route: path, params }),
  });

test('a literal segment wins over a parameter, and a parameter over a rest parameter, whatever the declaration order', async (t) => {
  const routes = [
    answering('/files/{path}', 'path'),
    answering('/files/{name}/meta'),
    answering('/things/{id}'),
    answering('/things/search'),
    answering('/things/{id}/{part}'),
    answering('/things/{id}/parts'),
  ];
  const app = express();
  app.use((_req, res, next) => {
    res.locals.caller = anonymous;
    next();
  });
  app.use(mountRoutes(routes, { config: { rootUrl: 'http://127.0.0.1/' } } as unknown as Deps));
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const get = async (path: string) => (await fetch(`${base}${path}`)).json() as Promise<{ route: string; params: Record<string, string> }>;

  t.is((await get('/things/search')).route, '/things/search');
  t.deepEqual(await get('/things/42'), { route: '/things/{id}', params: { id: '42' } });
  t.is((await get('/things/42/parts')).route, '/things/{id}/parts');
  t.is((await get('/things/42/bolts')).route, '/things/{id}/{part}');
  t.deepEqual(await get('/files/readme/meta'), { route: '/files/{name}/meta', params: { name: 'readme' } });
  t.deepEqual(await get('/files/docs/guide/intro.md'), { route: '/files/{path}', params: { path: 'docs/guide/intro.md' } });
});
