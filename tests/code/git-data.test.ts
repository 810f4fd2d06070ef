import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync, mkdirSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth, type TestHearth, type TestUser } from '../helpers/hearth.js';

const env = {
  ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'Frank', GIT_AUTHOR_EMAIL: 'frank@example.com', GIT_COMMITTER_NAME: 'Frank', GIT_COMMITTER_EMAIL: 'frank@example.com',
};
const git = (dir: string, ...args: string[]): string => execFileSync('git', args, { cwd: dir, encoding: 'utf8', env }).trim();

interface History {
  dir: string;
  first: string;
  second: string;
  third: string;
  side: string;
}

/**
 * A repository with three commits on main (the second with a +0200 author zone), a side branch, an annotated and a
 * lightweight tag, a note on the second commit and a symlink; pushed straight into the bare repository.
 */
async function buildHistory(hearth: TestHearth, frank: TestUser): Promise<History> {
  await build.repo(hearth, frank, { name: 'hist' });
  const bare = hearth.deps.git.pathOf('frank', 'hist');
  const work = mkdtempSync(path.join(os.tmpdir(), 'hearth-work-'));
  git(work, 'init', '-q', '-b', 'main');
  const commit = (message: string, date: string): string => {
    git(work, 'add', '-A');
    execFileSync('git', ['commit', '-q', '-m', message], { cwd: work, env: { ...env, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date } });
    return git(work, 'rev-parse', 'HEAD');
  };
  writeFileSync(path.join(work, 'a.txt'), 'one\n');
  mkdirSync(path.join(work, 'src'));
  writeFileSync(path.join(work, 'src', 'main.go'), 'package main\n');
  const first = commit('first commit', '2024-01-01T10:00:00+00:00');
  writeFileSync(path.join(work, 'a.txt'), 'one\ntwo\n');
  writeFileSync(path.join(work, 'b.txt'), 'bee\n');
  symlinkSync('a.txt', path.join(work, 'link'));
  const second = commit('second commit\n\nwith a body', '2024-01-02T12:00:00+02:00');
  git(work, 'rm', '-q', 'b.txt');
  const third = commit('third commit', '2024-01-03T10:00:00+00:00');
  git(work, 'checkout', '-q', '-b', 'side', first);
  writeFileSync(path.join(work, 'side.txt'), 'side\n');
  const side = commit('side commit', '2024-01-04T10:00:00+00:00');
  git(work, 'checkout', '-q', 'main');
  execFileSync('git', ['tag', '-a', 'v1.0', '-m', 'release one', second], { cwd: work, env: { ...env, GIT_COMMITTER_DATE: '2024-01-05T10:00:00+00:00' } });
  git(work, 'tag', 'light', first);
  git(work, 'notes', 'add', '-m', 'a note', second);
  git(work, 'push', '-q', bare, 'refs/heads/*:refs/heads/*', 'refs/tags/*:refs/tags/*', 'refs/notes/*:refs/notes/*');
  rmSync(work, { recursive: true, force: true });
  await hearth.store.db.query('UPDATE repository SET is_empty = false');
  return { dir: bare, first, second, third, side };
}

