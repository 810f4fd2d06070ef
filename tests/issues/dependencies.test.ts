import test from 'ava';
import { commentType } from '../../db/models/issues/issue-row.js';
import { build } from '../helpers/build.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';

async function setUp(t: Parameters<typeof startHearth>[0], settings: Record<string, string> = {}) {
  const hearth = await startHearth(t, settings);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const repo = await build.repo(hearth, alice, { name: 'tool' });
  const issues = [await build.issue(hearth, repo), await build.issue(hearth, repo), await build.issue(hearth, repo)];
  return { hearth, alice, bob, repo, issues };
}

const dependencyRows = (hearth: TestHearth) =>
  hearth.store.db.query<{ issue_id: number; dependency_id: number }>('SELECT issue_id, dependency_id FROM issue_dependency ORDER BY id');

const numbers = (body: Array<{ number: number; repository: { full_name: string } }>) => body.map((i) => `${i.repository.full_name}#${i.number}`);

test('dependencies and blocks are mirror images, changed through either end, with timeline entries and events', async (t) => {
  const { hearth, alice, repo, issues } = await setUp(t);
  const added = await hearth.call('POST', '/repos/alice/tool/issues/1/dependencies', { auth: alice.bearer, body: { index: 2, owner: 'alice', repo: 'tool' } });
  t.is(added.status, 201, JSON.stringify(added.body));
  t.is(added.body.number, 1);
  t.deepEqual(await dependencyRows(hearth), [{ issue_id: issues[0].id, dependency_id: issues[1].id }]);
  t.deepEqual(numbers((await hearth.call('GET', '/repos/alice/tool/issues/1/dependencies')).body), ['alice/tool#2']);
  t.deepEqual(numbers((await hearth.call('GET', '/repos/alice/tool/issues/2/blocks')).body), ['alice/tool#1']);
  t.deepEqual((await hearth.call('GET', '/repos/alice/tool/issues/1/blocks')).body, []);
  t.deepEqual((await hearth.call('GET', '/repos/alice/tool/issues/2/dependencies')).body, []);
  const timeline = await hearth.store.db.query('SELECT issue_id, dependent_issue_id FROM comment WHERE type = $1 ORDER BY id', [commentType.add_dependency]);
  t.deepEqual(timeline, [{ issue_id: issues[0].id, dependent_issue_id: issues[1].id }, { issue_id: issues[1].id, dependent_issue_id: issues[0].id }]);

  const closing = await hearth.call('PATCH', '/repos/alice/tool/issues/1', { auth: alice.bearer, body: { state: 'closed' } });
  t.is(closing.status, 412, 'an issue with an open dependency stays open');

  // the other end: #3 blocks #1, given from #3's side
  const blocking = await hearth.call('POST', '/repos/alice/tool/issues/3/blocks', { auth: alice.bearer, body: { index: 1 } });
  t.is(blocking.status, 201);
  t.is(blocking.body.number, 3);
  t.deepEqual(numbers((await hearth.call('GET', '/repos/alice/tool/issues/1/dependencies')).body), ['alice/tool#2', 'alice/tool#3']);

  const unblocked = await hearth.call('DELETE', '/repos/alice/tool/issues/2/blocks', { auth: alice.bearer, body: { index: 1 } });
  t.is(unblocked.status, 200);
  t.is(unblocked.body.number, 2);
  const removed = await hearth.call('DELETE', '/repos/alice/tool/issues/1/dependencies', { auth: alice.bearer, body: { index: 3 } });
  t.is(removed.status, 200);
  t.deepEqual(await dependencyRows(hearth), []);
  t.is((await hearth.call('DELETE', '/repos/alice/tool/issues/1/dependencies', { auth: alice.bearer, body: { index: 3 } })).status, 404);
  const events = await hearth.store.db.query<{ kind: string }>(`SELECT kind FROM domain_event WHERE repo_id = $1 AND kind LIKE 'issue.dependency%' ORDER BY id`, [repo.id]);
  t.deepEqual(events.map((e) => e.kind), ['issue.dependency_added', 'issue.dependency_added', 'issue.dependency_removed', 'issue.dependency_removed']);
});

