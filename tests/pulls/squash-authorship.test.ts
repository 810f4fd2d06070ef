import { writeFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { git, ok } from '../git/git-client.js';
import { drain } from '../helpers/drain.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';
import { cloneOf, type Clone } from './pull-setup.js';
import { build } from '../helpers/build.js';

/** Gitea's merge_squash.go: the poster authors a squash merge, the merger commits it, co-author trailers name the poster. */

async function commitAs(clone: Clone, author: string, file: string): Promise<void> {
  writeFileSync(path.join(clone.dir, file), `${file}\n`);
  await clone.run(['add', file]);
  await clone.run(['commit', '--quiet', `--author=${author}`, '-m', `add ${file}`]);
}

/** The server's `main` tip: author, committer and the raw message. */
async function tip(hearth: TestHearth, clone: Clone, repo: string): Promise<{ author: string; committer: string; message: string; parents: string }> {
  const out = await ok(git(clone.home, ['--git-dir', hearth.deps.git.pathOf('alice', repo), 'log', '-1', '--format=%an <%ae>%x00%cn <%ce>%x00%P%x00%B', 'main']));
  const [author, committer, parents, message] = out.split('\0');
  return { author, committer, parents, message: message.replace(/\n+$/, '') };
}

test('a squash merge is authored by the poster under the address of their own commit, committed by the merger', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  await hearth.createUser('carol');
  await build.repo(hearth, alice, { name: 'sq', autoInit: true });
  t.is((await hearth.call('PUT', '/repos/alice/sq/collaborators/bob', { auth: alice.bearer, body: { permission: 'write' } })).status, 204);
  // bob's commits use an address of his that is not his primary one
  t.is((await hearth.call('POST', '/user/emails', { auth: bob.bearer, body: { emails: ['bob.work@example.com'] } })).status, 201);

  const clone = await cloneOf(t, hearth, alice, 'alice', 'sq');
  const mainBefore = await clone.rev('HEAD');
  await clone.checkout('feature', true);
  await commitAs(clone, 'Carol C <carol@example.com>', 'c1.txt');
  await commitAs(clone, 'Bobby at work <bob.work@example.com>', 'b1.txt');
  await commitAs(clone, 'Somebody <somebody@elsewhere.test>', 's1.txt');
  await clone.push('feature');
  const pull = await hearth.call('POST', '/repos/alice/sq/pulls', { auth: bob.bearer, body: { head: 'feature', base: 'main', title: 'Three files' } });
  t.is(pull.status, 201, JSON.stringify(pull.body));

  const merged = await hearth.call('POST', `/repos/alice/sq/pulls/${pull.body.number}/merge`, { auth: alice.bearer, body: { Do: 'squash' } });
  t.is(merged.status, 200, JSON.stringify(merged.body));
  const commit = await tip(hearth, clone, 'sq');
  t.is(commit.parents, mainBefore, 'one commit on the old main');
  t.is(commit.author, 'Bobby at work <bob.work@example.com>', "the poster, as their own commit names them");
  t.is(commit.committer, 'alice <alice@example.com>', 'the merger commits it');
  t.is(commit.message, [
    `Three files (#${pull.body.number})`,
    'Co-authored-by: Bobby at work <bob.work@example.com>',
    'Co-committed-by: Bobby at work <bob.work@example.com>',
  ].join('\n'));
  const pr = await hearth.call('GET', `/repos/alice/sq/pulls/${pull.body.number}`);
  t.is(pr.body.merged_by.login, 'alice');
  const sha = (await ok(git(clone.home, ['--git-dir', hearth.deps.git.pathOf('alice', 'sq'), 'rev-parse', 'main']))).trim();
  t.is(pr.body.merge_commit_sha, sha);
});

test('a poster without commits of their own authors the squash under their identity, a private address as its no-reply one', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  await build.repo(hearth, alice, { name: 'sq', autoInit: true });
  t.is((await hearth.call('PUT', '/repos/alice/sq/collaborators/bob', { auth: alice.bearer, body: { permission: 'write' } })).status, 204);
  t.is((await hearth.call('PATCH', '/user/settings', { auth: bob.bearer, body: { hide_email: true, full_name: 'Bob Builder' } })).status, 200);

  const clone = await cloneOf(t, hearth, alice, 'alice', 'sq');
  await clone.checkout('feature', true);
  await commitAs(clone, 'Somebody <somebody@elsewhere.test>', 's1.txt');
  await clone.push('feature');
  const pull = await hearth.call('POST', '/repos/alice/sq/pulls', { auth: bob.bearer, body: { head: 'feature', base: 'main', title: 'One file' } });
  t.is(pull.status, 201);
  await drain(hearth);

  // bob merges his own pull request: author and committer are the same signature, so no trailers
  const merged = await hearth.call('POST', `/repos/alice/sq/pulls/${pull.body.number}/merge`, {
    auth: bob.bearer, body: { Do: 'squash', MergeTitleField: 'Squashed', MergeMessageField: 'Why it matters' },
  });
  t.is(merged.status, 200, JSON.stringify(merged.body));
  const host = new URL(hearth.config.rootUrl).hostname;
  const commit = await tip(hearth, clone, 'sq');
  t.is(commit.author, `Bob Builder <bob@noreply.${host}>`);
  t.is(commit.committer, `Bob Builder <bob@noreply.${host}>`);
  t.is(commit.message, 'Squashed\n\nWhy it matters');
});
