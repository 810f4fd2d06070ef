import { request as httpRequest } from 'node:http';
import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth } from '../helpers/hearth.js';

const b64 = (text: string): string => Buffer.from(text).toString('base64');

test('the wiki unit gates every operation; writing needs write access to the wiki; an archived repository refuses changes', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const carol = await hearth.createUser('carol');
  await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  await build.repo(hearth, alice, { name: 'hidden', private: true, autoInit: true });
  const api = '/repos/alice/tool/wiki';
  t.is((await hearth.call('POST', `${api}/new`, { auth: alice.bearer, body: { title: 'Home', content_base64: b64('hi') } })).status, 201);
  t.is((await hearth.call('PUT', '/repos/alice/tool/collaborators/bob', { auth: alice.bearer, body: { permission: 'read' } })).status, 204);

  // Readers read; they and strangers may not write; nobody anonymous.
  t.is((await hearth.call('GET', `${api}/page/Home`)).status, 200);
  t.is((await hearth.call('GET', `${api}/page/Home`, { auth: bob.bearer })).status, 200);
  t.is((await hearth.call('POST', `${api}/new`, { body: { title: 'X', content_base64: '' } })).status, 401);
  for (const who of [bob, carol]) {
    t.is((await hearth.call('POST', `${api}/new`, { auth: who.bearer, body: { title: 'X', content_base64: '' } })).status, 403);
    t.is((await hearth.call('PATCH', `${api}/page/Home`, { auth: who.bearer, body: { content_base64: '' } })).status, 403);
    t.is((await hearth.call('DELETE', `${api}/page/Home`, { auth: who.bearer })).status, 403);
  }
  t.is((await hearth.call('GET', '/repos/alice/hidden/wiki/pages', { auth: carol.bearer })).status, 404);
  t.is((await hearth.call('PUT', '/repos/alice/tool/collaborators/bob', { auth: alice.bearer, body: { permission: 'write' } })).status, 204);
  t.is((await hearth.call('POST', `${api}/new`, { auth: bob.bearer, body: { title: 'By Bob', content_base64: b64('b') } })).status, 201);

  // A wiki switched off (or pointed elsewhere) is not there, for its owner too.
  const off = await hearth.call('PATCH', '/repos/alice/tool', { auth: alice.bearer, body: { has_wiki: false } });
  t.is(off.status, 200);
  for (const [method, path] of [['GET', '/pages'], ['GET', '/page/Home'], ['GET', '/revisions/Home'], ['DELETE', '/page/Home'], ['PATCH', '/page/Home'], ['POST', '/new']]) {
    t.is((await hearth.call(method, `${api}${path}`, { auth: alice.bearer, body: method === 'GET' || method === 'DELETE' ? undefined : { title: 'Y', content_base64: '' } })).status, 404, `${method} ${path}`);
  }
  await hearth.call('PATCH', '/repos/alice/tool', { auth: alice.bearer, body: { has_wiki: true, external_wiki: { external_wiki_url: 'https://wiki.example.com/' } } });
  t.is((await hearth.call('GET', `${api}/page/Home`, { auth: alice.bearer })).status, 404);
  await hearth.call('PATCH', '/repos/alice/tool', { auth: alice.bearer, body: { has_wiki: true } });
  t.is((await hearth.call('GET', `${api}/page/Home`, { auth: alice.bearer })).status, 200);

  t.is((await hearth.call('PATCH', '/repos/alice/tool', { auth: alice.bearer, body: { archived: true } })).status, 200);
  const archived = await hearth.call('POST', `${api}/new`, { auth: alice.bearer, body: { title: 'Late', content_base64: b64('l') } });
  t.is(archived.status, 423);
  t.is((await hearth.call('DELETE', `${api}/page/Home`, { auth: alice.bearer })).status, 423);
  t.is((await hearth.call('GET', `${api}/page/Home`)).status, 200);
});

