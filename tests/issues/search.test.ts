import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth } from '../helpers/hearth.js';

test('search covers the repositories the caller can read, hides private ones and applies the filters', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const open = await build.repo(hearth, alice, { name: 'open' });
  const secret = await build.repo(hearth, alice, { name: 'secret', private: true });
  const bobs = await build.repo(hearth, bob, { name: 'mine' });
  await build.issue(hearth, open, { title: 'public bug' });
  await build.issue(hearth, secret, { title: 'secret bug' });
  await build.issue(hearth, bobs, { title: 'bob bug', by: 'bob', assignees: ['bob'] });
  await build.issue(hearth, open, { title: 'public pull', isPull: true });
  const titles = async (query: string, auth?: string) => {
    const answer = await hearth.call('GET', `/repos/issues/search${query}`, { auth });
    t.is(answer.status, 200, JSON.stringify(answer.body));
    return answer.body.map((i: { title: string }) => i.title).sort();
  };
  t.deepEqual(await titles(''), ['bob bug', 'public bug', 'public pull']);
  t.deepEqual(await titles('', bob.bearer), ['bob bug', 'public bug', 'public pull']);
  t.deepEqual(await titles('', alice.bearer), ['bob bug', 'public bug', 'public pull', 'secret bug']);
  t.deepEqual(await titles('?type=pulls'), ['public pull']);
  t.deepEqual(await titles('?q=SECRET', alice.bearer), ['secret bug']);
  t.deepEqual(await titles('?q=secret', bob.bearer), []);
  t.deepEqual(await titles('?owner=bob'), ['bob bug']);
  t.deepEqual(await titles('?created=true', bob.bearer), ['bob bug']);
  t.deepEqual(await titles('?assigned=true', bob.bearer), ['bob bug']);
  const first = await hearth.call('GET', `/repos/issues/search?priority_repo_id=${bobs.id}`);
  t.is(first.body[0].title, 'bob bug');
  t.is(first.body[0].repository.full_name, 'bob/mine');
  t.is(first.headers.get('x-total-count'), '3');
  t.is((await hearth.call('GET', '/repos/issues/search?owner=nobody')).status, 400);
  t.is((await hearth.call('GET', '/repos/issues/search?owner=bob&team=x')).status, 400);
});

test('search answers 400 while ALLOW_CROSS_REPOSITORY_DEPENDENCIES is off', async (t) => {
  const hearth = await startHearth(t, { HEARTH__service__ALLOW_CROSS_REPOSITORY_DEPENDENCIES: 'false' });
  const answer = await hearth.call('GET', '/repos/issues/search');
  t.is(answer.status, 400);
  t.truthy(answer.body.message);
});
