import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth, type TestHearth, type TestUser } from '../helpers/hearth.js';

const b64 = (data: string | Buffer): string => Buffer.from(data).toString('base64');
const git = (dir: string, ...args: string[]): string => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();

async function repoWithFiles(hearth: TestHearth, owner: TestUser, name: string, files: Record<string, string | Buffer>): Promise<string> {
  const repo = await build.repo(hearth, owner, { name, autoInit: true });
  return (await build.commit(hearth, repo, { files })).commitId;
}

test('tags: create lightweight and annotated, list newest first, get, delete; a release tag is kept', async (t) => {
  const hearth = await startHearth(t);
  const hana = await hearth.createUser('hana');
  const head = await repoWithFiles(hearth, hana, 'tagged', { 'a.txt': 'a' });
  const dir = hearth.deps.git.pathOf('hana', 'tagged');

  const light = await hearth.call('POST', '/repos/hana/tagged/tags', { auth: hana.bearer, body: { tag_name: 'v0.1' } });
  t.is(light.status, 201, JSON.stringify(light.body));
  t.deepEqual(light.body, {
    name: 'v0.1', message: 'Add a.txt', id: head,
    commit: { url: `${hearth.rootUrl}api/v1/repos/hana/tagged/git/commits/${head}`, sha: head, created: light.body.commit.created },
    zipball_url: `${hearth.rootUrl}hana/tagged/archive/v0.1.zip`, tarball_url: `${hearth.rootUrl}hana/tagged/archive/v0.1.tar.gz`,
  });
  t.is(git(dir, 'rev-parse', 'refs/tags/v0.1'), head);
  const annotated = await hearth.call('POST', '/repos/hana/tagged/tags', { auth: hana.bearer, body: { tag_name: 'release/v1', message: 'first release', target: 'main' } });
  t.is(annotated.status, 201, JSON.stringify(annotated.body));
  t.is(annotated.body.message, 'first release');
  t.not(annotated.body.id, head);
  t.is(annotated.body.commit.sha, head);
  t.is(git(dir, 'cat-file', '-t', 'refs/tags/release/v1'), 'tag');
  t.regex(git(dir, 'cat-file', '-p', 'refs/tags/release/v1'), /tagger hana <hana@example.com>/);
  const rows = await hearth.store.db.query<{ tag_name: string; is_tag: boolean }>('SELECT tag_name, is_tag FROM release ORDER BY tag_name');
  t.deepEqual(rows.map((r) => [r.tag_name, r.is_tag]), [['release/v1', true], ['v0.1', true]]);
  const jobs = await hearth.store.db.query<{ data: { updates: Array<{ ref: string }> } }>("SELECT data FROM pgboss.job WHERE name = 'branch-sync'");
  t.true(jobs.some((j) => j.data.updates[0].ref === 'refs/tags/release/v1'));

  const list = await hearth.call('GET', '/repos/hana/tagged/tags');
  t.deepEqual(list.body.map((tag: { name: string }) => tag.name), ['release/v1', 'v0.1']);
  t.is(list.headers.get('x-total-count'), '2');
  t.deepEqual((await hearth.call('GET', '/repos/hana/tagged/tags?limit=1&page=2')).body.map((tag: { name: string }) => tag.name), ['v0.1']);
  const one = await hearth.call('GET', '/repos/hana/tagged/tags/release/v1');
  t.is(one.status, 200);
  t.is(one.body.name, 'release/v1');
  t.is(one.body.commit.url, `${hearth.rootUrl}api/v1/repos/hana/tagged/git/commits/${annotated.body.id}`);

  t.is((await hearth.call('POST', '/repos/hana/tagged/tags', { auth: hana.bearer, body: { tag_name: 'v0.1' } })).status, 409);
  t.is((await hearth.call('POST', '/repos/hana/tagged/tags', { auth: hana.bearer, body: { tag_name: 'bad..name' } })).status, 422);
  t.is((await hearth.call('POST', '/repos/hana/tagged/tags', { auth: hana.bearer, body: { tag_name: 'v9', target: 'nope' } })).status, 404);
  const ivan = await hearth.createUser('ivan');
  t.is((await hearth.call('POST', '/repos/hana/tagged/tags', { auth: ivan.bearer, body: { tag_name: 'v9' } })).status, 403);

  await hearth.store.db.query("UPDATE release SET is_tag = false, title = 'R' WHERE tag_name = 'v0.1'");
  const attached = await hearth.call('DELETE', '/repos/hana/tagged/tags/v0.1', { auth: hana.bearer });
  t.is(attached.status, 409);
  t.is(git(dir, 'rev-parse', 'refs/tags/v0.1'), head);
  t.is((await hearth.call('DELETE', '/repos/hana/tagged/tags/release/v1', { auth: hana.bearer })).status, 204);
  t.is(git(dir, 'tag', '--list'), 'v0.1');
  t.is((await hearth.store.db.query("SELECT 1 FROM release WHERE tag_name = 'release/v1'")).length, 0);
  t.is((await hearth.call('GET', '/repos/hana/tagged/tags/release/v1')).status, 404);
  t.is((await hearth.call('DELETE', '/repos/hana/tagged/tags/nope', { auth: hana.bearer })).status, 404);

  // A transaction that fails after the ref was written takes the ref away again.
  await hearth.store.db.query("ALTER TABLE release ADD CONSTRAINT no_boom CHECK (tag_name <> 'boom')");
  t.is((await hearth.call('POST', '/repos/hana/tagged/tags', { auth: hana.bearer, body: { tag_name: 'boom', message: 'm' } })).status, 500);
  t.is(git(dir, 'tag', '--list'), 'v0.1');
});

