import test from 'ava';
import { startHearth } from '../helpers/hearth.js';
import { repoWithFeature } from '../pulls/pull-setup.js';

test('issue search filters review_requested and reviewed as Gitea\'s ReviewRequestedID and ReviewedID', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const carol = await hearth.createUser('carol');
  await repoWithFeature(t, hearth, alice, 'tool');
  for (const name of ['bob', 'carol']) {
    t.is((await hearth.call('PUT', `/repos/alice/tool/collaborators/${name}`, { auth: alice.bearer, body: { permission: 'write' } })).status, 204);
  }
  t.is((await hearth.call('POST', '/repos/alice/tool/issues', { auth: alice.bearer, body: { title: 'An issue' } })).status, 201);
  t.is((await hearth.call('POST', '/repos/alice/tool/pulls', { auth: alice.bearer, body: { head: 'feature', base: 'main', title: 'A pull' } })).status, 201);
  t.is((await hearth.call('POST', '/repos/alice/tool/pulls/2/requested_reviewers', { auth: alice.bearer, body: { reviewers: ['bob', 'carol'] } })).status, 201);

  const search = async (auth: string, filter: string): Promise<number[]> => {
    const answer = await hearth.call('GET', `/repos/issues/search?${filter}=true`, { auth });
    t.is(answer.status, 200, JSON.stringify(answer.body));
    return answer.body.map((issue: { number: number }) => issue.number);
  };
  t.deepEqual(await search(bob.bearer, 'review_requested'), [2]);
  t.deepEqual(await search(carol.bearer, 'review_requested'), [2]);
  t.deepEqual(await search(alice.bearer, 'review_requested'), []);
  t.deepEqual(await search(bob.bearer, 'reviewed'), []);

  // a verdict answers the request
  t.is((await hearth.call('POST', '/repos/alice/tool/pulls/2/reviews', { auth: bob.bearer, body: { event: 'APPROVED', body: 'ok' } })).status, 200);
  t.deepEqual(await search(bob.bearer, 'review_requested'), []);
  t.deepEqual(await search(bob.bearer, 'reviewed'), [2]);
  // a plain comment counts as reviewed and leaves the request standing
  t.is((await hearth.call('POST', '/repos/alice/tool/issues/2/comments', { auth: carol.bearer, body: { body: 'looking' } })).status, 201);
  t.deepEqual(await search(carol.bearer, 'reviewed'), [2]);
  t.deepEqual(await search(carol.bearer, 'review_requested'), [2]);
  // the poster's own pull requests are never listed; comments on an issue count too, as in Gitea
  t.deepEqual(await search(alice.bearer, 'reviewed'), []);
  t.is((await hearth.call('POST', '/repos/alice/tool/issues/1/comments', { auth: bob.bearer, body: { body: 'me too' } })).status, 201);
  t.deepEqual((await search(bob.bearer, 'reviewed')).sort(), [1, 2]);
  // asked again after the approval: requested once more
  t.is((await hearth.call('POST', '/repos/alice/tool/pulls/2/requested_reviewers', { auth: alice.bearer, body: { reviewers: ['bob'] } })).status, 201);
  t.deepEqual(await search(bob.bearer, 'review_requested'), [2]);
});
