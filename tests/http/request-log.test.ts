import { createServer } from 'node:http';
import { Writable } from 'node:stream';
import test from 'ava';
import { pino } from 'pino';
import { createApp } from '../../api/app.js';
import { startHearth } from '../helpers/hearth.js';

interface LogLine {
  msg: string;
  method?: string;
  path?: string;
  route?: string;
  status?: number;
}

test('a request is logged with the path as requested, /api/v1 included, and the declared Gitea path beside it; never its query', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  const server = createServer(createApp({ ...hearth.deps, log: pino({ level: 'info' }, sink) }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const requestLines = (): LogLine[] => lines.filter((line) => line.msg === 'request');

  const missing = await fetch(`${base}/api/v1/orgs/no-such-org?token=${alice.token}`);
  t.is(missing.status, 404);
  const refused = await fetch(`${base}/api/v1/repos/alice/nothing/issues/1/dependencies`, { method: 'POST' });
  t.is(refused.status, 401);
  t.is((await fetch(`${base}/api/v1/no/such/route`)).status, 404);
  t.is((await fetch(`${base}/api/v1/version`)).status, 200);
  t.is((await fetch(`${base}/api/v1/users/${'x'.repeat(5000)}`)).status, 404);
  await new Promise((resolve) => setTimeout(resolve, 50));

  t.deepEqual(requestLines().map(({ method, path, route, status }) => ({ method, path, route, status })), [
    { method: 'GET', path: '/api/v1/orgs/no-such-org', route: '/api/v1/orgs/{org}', status: 404 },
    { method: 'POST', path: '/api/v1/repos/alice/nothing/issues/1/dependencies', route: '/api/v1/repos/{owner}/{repo}/issues/{index}/dependencies', status: 401 },
    { method: 'GET', path: '/api/v1/no/such/route', route: '(unmatched)', status: 404 },
    { method: 'GET', path: '/api/v1/version', route: '/api/v1/version', status: 200 },
    { method: 'GET', path: `/api/v1/users/${'x'.repeat(2048 - '/api/v1/users/'.length)}…`, route: '/api/v1/users/{username}', status: 404 },
  ]);
  t.false(lines.some((line) => JSON.stringify(line).includes(alice.token)), 'a token in the query string is never logged');
});
