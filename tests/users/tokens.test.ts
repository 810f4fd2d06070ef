import test from 'ava';
import { basicAuth, startHearth, type TestHearth } from '../helpers/hearth.js';

interface TokenRecord {
  id: number;
  name: string;
  token_hash: string;
  token_salt: string;
  token_last_eight: string;
}

async function tokenRows(hearth: TestHearth, uid: number): Promise<TokenRecord[]> {
  return hearth.store.db.query<TokenRecord>(
    'SELECT id::int, name, token_hash, token_salt, token_last_eight FROM access_token WHERE uid = $1 ORDER BY id',
    [uid],
  );
}

test('a created token is returned once, stored hashed, and works', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const answer = await hearth.call('POST', '/users/alice/tokens', { auth: alice.basic, body: { name: 'ci', scopes: ['write:user'] } });
  t.is(answer.status, 201);
  t.deepEqual(Object.keys(answer.body).sort(), ['id', 'name', 'scopes', 'sha1', 'token_last_eight']);
  t.is(answer.body.name, 'ci');
  t.regex(answer.body.sha1, /^[0-9a-f]{40}$/);
  t.is(answer.body.token_last_eight, answer.body.sha1.slice(-8));
  t.deepEqual(answer.body.scopes, ['write:user']);

  const row = (await tokenRows(hearth, alice.user.id)).find((r) => r.id === answer.body.id);
  t.truthy(row);
  t.is(row!.name, 'ci');
  t.is(row!.token_last_eight, answer.body.sha1.slice(-8));
  t.not(row!.token_hash, answer.body.sha1);
  t.false(row!.token_hash.includes(answer.body.sha1));
  const leaked = await hearth.store.db.query(`SELECT 1 FROM access_token t WHERE row_to_json(t)::text LIKE '%' || $1 || '%'`, [answer.body.sha1]);
  t.is(leaked.length, 0);

  const me = await hearth.call('GET', '/user', { auth: `token ${answer.body.sha1}` });
  t.is(me.status, 200);
  t.is(me.body.login, 'alice');

  const list = await hearth.call('GET', '/users/alice/tokens', { auth: alice.basic });
  t.is(list.status, 200);
  t.is(list.body.length, 2);
  for (const token of list.body) {
    t.is(token.sha1, '');
    t.regex(token.token_last_eight, /^[0-9a-f]{8}$/);
  }
  t.deepEqual(list.body.find((token: { id: number }) => token.id === answer.body.id), { ...answer.body, sha1: '' });
});

test('token management needs basic authentication with a password: a token is refused, even inside basic', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const asToken = [alice.bearer, `Bearer ${alice.token}`, basicAuth('alice', alice.token), basicAuth(alice.token, '')];
  for (const auth of asToken) {
    for (const [method, path, body] of [
      ['GET', '/users/alice/tokens', undefined],
      ['POST', '/users/alice/tokens', { name: 'sneaky', scopes: ['all'] }],
      ['DELETE', '/users/alice/tokens/test', undefined],
    ] as const) {
      const answer = await hearth.call(method, path, { auth, body });
      t.is(answer.status, 401, `${method} ${auth}`);
      t.is(answer.body.message, 'auth required');
    }
  }
  const byQuery = await hearth.call('GET', `/users/alice/tokens?token=${alice.token}`);
  t.is(byQuery.status, 401);
  t.is(byQuery.body.message, 'auth required');
  const anonymous = await hearth.call('GET', '/users/alice/tokens');
  t.is(anonymous.status, 401);
  t.deepEqual((await tokenRows(hearth, alice.user.id)).map((r) => r.name), ['test']);
});

test('delete by id and by name; an unknown token is a 404', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const create = (name: string) => hearth.call('POST', '/users/alice/tokens', { auth: alice.basic, body: { name, scopes: ['read:user'] } });
  const first = await create('first');
  const second = await create('second');
  await create('12345');

  const byId = await hearth.call('DELETE', `/users/alice/tokens/${first.body.id}`, { auth: alice.basic });
  t.is(byId.status, 204);
  t.is(byId.body, undefined);
  const byName = await hearth.call('DELETE', '/users/alice/tokens/second', { auth: alice.basic });
  t.is(byName.status, 204);
  t.deepEqual((await tokenRows(hearth, alice.user.id)).map((r) => r.name), ['test', '12345']);

  const gone = await hearth.call('GET', '/user', { auth: `token ${second.body.sha1}` });
  t.is(gone.status, 401);

  const numericName = await hearth.call('DELETE', '/users/alice/tokens/12345', { auth: alice.basic });
  t.is(numericName.status, 204);
  for (const missing of ['second', String(first.body.id), 'never']) {
    const answer = await hearth.call('DELETE', `/users/alice/tokens/${missing}`, { auth: alice.basic });
    t.is(answer.status, 404, missing);
    t.truthy(answer.body.message);
  }
  t.deepEqual((await tokenRows(hearth, alice.user.id)).map((r) => r.name), ['test']);
});

