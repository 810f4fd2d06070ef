import test from 'ava';
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
});

