import test from 'ava';
import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import { startHearth } from '../helpers/hearth.js';
import { refOnServer } from '../git/git-client.js';
import { cloneOf, repoWithFeature } from './pull-setup.js';

test('create, get, list and find a pull request by base and head; 409 for a duplicate, 422 for head = base', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const clone = await repoWithFeature(t, hearth, alice, 'proj');
  const auth = alice.bearer;
  const label = await hearth.call('POST', '/repos/alice/proj/labels', { auth, body: { name: 'bug', color: '#ff0000' } });
  t.is(label.status, 201);

  const created = await hearth.call('POST', '/repos/alice/proj/pulls', {
    auth, body: { head: 'feature', base: 'main', title: 'Add feature', body: 'please', labels: [label.body.id], assignees: ['alice'] },
  });
  t.is(created.status, 201, JSON.stringify(created.body));
  const pr = created.body;
  t.is(pr.number, 1);
  t.is(pr.state, 'open');
  t.is(pr.head.label, 'feature');
  t.is(pr.head.ref, 'feature');
  t.is(pr.head.sha, await clone.rev('feature'));
  t.is(pr.base.ref, 'main');
  t.is(pr.base.sha, await clone.rev('origin/main'));
  t.is(pr.merge_base, await clone.rev('origin/main'));
  t.is(pr.mergeable, true);
  t.is(pr.merged, false);
  t.is(pr.additions, 1);
  t.is(pr.changed_files, 1);
  t.is(pr.allow_maintainer_edit, false);
  t.deepEqual(pr.labels.map((l: { name: string }) => l.name), ['bug']);
  t.is(pr.assignees[0].login, 'alice');
  t.is(pr.html_url, `${hearth.rootUrl}alice/proj/pulls/1`);
  t.is(pr.diff_url, `${hearth.rootUrl}alice/proj/pulls/1.diff`);
  t.is(pr.base.repo.full_name, 'alice/proj');
  t.is(pr.head.repo_id, pr.base.repo_id);
  t.is(await refOnServer(hearth, 'alice', 'proj', 'refs/pull/1/head'), await clone.rev('feature'));

  // The issue shares the index and shows the pull request.
  const issue = await hearth.call('GET', '/repos/alice/proj/issues/1');
  t.truthy(issue.body.pull_request);
  t.is(issue.body.pull_request.merged, false);
  const [{ num_pulls }] = await hearth.store.db.query<{ num_pulls: number }>(`SELECT num_pulls FROM repository WHERE lower_name = 'proj'`);
  t.is(num_pulls, 1);
  const anIssue = await hearth.call('POST', '/repos/alice/proj/issues', { auth, body: { title: 'an issue' } });
  t.is(anIssue.body.number, 2, 'issues and pull requests share the index');
  t.is((await hearth.call('GET', '/repos/alice/proj/pulls/2')).status, 404, 'an issue is no pull request');

  const got = await hearth.call('GET', '/repos/alice/proj/pulls/1');
  t.is(got.status, 200);
  t.is(got.body.id, pr.id);
  const byBranches = await hearth.call('GET', '/repos/alice/proj/pulls/main/feature');
  t.is(byBranches.status, 200);
  t.is(byBranches.body.number, 1);
  t.is((await hearth.call('GET', '/repos/alice/proj/pulls/main/nothing')).status, 404);

  const duplicate = await hearth.call('POST', '/repos/alice/proj/pulls', { auth, body: { head: 'alice:feature', base: 'main', title: 'Again' } });
  t.is(duplicate.status, 409);
  t.regex(duplicate.body.message, /pull request already exists/);
  const same = await hearth.call('POST', '/repos/alice/proj/pulls', { auth, body: { head: 'main', base: 'main', title: 'Same' } });
  t.is(same.status, 422);
  const unknown = await hearth.call('POST', '/repos/alice/proj/pulls', { auth, body: { head: 'nope', base: 'main', title: 'Unknown' } });
  t.is(unknown.status, 422);
  const badBase = await hearth.call('POST', '/repos/alice/proj/pulls', { auth, body: { head: 'feature', base: 'nope', title: 'Unknown' } });
  t.is(badBase.status, 422);
  // main has nothing feature lacks: nothing to compare
  const nothing = await hearth.call('POST', '/repos/alice/proj/pulls', { auth, body: { head: 'main', base: 'feature', title: 'Backwards' } });
  t.is(nothing.status, 422);
  const [{ n }] = await hearth.store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM issue');
  t.is(n, 2, 'refused pull requests leave no issue behind');
  t.is(await refOnServer(hearth, 'alice', 'proj', 'refs/pull/3/head'), null, 'nor a ref');

  const list = await hearth.call('GET', '/repos/alice/proj/pulls?state=all');
  t.is(list.status, 200);
  t.is(list.body.length, 1);
  t.is(list.headers.get('x-total-count'), '1');
  t.is((await hearth.call('GET', `/repos/alice/proj/pulls?labels=${label.body.id}`)).body.length, 1);
  t.is((await hearth.call('GET', '/repos/alice/proj/pulls?labels=99999')).body.length, 0);
  t.is((await hearth.call('GET', '/repos/alice/proj/pulls?state=closed')).body.length, 0);
  t.is((await hearth.call('GET', '/repos/alice/proj/pulls?poster=alice')).body.length, 1);

  const opened = await hearth.store.db.query<{ kind: string; payload: { index: number; is_pull: boolean } }>(
    `SELECT kind, payload FROM domain_event WHERE kind IN ('pull_request.opened', 'issue.opened') ORDER BY id`,
  );
  t.deepEqual(opened.map((e) => [e.kind, e.payload.index, e.payload.is_pull]), [['pull_request.opened', 1, true], ['issue.opened', 2, false]]);
  await drain(hearth);
});

test('a pull request from a fork: the fork owner opens it with owner:branch, its head is kept in the base repository', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  await build.repo(hearth, alice.user, { name: 'proj', autoInit: true });
  const fork = await hearth.call('POST', '/repos/alice/proj/forks', { auth: bob.bearer, body: {} });
  t.is(fork.status, 202);
  await drain(hearth);
  const clone = await cloneOf(t, hearth, bob, 'bob', 'proj');
  await clone.checkout('fix', true);
  const sha = await clone.commit('fix.txt', 'fix\n', 'a fix');
  await clone.push('fix');

  const created = await hearth.call('POST', '/repos/alice/proj/pulls', { auth: bob.bearer, body: { head: 'bob:fix', base: 'main', title: 'Fix' } });
  t.is(created.status, 201, JSON.stringify(created.body));
  t.is(created.body.head.repo.full_name, 'bob/proj');
  t.is(created.body.head.sha, sha);
  t.is(created.body.base.repo.full_name, 'alice/proj');
  t.is(created.body.user.login, 'bob');
  t.is(await refOnServer(hearth, 'alice', 'proj', 'refs/pull/1/head'), sha);
  const unknownFork = await hearth.call('POST', '/repos/alice/proj/pulls', { auth: bob.bearer, body: { head: 'carol:fix', base: 'main', title: 'Fix' } });
  t.is(unknownFork.status, 404);
});