test("an administrator lists, creates and deletes another account's tokens; a non-administrator gets 403", async (t) => {
  const hearth = await startHearth(t);
  const root = await hearth.createUser('root', { admin: true });
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');

  const made = await hearth.call('POST', '/users/alice/tokens', { auth: root.basic, body: { name: 'by-admin', scopes: ['read:user'] } });
  t.is(made.status, 201);
  const aliceRows = await tokenRows(hearth, alice.user.id);
  t.deepEqual(aliceRows.map((r) => r.name), ['test', 'by-admin']);
  t.is((await tokenRows(hearth, root.user.id)).length, 1);
  const asAlice = await hearth.call('GET', '/user', { auth: `token ${made.body.sha1}` });
  t.is(asAlice.body.login, 'alice');

  const listed = await hearth.call('GET', '/users/alice/tokens', { auth: root.basic });
  t.is(listed.status, 200);
  t.deepEqual(listed.body.map((token: { name: string }) => token.name).sort(), ['by-admin', 'test']);

  const removed = await hearth.call('DELETE', '/users/alice/tokens/by-admin', { auth: root.basic });
  t.is(removed.status, 204);
  t.deepEqual((await tokenRows(hearth, alice.user.id)).map((r) => r.name), ['test']);

  const forbidden = [
    await hearth.call('GET', '/users/alice/tokens', { auth: bob.basic }),
    await hearth.call('POST', '/users/alice/tokens', { auth: bob.basic, body: { name: 'by-bob', scopes: ['all'] } }),
    await hearth.call('DELETE', '/users/alice/tokens/test', { auth: bob.basic }),
    await hearth.call('DELETE', `/users/alice/tokens/${aliceRows[0].id}`, { auth: bob.basic }),
    await hearth.call('DELETE', `/users/bob/tokens/${aliceRows[0].id}`, { auth: bob.basic }),
  ];
  t.deepEqual(forbidden.map((a) => a.status), [403, 403, 403, 403, 404]);
  for (const answer of forbidden.slice(0, 4)) t.regex(answer.body.message, /site admin/);
  t.deepEqual((await tokenRows(hearth, alice.user.id)).map((r) => r.name), ['test']);
  t.deepEqual((await tokenRows(hearth, bob.user.id)).map((r) => r.name), ['test']);

  const missing = await hearth.call('GET', '/users/nobody/tokens', { auth: root.basic });
  t.is(missing.status, 404);
});

test('a duplicate or empty token name is a 400 and writes nothing', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const duplicate = await hearth.call('POST', '/users/alice/tokens', { auth: alice.basic, body: { name: 'test', scopes: ['all'] } });
  t.is(duplicate.status, 400);
  t.is(duplicate.body.message, 'access token name has been used already');
  const blank = await hearth.call('POST', '/users/alice/tokens', { auth: alice.basic, body: { name: '  ', scopes: ['all'] } });
  t.is(blank.status, 400);
  t.truthy(blank.body.message);
  const missingName = await hearth.call('POST', '/users/alice/tokens', { auth: alice.basic, body: { scopes: ['all'] } });
  t.is(missingName.status, 422);
  t.regex(missingName.body.message, /name/);
  const racing = await Promise.all(
    [1, 2, 3].map(() => hearth.call('POST', '/users/alice/tokens', { auth: alice.basic, body: { name: 'race', scopes: ['all'] } })),
  );
  t.deepEqual(racing.map((a) => a.status).sort(), [201, 400, 400]);
  t.deepEqual((await tokenRows(hearth, alice.user.id)).map((r) => r.name), ['test', 'race']);
});

test('the token list is paginated with X-Total-Count and Link', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  for (const name of ['a', 'b', 'c', 'd']) {
    t.is((await hearth.call('POST', '/users/alice/tokens', { auth: alice.basic, body: { name, scopes: ['read:user'] } })).status, 201);
  }
  const first = await hearth.call('GET', '/users/alice/tokens?limit=2', { auth: alice.basic });
  t.is(first.status, 200);
  t.is(first.body.length, 2);
  t.is(first.headers.get('x-total-count'), '5');
  const link = first.headers.get('link') ?? '';
  t.regex(link, /<[^>]*\/api\/v1\/users\/alice\/tokens\?limit=2&page=2>; rel="next"/);
  t.regex(link, /<[^>]*page=3[^>]*>; rel="last"/);

  const last = await hearth.call('GET', '/users/alice/tokens?limit=2&page=3', { auth: alice.basic });
  t.is(last.body.length, 1);
  t.notRegex(last.headers.get('link') ?? '', /rel="next"/);
  t.regex(last.headers.get('link') ?? '', /rel="prev"/);
  const names = [first.body, (await hearth.call('GET', '/users/alice/tokens?limit=2&page=2', { auth: alice.basic })).body, last.body]
    .flat()
    .map((token: { name: string }) => token.name);
  t.deepEqual(names.sort(), ['a', 'b', 'c', 'd', 'test']);
});
