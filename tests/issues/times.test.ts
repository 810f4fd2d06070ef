import test from 'ava';
import { commentType } from '../../db/models/issues/issue-row.js';
import { durationText } from '../../api/render/tracked-time.js';
import { build } from '../helpers/build.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';

async function setUp(t: Parameters<typeof startHearth>[0], settings: Record<string, string> = {}) {
  const hearth = await startHearth(t, settings);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const carol = await hearth.createUser('carol');
  const repo = await build.repo(hearth, alice, { name: 'tool' });
  await hearth.call('PUT', '/repos/alice/tool/collaborators/carol', { auth: alice.bearer, body: { permission: 'write' } });
  const first = await build.issue(hearth, repo, { title: 'first' });
  const second = await build.issue(hearth, repo, { title: 'second', by: bob.user });
  return { hearth, alice, bob, carol, repo, first, second };
}

const timeRows = (hearth: TestHearth) =>
  hearth.store.db.query<{ id: number; issue_id: number; user_id: number; time: number; deleted: boolean }>(
    'SELECT id, issue_id, user_id, time, deleted FROM tracked_time ORDER BY id');

const addTime = (hearth: TestHearth, auth: string, index: number, body: Record<string, unknown>) =>
  hearth.call('POST', `/repos/alice/tool/issues/${index}/times`, { auth, body });

test('adding time records it with `created`, its timeline entry, and whose time it is', async (t) => {
  const { hearth, alice, bob, carol, first } = await setUp(t);
  const added = await addTime(hearth, alice.bearer, 1, { time: 3600, created: '2020-01-02T03:04:05Z' });
  t.is(added.status, 200, JSON.stringify(added.body));
  t.like(added.body, { time: 3600, created: '2020-01-02T03:04:05Z', user_id: alice.user.id, user_name: 'alice', issue_id: first.id });
  t.is(added.body.issue.number, 1);
  t.is(added.body.issue.title, 'first');
  const [row] = await timeRows(hearth);
  t.like(row, { id: added.body.id, issue_id: first.id, user_id: alice.user.id, time: 3600, deleted: false });
  const [entry] = await hearth.store.db.query('SELECT poster_id, content, time_id FROM comment WHERE type = $1', [commentType.add_time_manual]);
  t.deepEqual(entry, { poster_id: alice.user.id, content: '|3600', time_id: added.body.id });

  // a writer who is not a repository administrator cannot book time for someone else: it is theirs
  t.is((await addTime(hearth, carol.bearer, 1, { time: 60, user_name: 'bob' })).body.user_name, 'carol');
  t.is((await addTime(hearth, alice.bearer, 1, { time: 30, user_name: 'bob' })).body.user_name, 'bob');
  t.is((await addTime(hearth, alice.bearer, 1, { time: 30, user_name: 'nobody' })).status, 404);
  t.deepEqual((await timeRows(hearth)).map((r) => r.user_id), [alice.user.id, carol.user.id, bob.user.id]);

  t.is((await addTime(hearth, alice.bearer, 1, { time: 0 })).status, 422);
  t.is((await addTime(hearth, alice.bearer, 1, { time: 5, created: 'yesterday' })).status, 422);
  t.is((await addTime(hearth, alice.bearer, 9, { time: 5 })).status, 404);
});

test('only writers, and the poster while only contributors may track, add time; a disabled tracker is 400', async (t) => {
  const { hearth, alice, bob } = await setUp(t);
  const refused = await addTime(hearth, bob.bearer, 1, { time: 10 });
  t.is(refused.status, 403);
  t.is((await addTime(hearth, bob.bearer, 2, { time: 10 })).status, 200, 'bob posted issue 2');
  t.is((await hearth.call('POST', '/repos/alice/tool/issues/1/times', { body: { time: 10 } })).status, 401);
  t.is((await timeRows(hearth)).length, 1);

  const tracker = (settings: Record<string, boolean>) => hearth.call('PATCH', '/repos/alice/tool', {
    auth: alice.bearer, body: { internal_tracker: { enable_time_tracker: true, allow_only_contributors_to_track_time: true, enable_issue_dependencies: true, ...settings } },
  });
  t.is((await tracker({ allow_only_contributors_to_track_time: false })).status, 200);
  t.is((await addTime(hearth, bob.bearer, 1, { time: 10 })).status, 200, 'everyone may track when the repository allows it');
  t.is((await tracker({ enable_time_tracker: false })).status, 200);
  t.is((await addTime(hearth, alice.bearer, 1, { time: 10 })).status, 400);
  t.is((await hearth.call('GET', '/repos/alice/tool/issues/1/times', { auth: alice.bearer })).status, 404);
  t.is((await hearth.call('GET', '/repos/alice/tool/times', { auth: alice.bearer })).status, 400);
  t.is((await hearth.call('POST', '/repos/alice/tool/issues/1/stopwatch/start', { auth: alice.bearer })).status, 403);
  t.is((await timeRows(hearth)).length, 2);
});

