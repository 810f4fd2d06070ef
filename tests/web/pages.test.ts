import test from 'ava';
import { build } from '../helpers/build.js';
import { Browser, type Page } from '../helpers/browser.js';
import { startHearth, type TestHearth, type TestUser } from '../helpers/hearth.js';

const xss = '<script>alert(1)</script>';

interface Seeded {
  hearth: TestHearth;
  alice: TestUser;
  bob: TestUser;
}

/** alice's public `tool` (README, topics, an issue with comments), her private `secret`, an empty `blank`; bob a stranger. */
async function seed(t: Parameters<typeof startHearth>[0]): Promise<Seeded> {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const tool = await build.repo(hearth, alice, { name: 'tool', description: `A tool ${xss}` });
  await build.commit(hearth, tool, { files: { 'README.md': '# Tool manual\n\nRead **this** first.\n\n<img src=x onerror="alert(1)">\n', 'src/main.c': 'int main;\n' } });
  await build.repo(hearth, alice, { name: 'secret', private: true, autoInit: true, description: 'hidden things' });
  await build.repo(hearth, alice, { name: 'blank' });
  const call = async (method: string, path: string, body: unknown, who: TestUser = alice): Promise<void> => {
    const answer = await hearth.call(method, path, { auth: who.bearer, body });
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
  };
  await call('PUT', '/repos/alice/tool/topics', { topics: ['compilers', 'cli'] });
  const label = await hearth.call('POST', '/repos/alice/tool/labels', { auth: alice.bearer, body: { name: 'bug', color: '#ee0701' } });
  await call('POST', '/repos/alice/tool/issues', { title: `Crash on start ${xss}`, body: 'It *crashes*.', labels: [label.body.id] });
  await call('POST', '/repos/alice/tool/issues/1/comments', { body: `Confirmed: **bold** <img src=x onerror="alert(2)"> <a href="javascript:alert(3)">x</a>` }, bob);
  await call('POST', '/repos/alice/secret/issues', { title: 'Private plans', body: 'shh' });
  return { hearth, alice, bob };
}

const textOf = (page: Page): string => page.html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