test('a dependency on itself, one closing a cycle and a second identical one are refused; nothing is written', async (t) => {
  const { hearth, alice } = await setUp(t);
  const self = await hearth.call('POST', '/repos/alice/tool/issues/1/dependencies', { auth: alice.bearer, body: { index: 1 } });
  t.is(self.status, 422);
  t.regex(self.body.message, /itself/);
  t.is((await hearth.call('POST', '/repos/alice/tool/issues/1/blocks', { auth: alice.bearer, body: { index: 1 } })).status, 422);
  t.deepEqual(await dependencyRows(hearth), []);

  t.is((await hearth.call('POST', '/repos/alice/tool/issues/1/dependencies', { auth: alice.bearer, body: { index: 2 } })).status, 201);
  t.is((await hearth.call('POST', '/repos/alice/tool/issues/2/dependencies', { auth: alice.bearer, body: { index: 3 } })).status, 201);
  const direct = await hearth.call('POST', '/repos/alice/tool/issues/2/dependencies', { auth: alice.bearer, body: { index: 1 } });
  t.is(direct.status, 422);
  t.regex(direct.body.message, /circular/);
  t.is((await hearth.call('POST', '/repos/alice/tool/issues/3/dependencies', { auth: alice.bearer, body: { index: 1 } })).status, 422, 'a longer cycle too');
  t.is((await hearth.call('POST', '/repos/alice/tool/issues/1/dependencies', { auth: alice.bearer, body: { index: 2 } })).status, 409);
  t.is((await dependencyRows(hearth)).length, 2);
  t.is((await hearth.store.db.query('SELECT 1 FROM comment WHERE type = $1', [commentType.add_dependency])).length, 4);

  t.is((await hearth.call('POST', '/repos/alice/tool/issues/1/dependencies', { auth: alice.bearer, body: { index: 99 } })).status, 404);
  t.is((await hearth.call('POST', '/repos/alice/tool/issues/1/dependencies', { auth: alice.bearer, body: { index: 'two' } })).status, 422);
});

test('adding and removing need write access to the blocked issue (404 otherwise, as Gitea); a disabled tracker setting hides the dependencies', async (t) => {
  const { hearth, alice, bob } = await setUp(t);
  const carol = await hearth.createUser('carol');
  await hearth.call('PUT', '/repos/alice/tool/collaborators/carol', { auth: alice.bearer, body: { permission: 'write' } });
  for (const method of ['POST', 'DELETE']) {
    const refused = await hearth.call(method, '/repos/alice/tool/issues/1/dependencies', { auth: bob.bearer, body: { index: 2 } });
    t.is(refused.status, 404, `${method} dependencies`);
    t.is(typeof refused.body.message, 'string');
    t.is((await hearth.call(method, '/repos/alice/tool/issues/2/blocks', { auth: bob.bearer, body: { index: 1 } })).status, 404, `${method} blocks`);
  }
  t.is((await hearth.call('POST', '/repos/alice/tool/issues/1/dependencies', { body: { index: 2 } })).status, 401);
  t.deepEqual(await dependencyRows(hearth), []);
  t.is((await hearth.call('POST', '/repos/alice/tool/issues/1/dependencies', { auth: carol.bearer, body: { index: 2 } })).status, 201);
  t.is((await hearth.call('DELETE', '/repos/alice/tool/issues/1/dependencies', { auth: bob.bearer, body: { index: 2 } })).status, 404);
  t.is((await hearth.call('DELETE', '/repos/alice/tool/issues/2/blocks', { auth: bob.bearer, body: { index: 1 } })).status, 404);
  t.is((await dependencyRows(hearth)).length, 1, 'a refused removal removes nothing');

  const edited = await hearth.call('PATCH', '/repos/alice/tool', {
    auth: alice.bearer, body: { internal_tracker: { enable_time_tracker: true, allow_only_contributors_to_track_time: true, enable_issue_dependencies: false } },
  });
  t.is(edited.status, 200);
  t.is((await hearth.call('GET', '/repos/alice/tool/issues/1/dependencies')).status, 404);
  t.is((await hearth.call('POST', '/repos/alice/tool/issues/1/dependencies', { auth: alice.bearer, body: { index: 3 } })).status, 404);
  t.is((await dependencyRows(hearth)).length, 1);
});

