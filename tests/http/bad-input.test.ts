import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth } from '../helpers/hearth.js';

const repoCount = async (hearth: Awaited<ReturnType<typeof startHearth>>): Promise<number> =>
  Number((await hearth.store.db.query<{ n: string }>('SELECT count(*) AS n FROM repository'))[0].n);

test('a body nested past a small depth is a 400 before validation, at the top or inside a field, and nothing is written', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const depth = 100_000;
  const bodies = [
    '['.repeat(depth) + ']'.repeat(depth),
    '{"a":'.repeat(50_000) + '1' + '}'.repeat(50_000),
    `{"name":"deep","description":${'['.repeat(depth)}${']'.repeat(depth)}}`,
  ];
  for (const body of bodies) {
    const answer = await hearth.call('POST', '/user/repos', { auth: alice.bearer, body });
    t.is(answer.status, 400, body.slice(0, 20));
    t.regex(answer.body.message, /nest/);
  }
  t.is(await repoCount(hearth), 0);
  const shallow = await hearth.call('POST', '/user/repos', { auth: alice.bearer, body: { name: 'shallow', description: 'fine' } });
  t.is(shallow.status, 201);
});

test('a body that is not valid UTF-8 is a 400, and nothing is written', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bytes = Buffer.concat([Buffer.from('{"name":"bad'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
  const answer = await fetch(`${hearth.rootUrl}api/v1/user/repos`, {
    method: 'POST',
    headers: { Authorization: alice.bearer, 'Content-Type': 'application/json' },
    body: bytes,
  });
  t.is(answer.status, 400);
  t.regex((await answer.json()).message, /UTF-8/);
  t.is(await repoCount(hearth), 0);
});

test('credentials given as query parameters are left out of the Link header of a paged answer', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  for (const name of ['one', 'two', 'three']) await build.repo(hearth, alice, { name });
  for (const parameter of ['token', 'access_token']) {
    const answer = await hearth.call('GET', `/user/repos?limit=1&${parameter}=${alice.token}&page=2`);
    t.is(answer.status, 200);
    const link = answer.headers.get('link') ?? '';
    t.regex(link, /rel="next"/);
    t.false(link.includes(alice.token), link);
    t.false(link.includes(parameter), link);
  }
});