test('odd names and bodies are answered with 4xx, never a server error, and leave the wiki as it was', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  const api = '/repos/alice/tool/wiki';
  t.is((await hearth.call('POST', `${api}/new`, { auth: alice.bearer, body: { title: 'Home', content_base64: b64('hi') } })).status, 201);
  const before = (await hearth.call('GET', `${api}/page/Home`)).body.last_commit.sha;
  const bodies: unknown[] = [
    { title: 'x'.repeat(256), content_base64: '' }, { title: 'a', content_base64: 5 }, { title: 'a', message: 'm\u0000' },
    { title: ['a'] }, { title: 'a', content_base64: '====' }, { title: 'raw' }, { title: '_edit' }, '{"title":',
  ];
  for (const body of bodies) {
    const answer = await hearth.call('POST', `${api}/new`, { auth: alice.bearer, body });
    t.true(answer.status >= 400 && answer.status < 500, `${JSON.stringify(body)}: ${answer.status}`);
  }
  for (const name of ['%2e%2e', '..%2F..%2Fconfig', '%ZZ', '.git%2FHEAD.md', '..md', 'x'.repeat(2000), '%C0%AF', 'a%00b']) {
    for (const [method, path, body] of [['GET', '/page/', undefined], ['GET', '/revisions/', undefined], ['PATCH', '/page/', { content_base64: '' }], ['DELETE', '/page/', undefined]] as const) {
      const answer = await hearth.call(method, `${api}${path}${name}`, { auth: alice.bearer, body });
      t.true(answer.status < 500, `${method} ${path}${name.slice(0, 20)}: ${answer.status}`);
    }
  }
  // the odd names that are names after all (`..md`, `%2e%2e`, …) were written as pages of their own, never over Home
  t.like((await hearth.call('GET', `${api}/page/Home`)).body, { content_base64: b64('hi'), last_commit: { sha: before } });
  for (const page of (await hearth.call('GET', `${api}/pages?limit=50`)).body) t.notRegex(page.sub_url, /^(raw|_edit)$/);
});


/** A request sent with its path as written: fetch would resolve `.` and `..` segments before sending. */
function rawCall(url: string, method: string, auth: string, body?: unknown): Promise<{ status: number; body: string }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const request = httpRequest({
      host: target.hostname, port: target.port, method, path: url.slice(target.origin.length),
      headers: { Authorization: auth, ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(payload)) } : {}) },
    }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    request.on('error', reject);
    request.end(payload);
  });
}

test('names a page cannot have (`..`, `.`, `%2e%2e`, a trailing slash, `.git%2F…`) are 404 or 422 for every page operation and change nothing', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  const api = `${hearth.rootUrl}api/v1/repos/alice/tool/wiki`;
  t.is((await hearth.call('POST', '/repos/alice/tool/wiki/new', { auth: alice.bearer, body: { title: 'Home', content_base64: b64('hi') } })).status, 201);
  const pagesBefore = (await hearth.call('GET', '/repos/alice/tool/wiki/pages?limit=50')).body;
  const headBefore = (await hearth.call('GET', '/repos/alice/tool/wiki/page/Home')).body.last_commit.sha;
  const wrong: string[] = [];
  for (const name of ['..', '.', '%2e%2e', '%2E', '.%2E', '%2e.', 'Home/', '.git%2Fconfig.md', 'x%2F.git%2FHEAD.md', 'a/..', '../Home', 'Home/..']) {
    for (const [method, path, body] of [
      ['PATCH', '/page/', { title: 'Hijack', content_base64: b64('x') }], ['PATCH', '/page/', { content_base64: b64('x') }],
      ['DELETE', '/page/', undefined], ['GET', '/page/', undefined], ['GET', '/revisions/', undefined],
    ] as const) {
      const answer = await rawCall(`${api}${path}${name}`, method, alice.bearer, body);
      if (![404, 422].includes(answer.status)) wrong.push(`${method} ${path}${name} (${body ? Object.keys(body).join(',') : ''}): ${answer.status} ${answer.body.slice(0, 80)}`);
    }
  }
  t.deepEqual(wrong, []);
  t.deepEqual((await hearth.call('GET', '/repos/alice/tool/wiki/pages?limit=50')).body, pagesBefore, 'no page was written, renamed or removed');
  t.is((await hearth.call('GET', '/repos/alice/tool/wiki/page/Home')).body.last_commit.sha, headBefore);
});