test('refs: all, by prefix, one exact ref as an object; trees and blobs', async (t) => {
  const hearth = await startHearth(t);
  const frank = await hearth.createUser('frank');
  const h = await buildHistory(hearth, frank);
  const api = `${hearth.rootUrl}api/v1/repos/frank/hist`;

  const all = await hearth.call('GET', '/repos/frank/hist/git/refs');
  t.is(all.status, 200);
  t.deepEqual(all.body.map((r: { ref: string }) => r.ref), ['refs/heads/main', 'refs/heads/side', 'refs/notes/commits', 'refs/tags/light', 'refs/tags/v1.0']);
  const heads = await hearth.call('GET', '/repos/frank/hist/git/refs/heads');
  t.is(heads.body.length, 2);
  const main = await hearth.call('GET', '/repos/frank/hist/git/refs/heads/main');
  t.deepEqual(main.body, {
    ref: 'refs/heads/main', url: `${api}/git/refs/heads/main`,
    object: { sha: h.third, type: 'commit', url: `${api}/git/commits/${h.third}` },
  });
  const tag = await hearth.call('GET', '/repos/frank/hist/git/refs/tags/v1.0');
  t.is(tag.body.object.type, 'tag');
  t.is(tag.body.object.url, `${api}/git/tags/${tag.body.object.sha}`);
  t.is((await hearth.call('GET', '/repos/frank/hist/git/refs/heads/nope')).status, 404);

  const tree = await hearth.call('GET', `/repos/frank/hist/git/trees/${h.second}`);
  t.is(tree.status, 200, JSON.stringify(tree.body));
  t.is(tree.body.sha, h.second);
  t.deepEqual(tree.body.tree.map((e: { path: string; type: string; mode: string }) => [e.path, e.type, e.mode]), [
    ['a.txt', 'blob', '100644'], ['b.txt', 'blob', '100644'], ['link', 'blob', '120000'], ['src', 'tree', '040000'],
  ]);
  t.is(tree.body.tree[0].size, 8);
  t.is(tree.body.total_count, 4);
  t.false(tree.body.truncated);
  const recursive = await hearth.call('GET', '/repos/frank/hist/git/trees/main?recursive=true&per_page=2&page=2');
  t.deepEqual(recursive.body.tree.map((e: { path: string }) => e.path), ['src', 'src/main.go']);
  t.is(recursive.body.total_count, 4);
  t.false(recursive.body.truncated);
  const firstPage = await hearth.call('GET', '/repos/frank/hist/git/trees/main?recursive=1&per_page=2');
  t.true(firstPage.body.truncated);
  t.is((await hearth.call('GET', '/repos/frank/hist/git/trees/main?page=9')).body.tree, null);
  t.is((await hearth.call('GET', `/repos/frank/hist/git/trees/${'f'.repeat(40)}`)).status, 404);
  t.is((await hearth.call('GET', '/repos/frank/hist/git/trees/bad..sha')).status, 400);

  const blobSha = tree.body.tree[0].sha;
  const blob = await hearth.call('GET', `/repos/frank/hist/git/blobs/${blobSha}`);
  t.deepEqual(blob.body, { content: Buffer.from('one\ntwo\n').toString('base64'), encoding: 'base64', url: `${api}/git/blobs/${blobSha}`, sha: blobSha, size: 8 });
  t.is((await hearth.call('GET', '/repos/frank/hist/git/blobs/xyz')).status, 400);
  t.is((await hearth.call('GET', `/repos/frank/hist/git/blobs/${'e'.repeat(40)}`)).status, 404);
});