test('lists per issue, repository, user and caller, with since and before; others\' times only for writers', async (t) => {
  const { hearth, alice, bob, carol } = await setUp(t);
  await addTime(hearth, alice.bearer, 1, { time: 100, created: '2021-01-01T00:00:00Z' });
  await addTime(hearth, alice.bearer, 1, { time: 200, created: '2021-06-01T00:00:00Z' });
  await addTime(hearth, bob.bearer, 2, { time: 300, created: '2021-03-01T00:00:00Z' });
  await addTime(hearth, carol.bearer, 1, { time: 400, created: '2022-01-01T00:00:00Z' });
  const seconds = (answer: { body: Array<{ time: number }> }) => answer.body.map((x) => x.time);

  const all = await hearth.call('GET', '/repos/alice/tool/issues/1/times', { auth: alice.bearer });
  t.is(all.status, 200);
  t.deepEqual(seconds(all), [100, 200, 400]);
  t.is(all.headers.get('x-total-count'), '3');
  const window = await hearth.call('GET', '/repos/alice/tool/issues/1/times?since=2021-02-01T00:00:00Z&before=2021-12-31T00:00:00Z', { auth: alice.bearer });
  t.deepEqual(seconds(window), [200]);
  t.is((await hearth.call('GET', '/repos/alice/tool/issues/1/times?since=soon', { auth: alice.bearer })).status, 422);
  t.deepEqual(seconds(await hearth.call('GET', '/repos/alice/tool/issues/1/times?user=carol', { auth: alice.bearer })), [400]);
  t.deepEqual(seconds(await hearth.call('GET', '/repos/alice/tool/issues/1/times', { auth: bob.bearer })), [], 'a reader sees only their own');
  t.is((await hearth.call('GET', '/repos/alice/tool/issues/1/times?user=alice', { auth: bob.bearer })).status, 403);
  t.is((await hearth.call('GET', '/repos/alice/tool/issues/1/times')).status, 401);

  t.deepEqual(seconds(await hearth.call('GET', '/repos/alice/tool/times', { auth: carol.bearer })), [100, 300, 200, 400]);
  t.deepEqual(seconds(await hearth.call('GET', '/repos/alice/tool/times?before=2021-12-31T00:00:00Z', { auth: alice.bearer })), [100, 300, 200]);
  t.deepEqual(seconds(await hearth.call('GET', '/repos/alice/tool/times', { auth: bob.bearer })), [300]);
  t.deepEqual(seconds(await hearth.call('GET', '/repos/alice/tool/times/bob', { auth: bob.bearer })), [300]);
  t.deepEqual(seconds(await hearth.call('GET', '/repos/alice/tool/times/bob', { auth: alice.bearer })), [300]);
  t.is((await hearth.call('GET', '/repos/alice/tool/times/alice', { auth: carol.bearer })).status, 403, 'a writer is not a repository administrator');
  t.is((await hearth.call('GET', '/repos/alice/tool/times/nobody', { auth: alice.bearer })).status, 404);

  const mine = await hearth.call('GET', '/user/times?since=2021-02-01T00:00:00Z', { auth: alice.bearer });
  t.deepEqual(seconds(mine), [200]);
  t.is(mine.body[0].issue.repository.full_name, 'alice/tool');
  t.deepEqual(seconds(await hearth.call('GET', '/user/times', { auth: bob.bearer })), [300]);
});

