import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';

async function storedTopics(hearth: TestHearth, name: string): Promise<string[]> {
  const [row] = await hearth.store.db.query<{ topics: string[] }>('SELECT topics FROM repository WHERE lower_name = $1', [name]);
  return row.topics;
}

async function repoCount(hearth: TestHearth, topic: string): Promise<number | undefined> {
  const [row] = await hearth.store.db.query<{ repo_count: number }>('SELECT repo_count FROM topic WHERE name = $1', [topic]);
  return row?.repo_count;
}

test('replace, add, list and delete topics; names are sanitized and kept on the repository', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  await build.repo(hearth, alice, { name: 'tools' });

  const replaced = await hearth.call('PUT', '/repos/alice/tools/topics', { auth: alice.bearer, body: { topics: [' Go ', 'cli', 'go', '', 'web.dev'] } });
  t.is(replaced.status, 204, JSON.stringify(replaced.body));
  const listed = await hearth.call('GET', '/repos/alice/tools/topics');
  t.deepEqual(listed.body, { topics: ['cli', 'go', 'web.dev'] });
  t.is(listed.headers.get('x-total-count'), '3');
  t.deepEqual((await storedTopics(hearth, 'tools')).sort(), ['cli', 'go', 'web.dev']);

  t.is((await hearth.call('PUT', '/repos/alice/tools/topics/Rust', { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('PUT', '/repos/alice/tools/topics/rust', { auth: alice.bearer })).status, 204, 'adding again changes nothing');
  t.is((await hearth.call('DELETE', '/repos/alice/tools/topics/cli', { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('DELETE', '/repos/alice/tools/topics/cli', { auth: alice.bearer })).status, 404);
  t.deepEqual((await hearth.call('GET', '/repos/alice/tools/topics')).body.topics, ['go', 'rust', 'web.dev']);
  t.deepEqual((await storedTopics(hearth, 'tools')).sort(), ['go', 'rust', 'web.dev']);
  t.is(await repoCount(hearth, 'cli'), 0);

  const paged = await hearth.call('GET', '/repos/alice/tools/topics?limit=2&page=2');
  t.deepEqual(paged.body.topics, ['web.dev']);

  t.is((await hearth.call('PUT', '/repos/alice/tools/topics', { auth: alice.bearer, body: { topics: [] } })).status, 204);
  t.deepEqual(await storedTopics(hearth, 'tools'), []);
  t.is(await repoCount(hearth, 'go'), 0);
});

test('invalid topics and too many answer 422 and change nothing', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  await build.repo(hearth, alice, { name: 'tools' });
  await hearth.call('PUT', '/repos/alice/tools/topics', { auth: alice.bearer, body: { topics: ['keep'] } });

  const bad = await hearth.call('PUT', '/repos/alice/tools/topics', { auth: alice.bearer, body: { topics: ['ok', '-dash', 'has space', 'x'.repeat(36)] } });
  t.is(bad.status, 422);
  t.deepEqual(bad.body.invalidTopics, ['-dash', 'has space', 'x'.repeat(36)]);
  t.regex(bad.body.message, /-dash/);
  const many = Array.from({ length: 26 }, (_, i) => `t${i}`);
  const tooMany = await hearth.call('PUT', '/repos/alice/tools/topics', { auth: alice.bearer, body: { topics: many } });
  t.is(tooMany.status, 422);
  t.regex(tooMany.body.message, /maximum/);
  t.is((await hearth.call('PUT', '/repos/alice/tools/topics/_under', { auth: alice.bearer })).status, 422);
  t.deepEqual(await storedTopics(hearth, 'tools'), ['keep']);

  t.is((await hearth.call('PUT', '/repos/alice/tools/topics', { auth: alice.bearer, body: { topics: many.slice(0, 25) } })).status, 204);
  const over = await hearth.call('PUT', '/repos/alice/tools/topics/one-more', { auth: alice.bearer });
  t.is(over.status, 422);
  t.is((await storedTopics(hearth, 'tools')).length, 25);

  t.is((await hearth.call('PUT', '/repos/alice/tools/topics', { auth: bob.bearer, body: { topics: ['x'] } })).status, 403);
  t.is((await hearth.call('PUT', '/repos/alice/tools/topics/x', { body: {} })).status, 401);
});

test('topic search counts repositories; deleting a repository lowers the count', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  for (const name of ['one', 'two']) {
    await build.repo(hearth, alice, { name });
  }
  await hearth.call('PUT', '/repos/alice/one/topics', { auth: alice.bearer, body: { topics: ['golang', 'go-tools'] } });
  await hearth.call('PUT', '/repos/alice/two/topics', { auth: alice.bearer, body: { topics: ['golang'] } });

  const found = await hearth.call('GET', '/topics/search?q=GO');
  t.is(found.status, 200);
  t.deepEqual(found.body.topics.map((topic: { topic_name: string; repo_count: number }) => [topic.topic_name, topic.repo_count]), [['golang', 2], ['go-tools', 1]]);
  t.is(found.headers.get('x-total-count'), '2');
  t.true(Number.isInteger(found.body.topics[0].id));
  t.regex(found.body.topics[0].created, /Z$/);
  t.deepEqual((await hearth.call('GET', '/topics/search?q=tools')).body.topics.map((x: { topic_name: string }) => x.topic_name), ['go-tools']);
  t.deepEqual((await hearth.call('GET', '/topics/search?q=%25')).body.topics, [], 'LIKE wildcards are literal');

  t.is((await hearth.call('DELETE', '/repos/alice/two', { auth: alice.bearer })).status, 204);
  t.is(await repoCount(hearth, 'golang'), 1);
});