test('single commits with stats and files, diffs and patches, notes and annotated tags', async (t) => {
  const hearth = await startHearth(t);
  const frank = await hearth.createUser('frank');
  const h = await buildHistory(hearth, frank);
  const api = `${hearth.rootUrl}api/v1/repos/frank/hist`;

  const second = await hearth.call('GET', `/repos/frank/hist/git/commits/${h.second}`, { auth: frank.bearer });
  t.is(second.status, 200, JSON.stringify(second.body));
  t.is(second.body.sha, h.second);
  t.is(second.body.html_url, `${hearth.rootUrl}frank/hist/commit/${h.second}`);
  t.is(second.body.created, '2024-01-02T12:00:00+02:00');
  t.deepEqual(second.body.commit.author, { name: 'Frank', email: 'frank@example.com', date: '2024-01-02T12:00:00+02:00' });
  t.is(second.body.commit.message, 'second commit\n\nwith a body\n');
  t.is(second.body.author.login, 'frank', 'the author address belongs to an account');
  t.deepEqual(second.body.parents.map((p: { sha: string }) => p.sha), [h.first]);
  t.deepEqual(second.body.stats, { total: 3, additions: 3, deletions: 0 });
  t.deepEqual(
    second.body.files.map((f: { filename: string; status: string }) => `${f.status} ${f.filename}`).sort(),
    ['added b.txt', 'added link', 'modified a.txt'],
  );
  t.is(second.body.commit.verification.reason, 'gpg.error.not_signed_commit');
  const lean = await hearth.call('GET', `/repos/frank/hist/git/commits/${h.second}?stat=false&files=0&verification=false`);
  t.is(lean.body.stats, null);
  t.is(lean.body.files, null);
  t.is(lean.body.commit.verification, null);
  const byBranch = await hearth.call('GET', '/repos/frank/hist/git/commits/side');
  t.is(byBranch.body.sha, h.side);
  t.is((await hearth.call('GET', `/repos/frank/hist/git/commits/${h.third.slice(0, 10)}`)).body.sha, h.third);
  t.is((await hearth.call('GET', '/repos/frank/hist/git/commits/main~1')).status, 422);
  t.is((await hearth.call('GET', `/repos/frank/hist/git/commits/${'0'.repeat(40)}`)).status, 404);

  const diff = await hearth.call('GET', `/repos/frank/hist/git/commits/${h.third}.diff`);
  t.is(diff.status, 200);
  t.regex(diff.headers.get('content-type') ?? '', /^text\/plain/);
  t.regex(diff.body, /^diff --git a\/b.txt b\/b.txt\ndeleted file mode 100644/);
  const patch = await hearth.call('GET', `/repos/frank/hist/git/commits/${h.third}.patch`);
  t.regex(patch.body, new RegExp(`^From ${h.third} `));
  t.regex(patch.body, /Subject: \[PATCH\] third commit/);
  const rootDiff = await hearth.call('GET', `/repos/frank/hist/git/commits/${h.first}.diff`);
  t.regex(rootDiff.body, /new file mode 100644/);
  t.is((await hearth.call('GET', `/repos/frank/hist/git/commits/${'0'.repeat(40)}.patch`)).status, 404);

  const note = await hearth.call('GET', `/repos/frank/hist/git/notes/${h.second}`);
  t.is(note.status, 200, JSON.stringify(note.body));
  t.is(note.body.message, 'a note\n');
  t.is(note.body.commit.sha, execFileSync('git', ['rev-parse', 'refs/notes/commits'], { cwd: h.dir, encoding: 'utf8' }).trim());
  t.is((await hearth.call('GET', '/repos/frank/hist/git/notes/v1.0')).body.message, 'a note\n', 'a ref is resolved to its commit first');
  t.is((await hearth.call('GET', `/repos/frank/hist/git/notes/${h.first}`)).status, 404);
  t.is((await hearth.call('GET', '/repos/frank/hist/git/notes/nope')).status, 404);

  const tagSha = execFileSync('git', ['rev-parse', 'refs/tags/v1.0'], { cwd: h.dir, encoding: 'utf8' }).trim();
  const annotated = await hearth.call('GET', `/repos/frank/hist/git/tags/${tagSha}`);
  t.is(annotated.status, 200, JSON.stringify(annotated.body));
  t.deepEqual(annotated.body, {
    tag: 'v1.0', sha: tagSha, url: `${api}/git/tags/${tagSha}`, message: 'release one\n',
    tagger: { name: 'Frank', email: 'frank@example.com', date: '2024-01-05T10:00:00Z' },
    object: { type: 'commit', url: `${api}/git/commits/${h.second}`, sha: h.second },
    verification: { verified: false, reason: 'gpg.error.not_signed_commit', signature: '', signer: null, payload: '' },
  });
  t.is((await hearth.call('GET', `/repos/frank/hist/git/tags/${h.first}`)).status, 400, 'a commit is not an annotated tag');
  t.is((await hearth.call('GET', `/repos/frank/hist/git/tags/${'1'.repeat(40)}`)).status, 404);
});

