import test from 'ava';
import { build } from '../helpers/build.js';
import { Browser, type Page } from '../helpers/browser.js';
import { startHearth } from '../helpers/hearth.js';

const xss = '<script>alert(1)</script>';
const textOf = (page: Page): string => page.html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

test('source pages: listings, highlighted files with line anchors, Markdown, images, binary, huge and invalid UTF-8 files, odd paths', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const tool = await build.repo(hearth, alice, { name: 'tool' });
  const big = 'x'.repeat(1024 * 1024 + 10);
  await build.commit(hearth, tool, {
    message: `Seed files ${xss}`,
    files: {
      'README.md': '# Tool manual\n\nRead **this** first.\n',
      'src/main.ts': `const greeting: string = "${xss}";\nexport function hello() {\n  return greeting;\n}\n`,
      'docs/guide.md': '## Guide heading\n\n<img src=x onerror="alert(1)">\n',
      'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]),
      'data.bin': Buffer.from([1, 2, 0, 3, 4]),
      'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]),
      'big.txt': big,
      [`odd ${xss} ü.txt`]: 'odd name\n',
    },
  });
  await build.commit(hearth, tool, { files: { 'feature.txt': 'on a branch with a slash\n' }, newBranch: 'feature/x' });
  await build.repo(hearth, alice, { name: 'secret', private: true, autoInit: true });
  const browser = new Browser(hearth.rootUrl);

  const home = await browser.get('/alice/tool');
  t.true(home.html.includes('href="/alice/tool/src/branch/main/src"'), 'the home page links directories to source pages');
  t.true(home.html.includes('href="/alice/tool/src/branch/main/README.md"'));

  const root = await browser.get('/alice/tool/src/branch/main');
  t.is(root.status, 200);
  t.true(root.html.includes('href="/alice/tool/src/branch/main/docs"'));
  t.regex(root.html, /odd &lt;script(&gt;|>)alert/);
  t.false(root.html.includes(xss));

  const dir = await browser.get('/alice/tool/src/branch/main/src');
  t.is(dir.status, 200);
  t.true(dir.html.includes('href="/alice/tool/src/branch/main/src/main.ts"'));

  const file = await browser.get('/alice/tool/src/branch/main/src/main.ts');
  t.is(file.status, 200);
  t.true(file.html.includes('id="L4" href="#L4"'));
  t.false(file.html.includes('id="L5"'));
  t.true(file.html.includes('class="hljs-keyword"'), 'highlighted by highlight.js');
  t.false(file.html.includes(xss), 'the file content is escaped');
  t.true(file.html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
  t.true(file.html.includes('href="/alice/tool/raw/branch/main/src/main.ts"'));
  const raw = await browser.get('/alice/tool/raw/branch/main/src/main.ts');
  t.true(raw.html.startsWith('const greeting'));

  const markdown = await browser.get('/alice/tool/src/branch/main/docs/guide.md');
  t.true(markdown.html.includes('Guide heading</h2>'));
  t.false(markdown.html.includes('onerror'));

  const image = await browser.get('/alice/tool/src/branch/main/logo.png');
  t.true(image.html.includes('<img class="file-image" src="/alice/tool/raw/branch/main/logo.png"'));
  t.regex(textOf(await browser.get('/alice/tool/src/branch/main/data.bin')), /Binary file, not shown/);
  const huge = await browser.get('/alice/tool/src/branch/main/big.txt');
  t.is(huge.status, 200);
  t.regex(textOf(huge), /too large to show/);
  t.false(huge.html.includes('xxxxxxxxxx'));
  const latin = await browser.get('/alice/tool/src/branch/main/latin1.txt');
  t.is(latin.status, 200);
  t.regex(textOf(latin), /not valid UTF-8/);
  t.true(latin.html.includes('caf\ufffd'));
  const odd = await browser.get(`/alice/tool/src/branch/main/${encodeURIComponent(`odd ${xss} ü.txt`)}`);
  t.is(odd.status, 200);
  t.regex(textOf(odd), /odd name/);

  const slashed = await browser.get('/alice/tool/src/branch/feature/x/feature.txt');
  t.is(slashed.status, 200);
  t.regex(textOf(slashed), /on a branch with a slash/);
  const commitId = (await hearth.call('GET', '/repos/alice/tool/branches/main', { auth: alice.bearer })).body.commit.id as string;
  t.regex(textOf(await browser.get(`/alice/tool/src/commit/${commitId}/src/main.ts`)), /greeting/);
  t.is((await browser.get(`/alice/tool/src/commit/${commitId.slice(0, 8)}`)).status, 200);

  for (const path of [
    '/alice/tool/src/branch/nope/README.md', '/alice/tool/src/branch/main/missing.txt', '/alice/tool/src/branch/main/%2e%2e/%2e%2e/etc/passwd',
    '/alice/tool/src/branch/main/.git/config', `/alice/tool/src/branch/main/${'a/'.repeat(500)}x`, '/alice/tool/src/tag/v9/README.md',
    '/alice/tool/src/commit/0000000000000000000000000000000000000000/README.md', '/alice/tool/src/branch/main/a%00b',
    '/alice/secret/src/branch/main', '/alice/secret/src/branch/main/README.md',
  ]) {
    const answer = await browser.get(path);
    t.true(answer.status === 404 || answer.status === 200, `${path}: ${answer.status}`);
    if (path.includes('secret') || path.includes('nope') || path.includes('missing') || path.includes('v9')) t.is(answer.status, 404, path);
  }
  const owner = new Browser(hearth.rootUrl);
  await owner.signIn('alice', alice.password);
  t.is((await owner.get('/alice/secret/src/branch/main/README.md')).status, 200);
});

