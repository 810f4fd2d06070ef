import test from 'ava';
import { startHearth, type TestHearth } from '../helpers/hearth.js';

async function rawPost(hearth: TestHearth, path: string, body: string, auth: string, type = 'text/plain'): Promise<{ status: number; type: string | null; text: string }> {
  const response = await fetch(`${hearth.rootUrl}api/v1${path}`, { method: 'POST', headers: { Authorization: auth, 'Content-Type': type }, body });
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

test('POST /markdown renders GFM to sanitized HTML, links mentions, resolves relative links against the context', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  await hearth.createUser('bob');

  const text = [
    '# Hello World', '', 'Hi @bob and @nobody, see [docs](docs/intro.md) and [home](/alice).', '',
    '| a | b |', '|---|--:|', '| 1 | 2 |', '', '- [x] done', '- [ ] todo', '', '~~gone~~ https://example.com', '',
    '<script>alert(1)</script><a href="javascript:alert(1)" onclick="x()">click</a>', '', '`@bob` in code',
  ].join('\n');
  const answer = await hearth.call('POST', '/markdown', { auth: alice.bearer, body: { text, mode: 'gfm', context: '/alice/tools/src/branch/main' } });
  t.is(answer.status, 200);
  t.regex(answer.headers.get('content-type') ?? '', /^text\/html/);
  const html = answer.body as string;
  t.true(html.includes('<h1 id="user-content-hello-world">Hello World</h1>'), html);
  t.true(html.includes(`<a href="${hearth.rootUrl}bob" class="mention" rel="nofollow">@bob</a>`), html);
  t.false(html.includes(`${hearth.rootUrl}nobody`), 'only existing accounts are linked');
  t.true(html.includes(`<a href="${hearth.rootUrl}alice/tools/src/branch/main/docs/intro.md" rel="nofollow">docs</a>`), html);
  t.true(html.includes(`<a href="${hearth.rootUrl}alice" rel="nofollow">home</a>`), html);
  t.true(html.includes('<table>'));
  t.true(html.includes('<td style="text-align:right">2</td>'), html);
  t.true(html.includes('<li class="task-list-item"><input type="checkbox" class="task-list-item-checkbox" disabled checked /> done</li>'), html);
  t.true(html.includes('<s>gone</s>'), html);
  t.true(html.includes('<a href="https://example.com" rel="nofollow">https://example.com</a>'), html);
  t.false(/<script|javascript:|onclick/.test(html), html);
  t.true(html.includes('<code>@bob</code>'));

  const comment = await hearth.call('POST', '/markdown', { auth: alice.bearer, body: { Text: 'one\ntwo', Mode: 'comment' } });
  t.is(comment.body, '<p>one<br />\ntwo</p>\n', 'comments keep line breaks; field names match case-insensitively, as Go does');
  const plain = await hearth.call('POST', '/markdown', { auth: alice.bearer, body: { text: 'one\ntwo @bob' } });
  t.is(plain.body, '<p>one\ntwo @bob</p>\n', 'mode markdown: no hard breaks, no mentions');

  const unknown = await hearth.call('POST', '/markdown', { auth: alice.bearer, body: { text: 'x', mode: 'fancy' } });
  t.is(unknown.status, 422);
  t.is(unknown.body.message, 'Unknown mode: fancy');
  t.is((await hearth.call('POST', '/markdown', { auth: alice.bearer, body: { text: 5 } })).status, 422);
  t.is((await hearth.call('POST', '/markdown', { body: { text: 'x' } })).status, 401);
});

test('POST /markup renders markdown files and refuses other files; /markdown/raw takes the body as it is', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');

  const file = await hearth.call('POST', '/markup', { auth: alice.bearer, body: { text: '## Usage', mode: 'file', filePath: 'docs/README.md' } });
  t.is(file.status, 200);
  t.is(file.body, '<h2 id="user-content-usage">Usage</h2>\n');
  const other = await hearth.call('POST', '/markup', { auth: alice.bearer, body: { text: 'x', mode: 'file', filepath: 'main.go' } });
  t.is(other.status, 422);
  t.is((await hearth.call('POST', '/markup', { auth: alice.bearer, body: { text: '*x*', mode: 'gfm' } })).body, '<p><em>x</em></p>\n');

  const raw = await rawPost(hearth, '/markdown/raw', '**bold** <img src="x" onerror="y()">', alice.bearer);
  t.is(raw.status, 200);
  t.regex(raw.type ?? '', /^text\/html/);
  t.is(raw.text, '<p><strong>bold</strong> <img src="x" /></p>\n');
  const asJsonType = await rawPost(hearth, '/markdown/raw', '# not json', alice.bearer, 'application/json');
  t.is(asJsonType.status, 200, 'the body is read as text whatever its content type');
  t.is(asJsonType.text, '<h1 id="user-content-not-json">not json</h1>\n');
  t.is((await rawPost(hearth, '/markdown/raw', '', alice.bearer)).text, '');
});