test('commit lists: pages and headers, sha, path and not; compare', async (t) => {
  const hearth = await startHearth(t);
  const frank = await hearth.createUser('frank');
  const h = await buildHistory(hearth, frank);

  const all = await hearth.call('GET', '/repos/frank/hist/commits');
  t.is(all.status, 200);
  t.deepEqual(all.body.map((c: { sha: string }) => c.sha), [h.third, h.second, h.first]);
  t.is(all.headers.get('x-total-count'), '3');
  t.is(all.headers.get('x-hasmore'), 'false');
  const paged = await hearth.call('GET', '/repos/frank/hist/commits?limit=2&page=1&stat=false&files=false');
  t.deepEqual(paged.body.map((c: { sha: string }) => c.sha), [h.third, h.second]);
  t.is(paged.headers.get('x-hasmore'), 'true');
  t.is(paged.headers.get('x-pagecount'), '2');
  t.regex(paged.headers.get('link') ?? '', /page=2.*rel="next"/);
  t.is(paged.body[0].stats, null);
  t.deepEqual((await hearth.call('GET', '/repos/frank/hist/commits?limit=2&page=2')).body.map((c: { sha: string }) => c.sha), [h.first]);
  t.deepEqual((await hearth.call('GET', '/repos/frank/hist/commits?sha=side')).body.map((c: { sha: string }) => c.sha), [h.side, h.first]);
  t.deepEqual((await hearth.call('GET', '/repos/frank/hist/commits?path=b.txt')).body.map((c: { sha: string }) => c.sha), [h.third, h.second]);
  t.deepEqual((await hearth.call(`GET`, `/repos/frank/hist/commits?not=${h.first}`)).body.map((c: { sha: string }) => c.sha), [h.third, h.second]);
  t.is((await hearth.call('GET', '/repos/frank/hist/commits?path=never.txt')).status, 404);
  t.is((await hearth.call('GET', '/repos/frank/hist/commits?sha=nope')).status, 404);

  const compared = await hearth.call('GET', '/repos/frank/hist/compare/side...main');
  t.is(compared.status, 200, JSON.stringify(compared.body));
  t.is(compared.body.total_commits, 2);
  t.deepEqual(compared.body.commits.map((c: { sha: string }) => c.sha), [h.third, h.second]);
  t.is((await hearth.call('GET', '/repos/frank/hist/compare/main...frank:side')).body.total_commits, 1);
  t.is((await hearth.call('GET', '/repos/frank/hist/compare/main...nope')).status, 404);
  t.is((await hearth.call('GET', '/repos/frank/hist/compare/main...other:side')).status, 404);
});

test('an empty repository answers git data without a 500', async (t) => {
  const hearth = await startHearth(t);
  const gail = await hearth.createUser('gail');
  await build.repo(hearth, gail, { name: 'void' });
  const answers = await Promise.all([
    '/git/refs', '/git/refs/heads/main', '/git/trees/main', `/git/blobs/${'a'.repeat(40)}`, '/git/commits/main', `/git/commits/${'a'.repeat(40)}.diff`,
    '/git/notes/main', `/git/tags/${'a'.repeat(40)}`, '/compare/main...main', '/tags', '/tags/v1', '/raw/README.md', '/media/a.txt',
    '/archive/main.zip', '/languages', '/editorconfig/a.txt', '/commits',
  ].map(async (suffix) => [suffix, (await hearth.call('GET', `/repos/gail/void${suffix}`)).status] as const));
  t.deepEqual(Object.fromEntries(answers), {
    '/git/refs': 404, '/git/refs/heads/main': 404, '/git/trees/main': 404, [`/git/blobs/${'a'.repeat(40)}`]: 404, '/git/commits/main': 404,
    [`/git/commits/${'a'.repeat(40)}.diff`]: 404, '/git/notes/main': 404, [`/git/tags/${'a'.repeat(40)}`]: 404, '/compare/main...main': 404,
    '/tags': 200, '/tags/v1': 404, '/raw/README.md': 404, '/media/a.txt': 404, '/archive/main.zip': 404, '/languages': 200,
    '/editorconfig/a.txt': 404, '/commits': 409,
  });
});

