import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { git, ok } from '../git/git-client.js';
import { drain } from '../helpers/drain.js';
import { startHearth } from '../helpers/hearth.js';
import { repoWithFeature } from './pull-setup.js';
import { advanceMain, history, openPull } from './merge-helpers.js';

test('merge: a merge commit by the caller, committed by the server, with Gitea message; events as a push; GET /merge', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const clone = await repoWithFeature(t, hearth, alice, 'm1');
  const mainBefore = await advanceMain(clone);
  const featureSha = await clone.rev('feature');
  const index = await openPull(hearth, alice, 'm1');
  t.is((await hearth.call('GET', `/repos/alice/m1/pulls/${index}/merge`)).status, 404);
  await drain(hearth);
  await hearth.store.db.query(`DELETE FROM domain_event`);

  const merged = await hearth.call('POST', `/repos/alice/m1/pulls/${index}/merge`, { auth: alice.bearer, body: { Do: 'merge' } });
  t.is(merged.status, 200, JSON.stringify(merged.body));
  const [top] = await history(hearth, clone, 'm1', 'main', 1);
  const [sha, parents, author, committer, subject] = top.split('|');
  t.is(parents, `${mainBefore} ${featureSha}`);
  t.regex(author, /<alice@/);
  t.is(committer, 'Hearth');
  t.is(subject, `Merge pull request 'Add feature' (#${index}) from feature into main`);
  t.is((await hearth.call('GET', `/repos/alice/m1/pulls/${index}/merge`)).status, 204);

  const pr = await hearth.call('GET', `/repos/alice/m1/pulls/${index}`);
  t.is(pr.body.merged, true);
  t.is(pr.body.state, 'closed');
  t.is(pr.body.merge_commit_sha, sha);
  t.is(pr.body.merged_by.login, 'alice');
  const issue = await hearth.call('GET', `/repos/alice/m1/issues/${index}`);
  t.is(issue.body.pull_request.merged, true);

  // the ref change is a push: the branch-sync job records it and emits the push event
  await drain(hearth, 'branch-sync');
  const events = await hearth.store.db.query<{ kind: string; payload: { ref?: string; after?: string } }>(`SELECT kind, payload FROM domain_event ORDER BY id`);
  t.deepEqual(events.map((e) => e.kind).sort(), ['pull_request.merged', 'push']);
  t.is(events.find((e) => e.kind === 'push')!.payload.after, sha);
  const [branch] = await hearth.store.db.query<{ commit_id: string }>(`SELECT commit_id FROM branch WHERE name = 'main' AND repo_id = (SELECT id FROM repository WHERE lower_name = 'm1')`);
  t.is(branch.commit_id, sha);

  const again = await hearth.call('POST', `/repos/alice/m1/pulls/${index}/merge`, { auth: alice.bearer, body: { Do: 'merge' } });
  t.is(again.status, 405, 'already merged');
  // a clone sees the merge at once
  await clone.run(['fetch', '--quiet', clone.url, 'main']);
  t.is(await clone.rev('FETCH_HEAD'), sha);
  await drain(hearth);

  // The branch moves while the merge is written to the database; whichever of the two fails, nothing stays.
  const other = await repoWithFeature(t, hearth, alice, 'm2');
  await advanceMain(other);
  const otherIndex = await openPull(hearth, alice, 'm2');
  const blocker = await hearth.call('POST', '/repos/alice/m2/issues', { auth: alice.bearer, body: { title: 'Needed first' } });
  await drain(hearth);
  await hearth.store.db.query(`DELETE FROM domain_event`);
  const dir = hearth.deps.git.pathOf('alice', 'm2');
  const mainOf = async (): Promise<string> => (await ok(git(other.home, ['--git-dir', dir, 'rev-parse', 'refs/heads/main']))).trim();
  const mainAt = await mainOf();
  const nothingStayed = async (what: string): Promise<void> => {
    t.is(await mainOf(), mainAt, `${what}: main is where it was`);
    const pull = await hearth.call('GET', `/repos/alice/m2/pulls/${otherIndex}`);
    t.like(pull.body, { merged: false, state: 'open' }, what);
    t.deepEqual(await hearth.store.db.query(`SELECT kind FROM domain_event`), [], `${what}: no event`);
    t.deepEqual(await drain(hearth), [], `${what}: no job`);
  };
  // git refuses the move (as when a push moved main first): 409, and what the merge wrote to the database rolls back
  const hook = path.join(dir, 'hooks', 'reference-transaction');
  writeFileSync(hook, '#!/bin/sh\ntest "$1" = prepared || exit 0\nwhile read -r old new ref; do test "$ref" = refs/heads/main && exit 1; done\nexit 0\n', { mode: 0o755 });
  const refused = await hearth.call('POST', `/repos/alice/m2/pulls/${otherIndex}/merge`, { auth: alice.bearer, body: { Do: 'merge' } });
  t.is(refused.status, 409, JSON.stringify(refused.body));
  t.is(refused.body.message, 'merge push out of date');
  await nothingStayed('refused move');
  // the database refuses (closing the issue over an open dependency) before git has moved main (the hook holds
  // update-ref back): 412, and main moves back once it has moved
  const settled = path.join(dir, 'ref-settled');
  writeFileSync(hook, '#!/bin/sh\ncase "$1" in prepared) sleep 0.2;; *) echo "$1" > ref-settled;; esac\nexit 0\n', { mode: 0o755 });
  t.is((await hearth.call('POST', `/repos/alice/m2/issues/${otherIndex}/dependencies`, { auth: alice.bearer, body: { index: blocker.body.number } })).status, 201);
  await drain(hearth);
  await hearth.store.db.query(`DELETE FROM domain_event`);
  const blocked = await hearth.call('POST', `/repos/alice/m2/pulls/${otherIndex}/merge`, { auth: alice.bearer, body: { Do: 'merge' } });
  t.is(blocked.status, 412, JSON.stringify(blocked.body));
  t.is(readFileSync(settled, 'utf8'), 'committed\n', 'git had moved main when the merge answered');
  await nothingStayed('refused close');
  rmSync(hook);
});

