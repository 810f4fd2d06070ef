import test from 'ava';
import { drain } from '../helpers/drain.js';
import { startHearth } from '../helpers/hearth.js';
import { refOnServer } from '../git/git-client.js';
import { repoWithFeature } from './pull-setup.js';

test('edit: title, body, assignees emptied, labels, milestone, due date, base, state, allow_maintainer_edit', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const clone = await repoWithFeature(t, hearth, alice, 'ed');
  const auth = alice.bearer;
  await clone.checkout('main');
  await clone.run(['checkout', '--quiet', '-b', 'other']);
  await clone.push('other');
  const label = (await hearth.call('POST', '/repos/alice/ed/labels', { auth, body: { name: 'x', color: '#00ff00' } })).body;
  const milestone = (await hearth.call('POST', '/repos/alice/ed/milestones', { auth, body: { title: 'v1' } })).body;
  t.is((await hearth.call('PATCH', '/repos/alice/ed', { auth, body: { default_allow_maintainer_edit: true } })).status, 200);
  const created = await hearth.call('POST', '/repos/alice/ed/pulls', { auth, body: { head: 'feature', base: 'main', title: 'T', assignees: ['alice'] } });
  t.is(created.body.allow_maintainer_edit, true, 'the repository default');
  const n = created.body.number;

  const edited = await hearth.call('PATCH', `/repos/alice/ed/pulls/${n}`, {
    auth, body: { title: 'New title', body: 'New body', assignees: [], labels: [label.id], milestone: milestone.id, due_date: '2030-01-02T00:00:00Z', allow_maintainer_edit: false },
  });
  t.is(edited.status, 201, JSON.stringify(edited.body));
  t.like(edited.body, { title: 'New title', body: 'New body', assignees: null, allow_maintainer_edit: false });
  t.deepEqual(edited.body.labels.map((l: { name: string }) => l.name), ['x']);
  t.is(edited.body.milestone.title, 'v1');
  t.is(edited.body.due_date, '2030-01-02T23:59:59Z');
  const cleared = await hearth.call('PATCH', `/repos/alice/ed/pulls/${n}`, { auth, body: { labels: [] } });
  t.deepEqual(cleared.body.labels, []);

  t.is((await hearth.call('PATCH', `/repos/alice/ed/pulls/${n}`, { auth: bob.bearer, body: { title: 'nope' } })).status, 403);
  t.is((await hearth.call('PATCH', `/repos/alice/ed/pulls/${n}`, { auth, body: { base: 'missing' } })).status, 404);
  t.is((await hearth.call('PATCH', `/repos/alice/ed/pulls/${n}`, { auth, body: { base: 'feature' } })).status, 422);
  const rebased = await hearth.call('PATCH', `/repos/alice/ed/pulls/${n}`, { auth, body: { base: 'other' } });
  t.is(rebased.status, 201);
  t.is(rebased.body.base.ref, 'other');
  const events = await hearth.store.db.query<{ payload: { previous: { base_branch: string } } }>(`SELECT payload FROM domain_event WHERE kind = 'pull_request.edited'`);
  t.is(events[0].payload.previous.base_branch, 'main');

  const closed = await hearth.call('PATCH', `/repos/alice/ed/pulls/${n}`, { auth, body: { state: 'closed' } });
  t.is(closed.body.state, 'closed');
  t.is((await hearth.call('GET', '/repos/alice/ed/pulls?state=closed')).body.length, 1);
  const reopened = await hearth.call('PATCH', `/repos/alice/ed/pulls/${n}`, { auth, body: { state: 'open' } });
  t.is(reopened.body.state, 'open');
  t.is((await hearth.call('POST', `/repos/alice/ed/pulls/${n}/merge`, { auth, body: { Do: 'merge' } })).status, 200);
  t.is((await hearth.call('PATCH', `/repos/alice/ed/pulls/${n}`, { auth, body: { state: 'open' } })).status, 412);

  const byCommit = await hearth.call('GET', `/repos/alice/ed/commits/${(await hearth.call('GET', `/repos/alice/ed/pulls/${n}`)).body.merge_commit_sha}/pull`);
  t.is(byCommit.status, 200);
  t.is(byCommit.body.number, n);
  t.is((await hearth.call('GET', `/repos/alice/ed/commits/${'b'.repeat(40)}/pull`)).status, 404);
  await drain(hearth);
});

