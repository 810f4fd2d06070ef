import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { build } from '../helpers/build.js';
import { basicAuth, startHearth, type TestHearth, type TestUser } from '../helpers/hearth.js';
import { commitFile, git, ok, refOnServer, remote, scratch } from '../git/git-client.js';

const get = (hearth: TestHearth, url: string, auth?: string): Promise<Response> =>
  fetch(new URL(url, hearth.rootUrl), { headers: auth ? { Authorization: auth } : {} });

async function uploadAsset(hearth: TestHearth, owner: TestUser, repo: string, releaseId: number, name: string, content: string): Promise<{ uuid: string; browser_download_url: string }> {
  const data = new FormData();
  data.append('attachment', new Blob([content]), name);
  const answer = await fetch(`${hearth.rootUrl}api/v1/repos/${owner.user.name}/${repo}/releases/${releaseId}/assets`, {
    method: 'POST', headers: { Authorization: owner.bearer }, body: data,
  });
  if (answer.status !== 201) throw new Error(`upload failed: ${answer.status} ${await answer.text()}`);
  return answer.json();
}

/** The names `tar`/`unzip -l`-style listing of an archive's entries, read back with the system tar. */
function tarEntries(bytes: Buffer): string[] {
  const listed = spawnSync('tar', ['-tzf', '-'], { input: bytes });
  if (listed.status !== 0) throw new Error(`tar failed: ${listed.stderr.toString()}`);
  return listed.stdout.toString().split('\n').filter(Boolean).sort();
}

test("contents' download_url, and the typed, blob, legacy and media raw paths, serve the file", async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const repo = await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  const first = await build.commit(hearth, repo, { files: { 'docs/guide.md': '# Guide\n', 'bin.dat': Buffer.from([0, 1, 2]) } });
  const later = await build.commit(hearth, repo, { newBranch: 'feature/x', files: { 'docs/feature.md': '# Feature\n' } });
  t.is((await hearth.call('POST', '/repos/alice/tool/tags', { auth: alice.bearer, body: { tag_name: 'v1', target: first.commitId } })).status, 201);

  const contents = await hearth.call('GET', '/repos/alice/tool/contents/docs/feature.md?ref=feature/x');
  t.is(contents.status, 200);
  t.is(contents.body.download_url, `${hearth.rootUrl}alice/tool/raw/branch/feature/x/docs/feature.md`);
  const viaLink = await fetch(contents.body.download_url);
  t.is(viaLink.status, 200);
  t.is(await viaLink.text(), '# Feature\n');
  t.is(viaLink.headers.get('content-type'), 'text/plain; charset=utf-8');
  t.is(viaLink.headers.get('x-content-type-options'), 'nosniff');

  const blobSha = (await hearth.call('GET', '/repos/alice/tool/contents/docs/guide.md?ref=v1')).body.sha;
  const expectations: Array<[string, number, string?]> = [
    ['alice/tool/raw/branch/main/docs/guide.md', 200, '# Guide\n'],
    ['alice/tool/raw/tag/v1/docs/guide.md', 200, '# Guide\n'],
    [`alice/tool/raw/commit/${later.commitId}/docs/feature.md`, 200, '# Feature\n'],
    [`alice/tool/raw/commit/${later.commitId.slice(0, 10)}/docs/feature.md`, 200, '# Feature\n'],
    ['alice/tool/raw/branch/main/docs/feature.md', 404],
    [`alice/tool/raw/blob/${blobSha}`, 200, '# Guide\n'],
    ['alice/tool/raw/docs/guide.md', 200, '# Guide\n'],
    ['alice/tool/raw/feature/x/docs/feature.md', 200, '# Feature\n'],
    ['alice/tool/media/branch/main/docs/guide.md', 200, '# Guide\n'],
    ['alice/tool/media/tag/v1/docs/guide.md', 200, '# Guide\n'],
    ['alice/tool.git/raw/branch/main/docs/guide.md', 200, '# Guide\n'],
    ['alice/tool/raw/branch/main/docs', 404],
    ['alice/tool/raw/branch/main/missing.md', 404],
    ['alice/tool/raw/branch/nope/docs/guide.md', 404],
    ['alice/tool/raw/tag/main/docs/guide.md', 404],
    ['alice/tool/raw/commit/abc/docs/guide.md', 404],
    [`alice/tool/raw/blob/${first.commitId}`, 404],
    ['alice/nothing/raw/branch/main/README.md', 404],
    ['alice/tool%00/raw/branch/main/README.md', 404],
    ['alice/tool/raw/branch/main/READ%00ME.md', 404],
  ];
  for (const [url, status, body] of expectations) {
    const answer = await get(hearth, url);
    t.is(answer.status, status, url);
    if (body !== undefined) t.is(await answer.text(), body, url);
    else t.is(answer.headers.get('content-type'), 'text/plain; charset=utf-8', url);
  }
  const binary = await get(hearth, 'alice/tool/raw/branch/main/bin.dat');
  t.is(binary.headers.get('content-type'), 'application/octet-stream');
  t.deepEqual([...Buffer.from(await binary.arrayBuffer())], [0, 1, 2]);

  await build.repo(hearth, alice, { name: 'empty' });
  t.is((await get(hearth, 'alice/empty/raw/branch/main/README.md')).status, 404);
});