test('deleting one time and resetting one\'s own times only mark them deleted, with timeline entries', async (t) => {
  const { hearth, alice, bob, first } = await setUp(t);
  const mine = (await addTime(hearth, alice.bearer, 1, { time: 100 })).body;
  const theirs = (await addTime(hearth, bob.bearer, 2, { time: 300 })).body;
  await addTime(hearth, alice.bearer, 1, { time: 50 });

  t.is((await hearth.call('DELETE', `/repos/alice/tool/issues/2/times/${theirs.id}`, { auth: alice.bearer })).status, 403, 'only one\'s own (or as site administrator)');
  t.is((await hearth.call('DELETE', `/repos/alice/tool/issues/2/times/${mine.id}`, { auth: alice.bearer })).status, 404, 'a time of another issue');
  t.is((await hearth.call('DELETE', `/repos/alice/tool/issues/1/times/${mine.id}`, { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('DELETE', `/repos/alice/tool/issues/1/times/${mine.id}`, { auth: alice.bearer })).status, 404);
  t.deepEqual((await timeRows(hearth)).map((r) => r.deleted), [true, false, false]);

  t.is((await hearth.call('DELETE', '/repos/alice/tool/issues/1/times', { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('DELETE', '/repos/alice/tool/issues/1/times', { auth: alice.bearer })).status, 404);
  t.deepEqual((await timeRows(hearth)).map((r) => r.deleted), [true, false, true]);
  const entries = await hearth.store.db.query<{ content: string }>('SELECT content FROM comment WHERE issue_id = $1 AND type = $2 ORDER BY id', [first.id, commentType.delete_time_manual]);
  t.deepEqual(entries.map((e) => e.content), ['|100', '|50']);
  t.deepEqual((await hearth.call('GET', '/repos/alice/tool/issues/1/times', { auth: alice.bearer })).body, []);

  const root = await hearth.createUser('root', { admin: true });
  t.is((await hearth.call('DELETE', `/repos/alice/tool/issues/2/times/${theirs.id}`, { auth: root.bearer })).status, 204);
});

test('stopwatches: one start (409 on the second), stop records the time, delete records nothing, the caller\'s list', async (t) => {
  const { hearth, bob, carol, first, second } = await setUp(t);
  const start = (index: number, auth = carol.bearer) => hearth.call('POST', `/repos/alice/tool/issues/${index}/stopwatch/start`, { auth });
  t.is((await start(1)).status, 201);
  t.is((await start(1)).status, 409);
  t.is((await start(1, bob.bearer)).status, 403, 'only writers use stopwatches');

  const listed = await hearth.call('GET', '/user/stopwatches', { auth: carol.bearer });
  t.is(listed.status, 200);
  t.is(listed.body.length, 1);
  t.like(listed.body[0], { issue_index: 1, issue_title: 'first', repo_owner_name: 'alice', repo_name: 'tool' });
  t.true(listed.body[0].seconds >= 0);
  t.is(typeof listed.body[0].duration, 'string');
  t.deepEqual((await hearth.call('GET', '/user/stopwatches', { auth: bob.bearer })).body, []);

  await hearth.store.db.query(`UPDATE stopwatch SET created = now() - interval '90 seconds'`);
  t.is((await hearth.call('POST', '/repos/alice/tool/issues/1/stopwatch/stop', { auth: carol.bearer })).status, 201);
  t.is((await hearth.call('POST', '/repos/alice/tool/issues/1/stopwatch/stop', { auth: carol.bearer })).status, 409);
  const [recorded] = await timeRows(hearth);
  t.like(recorded, { issue_id: first.id, user_id: carol.user.id, deleted: false });
  t.true(recorded.time >= 90 && recorded.time < 200, String(recorded.time));
  t.deepEqual(await hearth.store.db.query('SELECT 1 FROM stopwatch'), []);

  t.is((await start(1)).status, 201);
  t.is((await hearth.call('DELETE', '/repos/alice/tool/issues/1/stopwatch/delete', { auth: carol.bearer })).status, 204);
  t.is((await hearth.call('DELETE', '/repos/alice/tool/issues/1/stopwatch/delete', { auth: carol.bearer })).status, 409);
  t.is((await timeRows(hearth)).length, 1, 'a deleted stopwatch records nothing');

  // starting on another issue stops the running one first
  t.is((await start(1)).status, 201);
  t.is((await start(2)).status, 201);
  const watches = await hearth.store.db.query<{ issue_id: number }>('SELECT issue_id FROM stopwatch');
  t.deepEqual(watches, [{ issue_id: second.id }]);
  t.is((await timeRows(hearth)).length, 2);
  const types = await hearth.store.db.query<{ type: number }>('SELECT type FROM comment WHERE issue_id = $1 AND poster_id = $2 ORDER BY id', [first.id, carol.user.id]);
  t.deepEqual(types.map((c) => c.type), [
    commentType.start_tracking, commentType.stop_tracking, commentType.start_tracking, commentType.cancel_tracking,
    commentType.start_tracking, commentType.stop_tracking,
  ]);
});

test('a stopwatch\'s duration reads as Gitea writes it', (t) => {
  t.is(durationText(66), '1 minute 6 seconds');
  t.is(durationText(52410), '14 hours 33 minutes');
  t.is(durationText(563418), '6 days 12 hours');
  t.is(durationText(1563418), '2 weeks 4 days');
  t.is(durationText(0), '');
});
