import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth } from '../helpers/hearth.js';
import { okOnDisk, refOnServer } from '../git/git-client.js';

// The list reads its page in the repository guard's statement (a preload); the single read goes to git. These check
// that both answer the same JSON, and that the ways into the list other than the guard's own find it too.

test('the listed branches are the single reads, commit users found by address in any case, the page and its total as asked', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  await hearth.createUser('bob');
  await build.repo(hearth, alice, { name: 'listed', autoInit: true });
  const main = (await refOnServer(hearth, 'alice', 'listed', 'refs/heads/main'))!;
  // authored by bob's address in capitals, committed by an address nobody has (spelled like a property every object has)
  const byBob = await okOnDisk(['commit-tree', `${main}^{tree}`, '-p', main, '-m', 'By Bob\n\nwith a body'], hearth.deps.git.pathOf('alice', 'listed'), {
    GIT_AUTHOR_NAME: 'Bob', GIT_AUTHOR_EMAIL: 'BOB@Example.COM', GIT_COMMITTER_NAME: 'Robot', GIT_COMMITTER_EMAIL: 'constructor',
  });
  for (const [name, commit] of [['feature/bob', byBob], ['copy', main]]) {
    const made = await hearth.call('POST', '/repos/alice/listed/branches', { auth: alice.bearer, body: { new_branch_name: name, old_ref_name: commit } });
    t.is(made.status, 201, JSON.stringify(made.body));
  }

  for (const auth of [undefined, alice.bearer]) {
    const list = await hearth.call<Array<{ name: string }>>('GET', '/repos/alice/listed/branches', { auth });
    t.is(list.status, 200);
    t.is(list.headers.get('x-total-count'), '3');
    t.is(list.body.length, 3);
    for (const listed of list.body) {
      const one = await hearth.call('GET', `/repos/alice/listed/branches/${listed.name}`, { auth });
      t.deepEqual(listed, one.body, `${listed.name} listed as it reads alone`);
    }
  }
  const bob = (await hearth.call<Array<{ name: string; commit: { author: unknown; committer: unknown } }>>('GET', '/repos/alice/listed/branches')).body
    .find((b) => b.name === 'feature/bob')!;
  t.deepEqual(bob.commit.author, { name: 'Bob', email: 'BOB@Example.COM', username: 'bob' });
  t.deepEqual(bob.commit.committer, { name: 'Robot', email: 'constructor', username: '' }, 'an address that is nobody\'s, whatever it spells');

  const second = await hearth.call<unknown[]>('GET', '/repos/alice/listed/branches?limit=2&page=2');
  t.is(second.body.length, 1);
  t.is(second.headers.get('x-total-count'), '3');
  const past = await hearth.call<unknown[]>('GET', '/repos/alice/listed/branches?page=9');
  t.deepEqual(past.body, []);
  t.is(past.headers.get('x-total-count'), '3', 'a page past the end still counts the branches');
});

test('a renamed repository lists under its old name; a private one is 404 to strangers; a bad page is refused only after the repository is found', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const stranger = await hearth.createUser('stranger');
  await build.repo(hearth, alice, { name: 'before', autoInit: true });
  const renamed = await hearth.call('PATCH', '/repos/alice/before', { auth: alice.bearer, body: { name: 'after' } });
  t.is(renamed.status, 200);
  const old = await hearth.call<Array<{ name: string }>>('GET', '/repos/alice/before/branches');
  t.is(old.status, 200);
  t.deepEqual(old.body.map((b) => b.name), ['main']);
  t.deepEqual(old.body, (await hearth.call('GET', '/repos/alice/after/branches')).body);

  await build.repo(hearth, alice, { name: 'secret', autoInit: true, private: true });
  t.is((await hearth.call('GET', '/repos/alice/secret/branches')).status, 404);
  t.is((await hearth.call('GET', '/repos/alice/secret/branches', { auth: stranger.bearer })).status, 404);
  const own = await hearth.call<Array<{ name: string; user_can_push: boolean }>>('GET', '/repos/alice/secret/branches', { auth: alice.bearer });
  t.like(own.body, [{ name: 'main', user_can_push: true }]);

  t.is((await hearth.call('GET', '/repos/alice/missing/branches?page=x')).status, 404);
  t.is((await hearth.call('GET', '/repos/alice/after/branches?page=x')).status, 422);
});