test('history pages: commits paged, a commit with its diff per file, branches, tags, releases with notes and assets', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const tool = await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  await build.commit(hearth, tool, { message: `Add code ${xss}\n\nThe body of the message.`, files: { 'a.txt': `one\ntwo ${xss}\n`, 'b.bin': Buffer.from([0, 1, 2]) } });
  for (let i = 0; i < 21; i++) await build.commit(hearth, tool, { files: { [`f${i}.txt`]: `${i}\n` }, message: `Commit number ${i}` });
  await build.commit(hearth, tool, { files: { 'x.txt': 'x\n' }, newBranch: 'feature/y', message: 'On the feature' });
  await build.release(hearth, tool, { tag: 'v1.0', title: 'First release', note: `Notes with **bold** ${xss}` });
  await build.repo(hearth, alice, { name: 'secret', private: true, autoInit: true });
  const browser = new Browser(hearth.rootUrl);

  const commits = await browser.get('/alice/tool/commits/branch/main');
  t.is(commits.status, 200);
  t.regex(textOf(commits), /23 commits/);
  t.regex(textOf(commits), /Commit number 20/);
  t.false(textOf(commits).includes('Initial commit'), 'the first page holds the newest 20');
  const second = await browser.get('/alice/tool/commits/branch/main?page=2');
  t.regex(textOf(second), /Initial commit/);
  t.regex(textOf(await browser.get('/alice/tool/commits/branch/feature/y')), /On the feature/);
  t.regex(textOf(await browser.get('/alice/tool/commits/branch/main/a.txt')), /1 commit /);

  const log = (await hearth.call('GET', '/repos/alice/tool/commits?limit=50', { auth: alice.bearer })).body as Array<{ sha: string; commit: { message: string } }>;
  const added = log.find((c) => c.commit.message.startsWith('Add code'))!;
  const commit = await browser.get(`/alice/tool/commit/${added.sha}`);
  t.is(commit.status, 200);
  const text = textOf(commit);
  t.regex(text, /The body of the message/);
  t.regex(text, /2 changed files with 2 additions and 0 deletions/);
  t.regex(text, /a\.txt \+2 -0 added/);
  t.regex(text, /b\.bin \+0 -0 added Binary file/);
  t.true(commit.html.includes('+two &lt;script'), 'the diff is shown, escaped');
  t.false(commit.html.includes(xss));
  t.true(commit.html.includes(`href="/alice/tool/commit/${log[log.length - 1].sha}"`) || log.length < 23, 'parents link');
  const root = await browser.get(`/alice/tool/commit/${log[log.length - 1].sha}`);
  t.regex(textOf(root), /No parents/);
  t.regex(textOf(root), /README\.md/);

  const branches = await browser.get('/alice/tool/branches');
  t.true(branches.html.includes('href="/alice/tool/src/branch/feature/y"'));
  t.regex(textOf(branches), /main default/);
  const tags = await browser.get('/alice/tool/tags');
  t.true(tags.html.includes('href="/alice/tool/src/tag/v1.0"'));
  t.is((await browser.get('/alice/tool/src/tag/v1.0/a.txt')).status, 200);
  const releases = await browser.get('/alice/tool/releases');
  t.regex(textOf(releases), /First release/);
  t.true(releases.html.includes('<strong>bold</strong>'));
  t.false(releases.html.includes(xss));
  const one = await browser.get('/alice/tool/releases/tag/v1.0');
  t.regex(textOf(one), /First release .*Source code \(zip\)/);

  // a commit whose message is not valid UTF-8, written with git itself
  const { execFileSync } = await import('node:child_process');
  const dir = hearth.deps.git.pathOf('alice', 'tool');
  const git = (input: Buffer | undefined, ...args: string[]) => execFileSync('git', ['-C', dir, ...args], { input, stdio: ['pipe', 'pipe', 'ignore'] }).toString().trim();
  const tree = git(undefined, 'rev-parse', 'main^{tree}');
  const odd = git(Buffer.concat([Buffer.from('Caf'), Buffer.from([0xe9]), Buffer.from(` ${xss}\n`)]), '-c', 'user.name=x', '-c', 'user.email=x@x', 'commit-tree', tree, '-p', 'main');
  git(undefined, 'update-ref', 'refs/heads/odd', odd);
  const oddPage = await browser.get(`/alice/tool/commit/${odd}`);
  t.is(oddPage.status, 200);
  t.false(oddPage.html.includes(xss));
  t.regex(textOf(oddPage), /Caf/);
  t.is((await browser.get('/alice/tool/commits/branch/odd')).status, 200);

  for (const path of [
    '/alice/tool/commit/0000000', '/alice/tool/commit/zzzz', '/alice/tool/commits/branch/nope', '/alice/tool/commits/branch/main/nothing.txt',
    '/alice/tool/releases/tag/v9', '/alice/secret/commits/branch/main', '/alice/secret/branches', '/alice/secret/tags', '/alice/secret/releases',
  ]) t.is((await browser.get(path)).status, 404, path);
});