test('pages render their content from the same views as the API, escaped and sanitized, each with the CSP', async (t) => {
  const { hearth } = await seed(t);
  const browser = new Browser(hearth.rootUrl);

  const home = await browser.get('/');
  t.is(home.status, 200);
  t.regex(home.headers.get('content-security-policy') ?? '', /script-src 'self'/);
  t.notRegex(home.headers.get('content-security-policy') ?? '', /unsafe-inline/);
  t.true(home.html.includes('href="/alice/tool"'));
  t.false(home.html.includes('alice/secret'), 'a private repository is not listed for anonymous visitors');
  t.true(home.html.includes('A tool &lt;script>alert(1)&lt;/script>'));
  t.false(home.html.includes(xss));
  t.false(/<script>(?!<\/script>)/.test(home.html.replace(/<script type="module" src="[^"]+"><\/script>/, '')), 'no inline script');

  const search = await browser.get('/explore/repos?q=blan');
  t.regex(textOf(search), /1 repository/);
  t.true(search.html.includes('href="/alice/blank"'));
  t.false(search.html.includes('href="/alice/tool"'));
  t.regex(textOf(await browser.get('/explore/repos?q=nomatch')), /No repository matches\./);

  const profile = await browser.get('/alice');
  t.is(profile.status, 200);
  t.true(profile.html.includes('href="/alice/tool"') && profile.html.includes('href="/alice/blank"'));
  t.false(profile.html.includes('href="/alice/secret"'));

  const repo = await browser.get('/alice/tool');
  t.is(repo.status, 200);
  t.regex(repo.headers.get('content-security-policy') ?? '', /default-src 'none'/);
  const text = textOf(repo);
  t.true(repo.html.includes('A tool &lt;script>alert(1)&lt;/script>'));
  t.true(repo.html.includes('<h1 id="tool-manual">Tool manual</h1>') || /<h1[^>]*>Tool manual<\/h1>/.test(repo.html), 'the README rendered as Markdown');
  t.true(repo.html.includes('<strong>this</strong>'));
  t.false(repo.html.includes('onerror'), 'the README sanitized');
  t.regex(text, /README\.md/);
  t.true(repo.html.includes('href="/alice/tool/src/branch/main/README.md"'), 'a file links to its source page');
  t.regex((await browser.get('/alice/tool/raw/branch/main/README.md')).html, /^# Tool manual/);
  t.regex(text, /src\//, 'the root file list, directories first');
  t.regex(text, /compilers/);
  t.regex(text, /cli/);
  t.regex(text, /Issues 1/);
  t.regex(text, /Pull requests 0/);
  t.regex(text, /Stars 0/);
  t.regex(text, /Releases 0/);
  t.true(repo.html.includes(`value="${hearth.rootUrl}alice/tool.git"`), 'the HTTP clone URL');
  t.true(repo.html.includes('data-copy='), 'a copy button');

  const empty = await browser.get('/alice/blank');
  t.is(empty.status, 200);
  t.regex(textOf(empty), /This repository is empty/);
  t.true(empty.html.includes(`git remote add origin ${hearth.rootUrl}alice/blank.git`));

  const issue = await browser.get('/alice/tool/issues/1');
  t.is(issue.status, 200);
  t.true(issue.html.includes('Crash on start &lt;script>alert(1)&lt;/script>'));
  t.regex(textOf(issue), /Open/);
  t.regex(textOf(issue), /bug/);
  t.true(issue.html.includes('<em>crashes</em>'));
  t.true(issue.html.includes('<strong>bold</strong>'));
  t.true(issue.html.includes('href="/bob"'), 'the commenter');
  t.false(issue.html.includes('onerror'));
  t.false(issue.html.includes('javascript:'));
  t.is((await browser.get('/alice/tool/issues/99')).status, 404);
  t.is((await browser.get('/alice/tool/issues/x')).status, 404);

  const css = await browser.get('/assets/hearth.css');
  t.is(css.status, 200);
  t.regex(css.headers.get('content-type') ?? '', /^text\/css/);
  t.regex(css.html, /prefers-color-scheme: dark/);
  const js = await browser.get('/assets/hearth.js');
  t.regex(js.headers.get('content-type') ?? '', /javascript/);

  const missing = await browser.get('/nobody');
  t.is(missing.status, 404);
  t.regex(missing.headers.get('content-security-policy') ?? '', /default-src 'none'/);
  t.regex(missing.html, /Page not found/);
});

test('a private repository and its issues are the 404 page for anonymous visitors and strangers, and visible to the owner', async (t) => {
  const { hearth, alice, bob } = await seed(t);
  const anonymous = new Browser(hearth.rootUrl);
  for (const path of ['/alice/secret', '/alice/secret/issues/1']) {
    const page = await anonymous.get(path);
    t.is(page.status, 404, path);
    t.regex(page.html, /Page not found/);
    t.false(page.html.includes('hidden things') || page.html.includes('Private plans'));
  }
  const stranger = new Browser(hearth.rootUrl);
  t.is((await stranger.signIn('bob', bob.password)).status, 303);
  t.is(Browser.signedInAs(await stranger.get('/')), 'bob');
  t.is((await stranger.get('/alice/secret')).status, 404);
  t.is((await stranger.get('/alice/secret/issues/1')).status, 404);
  t.false((await stranger.get('/alice')).html.includes('href="/alice/secret"'));
  t.false((await stranger.get('/')).html.includes('href="/alice/secret"'));

  const owner = new Browser(hearth.rootUrl);
  await owner.signIn('alice', alice.password);
  const repo = await owner.get('/alice/secret');
  t.is(repo.status, 200);
  t.regex(textOf(repo), /hidden things/);
  t.regex(textOf(repo), /Private/);
  const issue = await owner.get('/alice/secret/issues/1');
  t.is(issue.status, 200);
  t.regex(textOf(issue), /Private plans/);
  t.true((await owner.get('/alice')).html.includes('href="/alice/secret"'));
  t.true((await owner.get('/')).html.includes('href="/alice/secret"'));
});

test('explore and profiles are paged by 20 with previous and next links that keep the search', async (t) => {
  const hearth = await startHearth(t);
  const carol = await hearth.createUser('carol');
  for (let i = 1; i <= 22; i++) await build.repo(hearth, carol, { name: `lib${String(i).padStart(2, '0')}` });
  const browser = new Browser(hearth.rootUrl);
  const repoLinks = (page: Page): string[] => [...page.html.matchAll(/class="repo-name" href="\/carol\/(lib\d+)"/g)].map((m) => m[1]);

  const first = await browser.get('/explore/repos?q=lib');
  t.regex(textOf(first), /22 repositories/);
  t.is(repoLinks(first).length, 20);
  t.regex(first.html, /<a rel="next" href="\?q=lib&amp;page=2">/);
  const second = await browser.get('/explore/repos?q=lib&page=2');
  t.is(repoLinks(second).length, 2);
  t.regex(second.html, /<a rel="prev" href="\?q=lib&amp;page=1">/);
  t.deepEqual(new Set([...repoLinks(first), ...repoLinks(second)]).size, 22, 'no repository on both pages');

  const profile = await browser.get('/carol?page=2');
  t.deepEqual(repoLinks(profile), ['lib21', 'lib22']);
  t.is(repoLinks(await browser.get('/carol?page=x')).length, 20, 'a malformed page is the first');
});