test("a release's zipball_url and tarball_url download archives of its tag", async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const repo = await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  await build.commit(hearth, repo, { files: { 'src/main.c': 'int main(void) { return 0; }\n' } });
  const release = await hearth.call('POST', '/repos/alice/tool/releases', { auth: alice.bearer, body: { tag_name: 'v1.0' } });
  t.is(release.status, 201);
  await build.commit(hearth, repo, { files: { 'later.txt': 'not in v1.0\n' } });

  const tarball = await fetch(release.body.tarball_url);
  t.is(tarball.status, 200);
  t.is(tarball.headers.get('content-type'), 'application/gzip');
  t.regex(tarball.headers.get('content-disposition') ?? '', /attachment; filename="tool-v1\.0\.tar\.gz"/);
  t.deepEqual(tarEntries(Buffer.from(await tarball.arrayBuffer())), ['tool/', 'tool/README.md', 'tool/src/', 'tool/src/main.c']);

  const zipball = await fetch(release.body.zipball_url);
  t.is(zipball.status, 200);
  t.is(zipball.headers.get('content-type'), 'application/zip');
  const zip = Buffer.from(await zipball.arrayBuffer());
  t.is(zip.subarray(0, 4).toString('hex'), '504b0304');
  t.true(zip.includes(Buffer.from('tool/src/main.c')));
  t.false(zip.includes(Buffer.from('later.txt')));

  t.is((await get(hearth, 'alice/tool/archive/main.tar.gz')).status, 200);
  t.is((await get(hearth, 'alice/tool/archive/nope.zip')).status, 404);
  t.is((await get(hearth, 'alice/tool/archive/main.rar')).status, 400);
});

test('release assets by tag and name: drafts for writers only, `latest` as an alias, counted like attachments', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const repo = await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  const v1 = await build.release(hearth, repo, { tag: 'v1' });
  const asset = await uploadAsset(hearth, alice, 'tool', v1.id, 'tool-linux.tar.gz', 'linux build');
  const draft = await build.release(hearth, repo, { tag: 'v2', draft: true });
  await uploadAsset(hearth, alice, 'tool', draft.id, 'tool-linux.tar.gz', 'draft build');

  const byName = await get(hearth, 'alice/tool/releases/download/v1/tool-linux.tar.gz');
  t.is(byName.status, 200);
  t.is(await byName.text(), 'linux build');
  t.regex(byName.headers.get('content-disposition') ?? '', /^attachment; filename="?tool-linux\.tar\.gz"?$/);
  t.is(await (await get(hearth, 'alice/tool/releases/download/latest/tool-linux.tar.gz')).text(), 'linux build');
  t.is((await get(hearth, 'alice/tool/releases/download/v2/tool-linux.tar.gz', bob.basic)).status, 404, 'a draft is hidden from readers');
  const writer = await get(hearth, 'alice/tool/releases/download/v2/tool-linux.tar.gz', alice.basic);
  t.is(writer.status, 200);
  t.is(await writer.text(), 'draft build');
  t.is((await get(hearth, 'alice/tool/releases/download/v1/other.zip')).status, 404);
  t.is((await get(hearth, 'alice/tool/releases/download/v9/tool-linux.tar.gz')).status, 404);
  const [{ download_count: count }] = await hearth.store.db.query<{ download_count: number }>('SELECT download_count FROM attachment WHERE uuid = $1', [asset.uuid]);
  t.is(count, 2);

  t.is((await hearth.call('PATCH', '/repos/alice/tool', { auth: alice.bearer, body: { has_releases: false } })).status, 200);
  t.is((await get(hearth, 'alice/tool/releases/download/v1/tool-linux.tar.gz', bob.basic)).status, 404, 'the releases unit is off');
  t.is((await fetch(asset.browser_download_url, { headers: { Authorization: bob.basic } })).status, 404);
});