test('a push to the head updates the pull request in the worker; POST /update merges or rebases the base in; deleting removes refs', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const clone = await repoWithFeature(t, hearth, alice, 'sy');
  const auth = alice.bearer;
  const created = await hearth.call('POST', '/repos/alice/sy/pulls', { auth, body: { head: 'feature', base: 'main', title: 'Sync' } });
  const n = created.body.number;
  const before = created.body.head.sha;
  await drain(hearth);

  const next = await clone.commit('more.txt', 'more\n', 'more');
  await clone.push('feature');
  t.is(await refOnServer(hearth, 'alice', 'sy', `refs/pull/${n}/head`), next);
  const [row] = await hearth.store.db.query<{ head_commit_id: string; commits_ahead: number }>('SELECT head_commit_id, commits_ahead FROM pull_request');
  t.deepEqual(row, { head_commit_id: next, commits_ahead: 2 });
  const sync = await hearth.store.db.query<{ payload: { before: string; after: string } }>(`SELECT payload FROM domain_event WHERE kind = 'pull_request.synchronized'`);
  t.is(sync.length, 1);
  t.like(sync[0].payload, { before, after: next });

  // a conflicting push to the base is seen too
  await clone.checkout('main');
  await clone.commit('more.txt', 'other\n', 'conflicting');
  await clone.push('main');
  const [conflicted] = await hearth.store.db.query<{ status: number; conflicted_files: string[] }>('SELECT status, conflicted_files FROM pull_request');
  t.deepEqual(conflicted, { status: 0, conflicted_files: ['more.txt'] });
  t.is((await hearth.call('POST', `/repos/alice/sy/pulls/${n}/update`, { auth })).status, 409, 'the update conflicts');
  await clone.run(['reset', '--quiet', '--hard', 'HEAD~1']);
  await clone.commit('base.txt', 'base\n', 'base moves');
  await clone.run(['push', '--quiet', '--force', clone.url, 'main']);
  await drain(hearth, 'branch-sync');
  const mainSha = await clone.rev('main');

  const updated = await hearth.call('POST', `/repos/alice/sy/pulls/${n}/update?style=merge`, { auth });
  t.is(updated.status, 200, JSON.stringify(updated.body));
  const headAfter = await refOnServer(hearth, 'alice', 'sy', 'refs/heads/feature');
  await clone.run(['fetch', '--quiet', clone.url, 'feature']);
  t.is((await clone.run(['log', '-1', '--format=%P|%s', 'FETCH_HEAD'])).trim(), `${next} ${mainSha}|Merge branch 'main' into feature`);
  await drain(hearth, 'branch-sync');
  t.is((await hearth.call('GET', `/repos/alice/sy/pulls/${n}`)).body.head.sha, headAfter);

  await clone.checkout('main');
  await clone.commit('base2.txt', 'base2\n', 'base again');
  await clone.push('main');
  const rebased = await hearth.call('POST', `/repos/alice/sy/pulls/${n}/update?style=rebase`, { auth });
  t.is(rebased.status, 200);
  await clone.run(['fetch', '--quiet', clone.url, 'feature']);
  await t.notThrowsAsync(clone.run(['merge-base', '--is-ancestor', await clone.rev('main'), 'FETCH_HEAD']), 'the head now contains main');

  // deleting the pull request's issue removes its refs
  t.is((await hearth.call('DELETE', `/repos/alice/sy/issues/${n}`, { auth })).status, 204);
  t.is(await refOnServer(hearth, 'alice', 'sy', `refs/pull/${n}/head`), null);
  const [{ count }] = await hearth.store.db.query<{ count: number }>('SELECT count(*)::int AS count FROM pull_request');
  t.is(count, 0);
  await drain(hearth);
});