test('raw and media: by ref query or leading ref segments, content types; archives stream zip and tar.gz', async (t) => {
  const hearth = await startHearth(t);
  const jack = await hearth.createUser('jack');
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);
  const big = Buffer.alloc(1536 * 1024, 'x');
  await repoWithFiles(hearth, jack, 'files', { 'dir/pic.png': png, 'page.html': '<script>alert(1)</script>', 'bin.dat': Buffer.from([1, 0, 2]), 'big.txt': big });
  await hearth.call('POST', '/repos/jack/files/contents/dir/pic.png', { auth: jack.bearer, body: { content: b64('other'), new_branch: 'feature/y' } }).then((a) => t.is(a.status, 422));
  const onBranch = await hearth.call('POST', '/repos/jack/files/contents/only-here.txt', { auth: jack.bearer, body: { content: b64('branch file'), new_branch: 'feature/y' } });
  t.is(onBranch.status, 201);

  const pic = await fetch(`${hearth.rootUrl}api/v1/repos/jack/files/raw/dir/pic.png`);
  t.is(pic.status, 200);
  t.is(pic.headers.get('content-type'), 'image/png');
  t.deepEqual(Buffer.from(await pic.arrayBuffer()), png);
  const html = await fetch(`${hearth.rootUrl}api/v1/repos/jack/files/raw/main/page.html`);
  t.is(html.headers.get('content-type'), 'text/plain; charset=utf-8', 'never served as HTML');
  t.is(await html.text(), '<script>alert(1)</script>');
  const binary = await fetch(`${hearth.rootUrl}api/v1/repos/jack/files/media/bin.dat`);
  t.is(binary.headers.get('content-type'), 'application/octet-stream');
  const large = await fetch(`${hearth.rootUrl}api/v1/repos/jack/files/raw/big.txt`);
  t.is(large.headers.get('content-length'), String(big.length));
  t.is(Buffer.from(await large.arrayBuffer()).length, big.length);
  t.is(await (await fetch(`${hearth.rootUrl}api/v1/repos/jack/files/raw/feature/y/only-here.txt`)).text(), 'branch file');
  t.is(await (await fetch(`${hearth.rootUrl}api/v1/repos/jack/files/raw/only-here.txt?ref=feature/y`)).text(), 'branch file');
  t.is((await fetch(`${hearth.rootUrl}api/v1/repos/jack/files/raw/only-here.txt`)).status, 404);
  t.is((await fetch(`${hearth.rootUrl}api/v1/repos/jack/files/raw/dir`)).status, 404, 'a directory is not a file');
  t.is((await fetch(`${hearth.rootUrl}api/v1/repos/jack/files/raw/a.txt?ref=nope`)).status, 404);

  const zip = await fetch(`${hearth.rootUrl}api/v1/repos/jack/files/archive/feature/y.zip`);
  t.is(zip.status, 200);
  t.is(zip.headers.get('content-type'), 'application/zip');
  t.regex(zip.headers.get('content-disposition') ?? '', /attachment; filename="files-feature-y.zip"/);
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'hearth-archive-'));
  writeFileSync(path.join(scratch, 'a.zip'), Buffer.from(await zip.arrayBuffer()));
  t.regex(execFileSync('unzip', ['-l', path.join(scratch, 'a.zip')], { encoding: 'utf8' }), /files\/only-here.txt/);
  const tgz = await fetch(`${hearth.rootUrl}api/v1/repos/jack/files/archive/main.tar.gz`);
  writeFileSync(path.join(scratch, 'a.tar.gz'), Buffer.from(await tgz.arrayBuffer()));
  const listing = execFileSync('tar', ['tzf', path.join(scratch, 'a.tar.gz')], { encoding: 'utf8' });
  t.regex(listing, /files\/dir\/pic.png/);
  t.notRegex(listing, /only-here/);
  t.is((await fetch(`${hearth.rootUrl}api/v1/repos/jack/files/archive/main.rar`)).status, 400);
  t.is((await fetch(`${hearth.rootUrl}api/v1/repos/jack/files/archive/nope.zip`)).status, 404);

  const secret = await hearth.createUser('kim');
  await build.repo(hearth, secret, { name: 'hidden', private: true, autoInit: true });
  t.is((await fetch(`${hearth.rootUrl}api/v1/repos/kim/hidden/raw/README.md`)).status, 404);
  t.is((await fetch(`${hearth.rootUrl}api/v1/repos/kim/hidden/raw/README.md`, { headers: { Authorization: secret.bearer } })).status, 200);
});