test('private repositories: 404 to anonymous callers and strangers, served with a password or a token, a token needs read:repository', async (t) => {
  const hearth = await startHearth(t);
  const carol = await hearth.createUser('carol');
  const dave = await hearth.createUser('dave');
  const narrow = await hearth.createUser('erin', { scopes: ['read:user'] });
  const repo = await build.repo(hearth, carol, { name: 'secret', private: true, autoInit: true });
  const release = await build.release(hearth, repo, { tag: 'v1' });
  const asset = await uploadAsset(hearth, carol, 'secret', release.id, 'a.bin', 'payload');
  await hearth.store.db.query('INSERT INTO collaboration (repo_id, user_id, mode) VALUES ($1, $2, 1)', [repo.id, narrow.user.id]);

  const urls = ['carol/secret/raw/branch/main/README.md', 'carol/secret/media/branch/main/README.md', 'carol/secret/archive/main.zip',
    'carol/secret/releases/download/v1/a.bin', new URL(asset.browser_download_url).pathname.slice(1)];
  for (const url of urls) {
    t.is((await get(hearth, url)).status, 404, `anonymous ${url}`);
    t.is((await get(hearth, url, dave.basic)).status, 404, `stranger ${url}`);
    t.is((await get(hearth, url, carol.basic)).status, 200, `password ${url}`);
    t.is((await get(hearth, url, carol.bearer)).status, 200, `token ${url}`);
    t.is((await get(hearth, url, basicAuth(carol.token, ''))).status, 200, `token as basic user ${url}`);
    t.is((await get(hearth, url, narrow.bearer)).status, 403, `token without read:repository ${url}`);
    t.is((await get(hearth, url, basicAuth('carol', 'wrong'))).status, 401, `bad password ${url}`);
  }
  t.is(await (await get(hearth, urls[0], carol.basic)).text(), '# secret\n\n\n');
});

test('the web routes do not shadow git over HTTP: clone, fetch and push still work beside them', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  await build.repo(hearth, alice, { name: 'raw', autoInit: true });
  const home = scratch(t);

  await ok(git(home, ['clone', '--quiet', remote(hearth, 'alice', 'raw'), 'clone']));
  const dir = path.join(home, 'clone');
  t.true(existsSync(path.join(dir, 'README.md')));
  const local = await commitFile(home, dir, 'archive', 'a file named like a route\n');
  await ok(git(home, ['push', '--quiet', remote(hearth, 'alice', 'raw', { user: 'alice', secret: alice.token }), 'main'], dir));
  t.is(await refOnServer(hearth, 'alice', 'raw', 'refs/heads/main'), local);

  await ok(git(home, ['clone', '--quiet', new URL('alice/raw', hearth.rootUrl).toString(), 'suffixless']));
  t.is(readFileSync(path.join(home, 'suffixless', 'archive'), 'utf8'), 'a file named like a route\n');
  const advert = await get(hearth, 'alice/raw/info/refs?service=git-upload-pack');
  t.is(advert.headers.get('content-type'), 'application/x-git-upload-pack-advertisement');
  t.is(await (await get(hearth, 'alice/raw/raw/branch/main/archive')).text(), 'a file named like a route\n');
});