test('a SHA-256 repository is read and written through the git CLI', async (t) => {
  const hearth = await startHearth(t);
  const mia = await hearth.createUser('mia');
  await build.repo(hearth, mia, { name: 'wide', autoInit: true, objectFormat: 'sha256' });
  const written = await hearth.call('POST', '/repos/mia/wide/contents/a/b.txt', { auth: mia.bearer, body: { content: Buffer.from('wide').toString('base64') } });
  t.is(written.status, 201, JSON.stringify(written.body));
  t.is(written.body.commit.sha.length, 64);
  t.is(git(hearth.deps.git.pathOf('mia', 'wide'), 'rev-parse', 'refs/heads/main'), written.body.commit.sha);
  const file = await hearth.call('GET', '/repos/mia/wide/contents/a/b.txt');
  t.is(Buffer.from(file.body.content, 'base64').toString(), 'wide');
  t.is(file.body.sha.length, 64);
  const commits = await hearth.call('GET', '/repos/mia/wide/commits');
  t.is(commits.body.length, 2);
  t.deepEqual(commits.body[0].files, [{ filename: 'a/b.txt', status: 'added' }]);
  const tree = await hearth.call('GET', `/repos/mia/wide/git/trees/${written.body.commit.sha}?recursive=1`);
  t.deepEqual(tree.body.tree.map((e: { path: string }) => e.path), ['README.md', 'a', 'a/b.txt']);
  t.is((await hearth.call('GET', `/repos/mia/wide/git/blobs/${file.body.sha}`)).body.size, 4);
});

test('a repository with a large pack is read through git cat-file instead of in-process', async (t) => {
  const hearth = await startHearth(t);
  const ned = await hearth.createUser('ned');
  await build.repo(hearth, ned, { name: 'heavy' });
  const bare = hearth.deps.git.pathOf('ned', 'heavy');
  const work = mkdtempSync(path.join(os.tmpdir(), 'hearth-work-'));
  git(work, 'init', '-q', '-b', 'main');
  writeFileSync(path.join(work, 'noise.bin'), randomBytes(9 * 1024 * 1024));
  writeFileSync(path.join(work, 'a.txt'), 'small\n');
  git(work, 'add', '-A');
  git(work, 'commit', '-q', '-m', 'heavy');
  writeFileSync(path.join(work, 'a.txt'), 'small too\n');
  git(work, 'commit', '-q', '-am', 'light');
  git(work, 'push', '-q', bare, 'main');
  git(bare, 'repack', '-a', '-d', '-q');
  rmSync(work, { recursive: true, force: true });
  await hearth.store.db.query('UPDATE repository SET is_empty = false');
  t.true(readdirSync(path.join(bare, 'objects', 'pack')).some((name) => name.endsWith('.pack')));

  const commits = await hearth.call('GET', '/repos/ned/heavy/commits');
  t.is(commits.status, 200, JSON.stringify(commits.body));
  t.deepEqual(commits.body.map((c: { commit: { message: string } }) => c.commit.message), ['light\n', 'heavy\n']);
  const file = await hearth.call('GET', '/repos/ned/heavy/contents/a.txt');
  t.is(Buffer.from(file.body.content, 'base64').toString(), 'small too\n');
  const written = await hearth.call('PUT', '/repos/ned/heavy/contents/a.txt', {
    auth: ned.bearer, body: { sha: file.body.sha, content: Buffer.from('third\n').toString('base64') },
  });
  t.is(written.status, 200, JSON.stringify(written.body));
  t.is(git(bare, 'show', 'main:a.txt'), 'third');
});