test('languages count bytes per language; editorconfig answers the definition for a file', async (t) => {
  const hearth = await startHearth(t);
  const lena = await hearth.createUser('lena');
  await repoWithFiles(hearth, lena, 'code', {
    'src/app.ts': 'export const x = 1;\n', 'src/b.ts': 'let y;\n', 'main.go': 'package main\n', 'styles/site.css': 'a{}\n',
    'package.json': '{}\n', 'node_modules/dep/index.js': 'module.exports = 1;\n', 'notes.md': '# hi\n',
    '.editorconfig': 'root = true\n\n[*]\nindent_style = space\nindent_size = 2\nend_of_line = LF\n\n[*.go]\nindent_style = tab\n\n[{Makefile,*.mk}]\nindent_style = tab\n\n[src/**.ts]\nindent_size = 4\ncharset = utf-8\n',
  });
  const languages = await hearth.call('GET', '/repos/lena/code/languages');
  t.is(languages.status, 200);
  t.deepEqual(languages.body, { CSS: 4, Go: 13, TypeScript: 27 });

  const go = await hearth.call('GET', '/repos/lena/code/editorconfig/cmd/main.go');
  t.deepEqual(go.body, { indent_style: 'tab', indent_size: '2', end_of_line: 'lf' });
  const ts = await hearth.call('GET', '/repos/lena/code/editorconfig/src/deep/x.ts');
  t.deepEqual(ts.body, { charset: 'utf-8', indent_style: 'space', indent_size: '4', end_of_line: 'lf' });
  t.deepEqual((await hearth.call('GET', '/repos/lena/code/editorconfig/Makefile')).body.indent_style, 'tab');
  await build.repo(hearth, lena, { name: 'plain', autoInit: true });
  t.is((await hearth.call('GET', '/repos/lena/plain/editorconfig/a.txt')).status, 404);
  t.deepEqual((await hearth.call('GET', '/repos/lena/plain/languages')).body, {}, 'a README alone is documentation');
});