test('cross-repository dependencies follow the setting; lists leave out issues of repositories the caller cannot read', async (t) => {
  const { hearth, alice, bob } = await setUp(t);
  const lib = await build.repo(hearth, alice, { name: 'lib' });
  await build.issue(hearth, lib);
  const secret = await build.repo(hearth, alice, { name: 'secret', private: true });
  await build.issue(hearth, secret);

  t.is((await hearth.call('POST', '/repos/alice/tool/issues/1/dependencies', { auth: alice.bearer, body: { index: 1, owner: 'alice', repo: 'lib' } })).status, 201);
  t.is((await hearth.call('POST', '/repos/alice/tool/issues/1/dependencies', { auth: alice.bearer, body: { index: 1, owner: 'alice', repo: 'secret' } })).status, 201);
  t.is((await hearth.call('POST', '/repos/alice/tool/issues/1/dependencies', { auth: alice.bearer, body: { index: 1, owner: 'alice', repo: 'nowhere' } })).status, 404);
  const mine = await hearth.call('GET', '/repos/alice/tool/issues/1/dependencies', { auth: alice.bearer });
  t.deepEqual(numbers(mine.body), ['alice/lib#1', 'alice/secret#1']);
  t.is(mine.headers.get('x-total-count'), '2');
  const theirs = await hearth.call('GET', '/repos/alice/tool/issues/1/dependencies', { auth: bob.bearer });
  t.deepEqual(numbers(theirs.body), ['alice/lib#1']);
  t.is(theirs.headers.get('x-total-count'), '1');
  t.deepEqual(numbers((await hearth.call('GET', '/repos/alice/tool/issues/1/dependencies')).body), ['alice/lib#1']);
  t.deepEqual(numbers((await hearth.call('GET', '/repos/alice/lib/issues/1/blocks', { auth: bob.bearer })).body), ['alice/tool#1']);
  // bob cannot see the private repository's issue, so he cannot name it either
  t.is((await hearth.call('POST', '/repos/alice/tool/issues/2/dependencies', { auth: bob.bearer, body: { index: 1, owner: 'alice', repo: 'secret' } })).status, 404);
  // a writer of the blocked issue who cannot read the blocker cannot remove the dependency either
  await hearth.call('PUT', '/repos/alice/tool/collaborators/bob', { auth: alice.bearer, body: { permission: 'write' } });
  t.is((await hearth.call('DELETE', '/repos/alice/tool/issues/1/dependencies', { auth: bob.bearer, body: { index: 1, owner: 'alice', repo: 'secret' } })).status, 404);
  t.is((await hearth.call('DELETE', '/repos/alice/secret/issues/1/blocks', { auth: bob.bearer, body: { index: 1, owner: 'alice', repo: 'tool' } })).status, 404);
  t.deepEqual(numbers((await hearth.call('GET', '/repos/alice/tool/issues/1/dependencies', { auth: alice.bearer })).body), ['alice/lib#1', 'alice/secret#1']);
});

test('with ALLOW_CROSS_REPOSITORY_DEPENDENCIES off, another repository is a 400 and the same repository still works', async (t) => {
  const { hearth, alice } = await setUp(t, { HEARTH__service__ALLOW_CROSS_REPOSITORY_DEPENDENCIES: 'false' });
  const lib = await build.repo(hearth, alice, { name: 'lib' });
  await build.issue(hearth, lib);
  const cross = await hearth.call('POST', '/repos/alice/tool/issues/1/dependencies', { auth: alice.bearer, body: { index: 1, owner: 'alice', repo: 'lib' } });
  t.is(cross.status, 400);
  t.is((await hearth.call('POST', '/repos/alice/lib/issues/1/blocks', { auth: alice.bearer, body: { index: 1, owner: 'alice', repo: 'tool' } })).status, 400);
  t.deepEqual(await dependencyRows(hearth), []);
  t.is((await hearth.call('POST', '/repos/alice/tool/issues/1/dependencies', { auth: alice.bearer, body: { index: 2, owner: 'alice', repo: 'tool' } })).status, 201);
  t.is((await dependencyRows(hearth)).length, 1);
});
