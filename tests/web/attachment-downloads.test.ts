import { randomBytes } from 'node:crypto';
import test from 'ava';
import { inTx } from '../../db/data-source.js';
import { createToken } from '../../db/models/users/tokens.js';
import { build } from '../helpers/build.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';

async function upload(hearth: TestHearth, apiPath: string, auth: string, content: Buffer, fileName: string): Promise<{ id: number; uuid: string; browser_download_url: string }> {
  const form = new FormData();
  form.append('attachment', new Blob([new Uint8Array(content)]), fileName);
  const answer = await fetch(`${hearth.rootUrl}api/v1${apiPath}`, { method: 'POST', headers: { Authorization: auth }, body: form });
  if (answer.status !== 201) throw new Error(`upload to ${apiPath}: ${answer.status} ${await answer.text()}`);
  return answer.json();
}

const download = (url: string, auth?: string): Promise<Response> => fetch(url, { headers: auth ? { Authorization: auth } : {} });

const countOf = async (hearth: TestHearth, id: number): Promise<number> =>
  (await hearth.store.db.query<{ download_count: number }>('SELECT download_count FROM attachment WHERE id = $1', [id]))[0].download_count;

/** Gitea's LinkedRepository: an issue's, a comment's and a pull request's files are read with the issue or pull request. */
test("issue, comment and pull request attachments download for whoever may read them, byte for byte; refused is missing's 404", async (t) => {
  const hearth = await startHearth(t, { HEARTH__attachment__MAX_SIZE: '8' });
  const alice = await hearth.createUser('alice');
  const reader = await hearth.createUser('reader');
  const stranger = await hearth.createUser('stranger');
  const repo = await build.repo(hearth, alice, { name: 'secret', private: true, autoInit: true });
  await build.commit(hearth, repo, { newBranch: 'feature', files: { 'f.txt': 'f\n' } });
  t.is((await hearth.call('PUT', '/repos/alice/secret/collaborators/reader', { auth: alice.bearer, body: { permission: 'read' } })).status, 204);
  await build.issue(hearth, repo, { title: 'an issue' });
  t.is((await hearth.call('POST', '/repos/alice/secret/pulls', { auth: alice.bearer, body: { head: 'feature', base: 'main', title: 'a pull' } })).status, 201);
  const comment = await hearth.call('POST', '/repos/alice/secret/issues/1/comments', { auth: alice.bearer, body: { body: 'see file' } });

  const big = randomBytes(5 * 1024 * 1024 + 17);
  const onIssue = await upload(hearth, '/repos/alice/secret/issues/1/assets', alice.bearer, big, 'big.zip');
  const onComment = await upload(hearth, `/repos/alice/secret/issues/comments/${comment.body.id}/assets`, alice.bearer, Buffer.from('comment file\n'), 'c.txt');
  const onPull = await upload(hearth, '/repos/alice/secret/issues/2/assets', alice.bearer, Buffer.from('pull file\n'), 'p.txt');

  const got = await download(onIssue.browser_download_url, alice.bearer);
  t.is(got.status, 200);
  t.is(got.headers.get('content-length'), String(big.length));
  t.true(Buffer.from(await got.arrayBuffer()).equals(big), 'a file of some megabytes comes back byte for byte');
  t.is(await countOf(hearth, onIssue.id), 1);
  for (const [file, text] of [[onComment, 'comment file\n'], [onPull, 'pull file\n']] as const) {
    for (const auth of [alice.bearer, alice.basic, reader.bearer]) {
      const answer = await download(file.browser_download_url, auth);
      t.is(answer.status, 200, file.browser_download_url);
      t.is(await answer.text(), text);
    }
  }
  t.is(await countOf(hearth, onComment.id), 3);

  const missing = await download(`${hearth.rootUrl}attachments/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`, alice.bearer);
  t.is(missing.status, 404);
  const missingBody = await missing.text();
  for (const file of [onIssue, onComment, onPull]) {
    for (const auth of [undefined, stranger.bearer]) {
      const refused = await download(file.browser_download_url, auth);
      t.is(refused.status, 404);
      t.is(await refused.text(), missingBody, 'refused looks like missing');
    }
  }
  t.is(await countOf(hearth, onPull.id), 3, 'refused downloads do not count');

  const narrow = await inTx(hearth.deps, (tx) => createToken(tx, alice.user, { name: 'repo only', scopes: ['read:repository'] }));
  t.is((await download(onIssue.browser_download_url, `token ${narrow.token}`)).status, 403, 'a token needs read:issue');
  const issueToken = await inTx(hearth.deps, (tx) => createToken(tx, alice.user, { name: 'issues', scopes: ['read:issue'] }));
  t.is((await download(onComment.browser_download_url, `token ${issueToken.token}`)).status, 200);
});

test('the unit decides: with issues off an issue file is 404 while a pull request file still downloads', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const repo = await build.repo(hearth, alice, { name: 'open', autoInit: true });
  await build.commit(hearth, repo, { newBranch: 'feature', files: { 'f.txt': 'f\n' } });
  await build.issue(hearth, repo, { title: 'an issue' });
  t.is((await hearth.call('POST', '/repos/alice/open/pulls', { auth: alice.bearer, body: { head: 'feature', base: 'main', title: 'a pull' } })).status, 201);
  const onIssue = await upload(hearth, '/repos/alice/open/issues/1/assets', alice.bearer, Buffer.from('i\n'), 'i.txt');
  const onPull = await upload(hearth, '/repos/alice/open/issues/2/assets', alice.bearer, Buffer.from('p\n'), 'p.txt');
  t.is((await download(onIssue.browser_download_url)).status, 200, 'anyone reads a public issue');

  t.is((await hearth.call('PATCH', '/repos/alice/open', { auth: alice.bearer, body: { has_issues: false } })).status, 200);
  t.is((await download(onIssue.browser_download_url)).status, 404);
  t.is((await download(onIssue.browser_download_url, alice.bearer)).status, 200, 'repository administrators keep their mode in a unit that is off (unitModeOf)');
  t.is((await download(onPull.browser_download_url)).status, 200);
  t.is((await hearth.call('PATCH', '/repos/alice/open', { auth: alice.bearer, body: { has_pull_requests: false } })).status, 200);
  t.is((await download(onPull.browser_download_url)).status, 404);
  t.is(await countOf(hearth, onPull.id), 1);
});
