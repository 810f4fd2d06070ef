import path from 'node:path';
import test from 'ava';
import { pino } from 'pino';
import { branchSync } from '../../actors/branch-sync.js';
import { inTx } from '../../db/data-source.js';
import { recordRefUpdates } from '../../db/models/code/ref-updates.js';
import { findRepo } from '../../db/models/repos/repos.js';
import type { BranchSyncPayload } from '../../jobs/catalogue.js';
import { actorDeps } from '../../workers/subscribe.js';
import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';
import { commitFile, git, localRepo, ok, remote, scratch } from '../git/git-client.js';

interface Row {
  [column: string]: unknown;
}

const branchNames = async (hearth: TestHearth, repo: string): Promise<string[]> =>
  (await hearth.store.db.query<{ name: string }>(
    'SELECT b.name FROM branch b JOIN repository r ON r.id = b.repo_id WHERE r.lower_name = $1 ORDER BY b.name', [repo],
  )).map((r) => r.name);

const tagReleases = (hearth: TestHearth, repo: string): Promise<Row[]> =>
  hearth.store.db.query(
    `SELECT tag_name, sha1, title, is_tag, num_commits FROM release WHERE repo_id = (SELECT id FROM repository WHERE lower_name = $1) ORDER BY tag_name`,
    [repo],
  );

const pushEvents = (hearth: TestHearth): Promise<Row[]> =>
  hearth.store.db.query(`SELECT payload FROM domain_event WHERE kind = 'push' ORDER BY id`);

test('the first push into an empty repository: branches, emptiness, default branch and HEAD, tag releases, events', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  await build.repo(hearth, alice, { name: 'fresh' });
  const home = scratch(t);
  const work = await localRepo(home, 'work', 'trunk', { 'a.txt': 'a\n', 'b.txt': 'b\n' });
  const tip = (await ok(git(home, ['rev-parse', 'HEAD'], work))).trim();
  await ok(git(home, ['tag', '-a', 'v1.0', '-m', 'First release\n\nWith notes.'], work));
  await ok(git(home, ['tag', 'light', 'HEAD~1'], work));
  const url = remote(hearth, 'alice', 'fresh', { user: 'alice', secret: alice.token });
  await ok(git(home, ['push', '--quiet', url, 'trunk', 'v1.0', 'light'], work));

  await drain(hearth, 'branch-sync');
  const answer = await hearth.call('GET', '/repos/alice/fresh');
  const repo = answer.body.empty ? null : answer.body;
  t.truthy(repo, 'the repository stops being empty');
  t.is(repo.default_branch, 'trunk', 'main was not pushed, so the first pushed branch becomes the default');
  const head = await ok(git(home, ['--git-dir', hearth.deps.git.pathOf('alice', 'fresh'), 'symbolic-ref', 'HEAD']));
  t.is(head.trim(), 'refs/heads/trunk');
  t.deepEqual(await branchNames(hearth, 'fresh'), ['trunk']);
  const branches = await hearth.call('GET', '/repos/alice/fresh/branches');
  t.deepEqual(branches.body.map((b: { name: string }) => b.name), ['trunk']);
  t.is(branches.body[0].commit.id, tip);
  t.is(branches.body[0].commit.message, 'add b.txt\n');
  t.is(branches.body[0].commit.author.email, 'tester@example.com');

  const parent = (await ok(git(home, ['rev-parse', 'HEAD~1'], work))).trim();
  t.deepEqual(await tagReleases(hearth, 'fresh'), [
    { tag_name: 'light', sha1: parent, title: '', is_tag: true, num_commits: 1 },
    { tag_name: 'v1.0', sha1: tip, title: 'First release', is_tag: true, num_commits: 2 },
  ]);
  const events = (await pushEvents(hearth)).map((e) => e.payload as { ref: string; commits: number; before: string; after: string });
  t.deepEqual(events.map((e) => [e.ref, e.commits]), [['refs/heads/trunk', 2], ['refs/tags/v1.0', 0], ['refs/tags/light', 0]]);
  t.is(events[0].before, '0'.repeat(40));
  t.is(events[0].after, tip);

  // An anonymous clone now checks out the new default branch.
  await ok(git(home, ['clone', '--quiet', remote(hearth, 'alice', 'fresh'), 'clone']));
  t.is((await ok(git(home, ['rev-parse', '--abbrev-ref', 'HEAD'], path.join(home, 'clone')))).trim(), 'trunk');

  // Later pushes only touch what they name: a new branch and tag, a deleted tag, an updated branch. The deleted
  // tag carries a published release, which becomes a draft again.
  await hearth.store.db.query(`UPDATE release SET is_tag = false WHERE tag_name = 'light'`);
  await hearth.store.db.query(`UPDATE repository SET num_releases = 1 WHERE lower_name = 'fresh'`);
  const next = await commitFile(home, work, 'c.txt', 'c\n');
  await ok(git(home, ['tag', 'temp'], work));
  await ok(git(home, ['push', '--quiet', url, 'trunk', 'trunk:refs/heads/feature/x', ':refs/tags/light', 'temp'], work));
  await drain(hearth, 'branch-sync');
  t.deepEqual(await branchNames(hearth, 'fresh'), ['feature/x', 'trunk']);
  t.deepEqual((await tagReleases(hearth, 'fresh')).map((r) => [r.tag_name, r.is_tag, r.sha1]), [
    ['light', false, ''], ['temp', true, next], ['v1.0', true, tip],
  ]);
  const [{ is_draft }] = await hearth.store.db.query<{ is_draft: boolean }>(`SELECT is_draft FROM release WHERE tag_name = 'light'`);
  t.true(is_draft);
  t.is((await hearth.call('GET', '/repos/alice/fresh')).body.release_counter, 0);
  const [trunk] = await hearth.store.db.query<{ commit_id: string; commit_message: string }>(
    `SELECT commit_id, commit_message FROM branch WHERE name = 'trunk'`,
  );
  t.deepEqual(trunk, { commit_id: next, commit_message: 'add c.txt' });
  t.is((await hearth.call('GET', '/repos/alice/fresh')).body.default_branch, 'trunk');

  await ok(git(home, ['push', '--quiet', url, ':refs/heads/feature/x', ':refs/tags/temp'], work));
  await drain(hearth, 'branch-sync');
  t.deepEqual(await branchNames(hearth, 'fresh'), ['trunk']);
  t.deepEqual((await tagReleases(hearth, 'fresh')).map((r) => r.tag_name), ['light', 'v1.0']);
});

test('a repository without branch rows gets all of its branches on the next push; the default branch stays when it exists', async (t) => {
  const hearth = await startHearth(t);
  const bob = await hearth.createUser('bob');
  await build.repo(hearth, bob, { name: 'old', defaultBranch: 'main' });
  const home = scratch(t);
  const work = await localRepo(home, 'work', 'main', { 'a.txt': 'a\n' });
  const url = remote(hearth, 'bob', 'old', { user: 'bob', secret: bob.token });
  await ok(git(home, ['push', '--quiet', url, 'main', 'main:side', 'main:other'], work));
  await drain(hearth, 'branch-sync');
  t.is((await hearth.call('GET', '/repos/bob/old')).body.default_branch, 'main', 'the default branch was pushed');

  await hearth.store.db.query('DELETE FROM branch');
  await commitFile(home, work, 'b.txt', 'b\n');
  await ok(git(home, ['push', '--quiet', url, 'main'], work));
  await drain(hearth, 'branch-sync');
  t.deepEqual(await branchNames(hearth, 'old'), ['main', 'other', 'side']);
});

test('a second run of the same branch-sync job changes nothing; a rolled-back push enqueues nothing', async (t) => {
  const hearth = await startHearth(t);
  const carol = await hearth.createUser('carol');
  const repo = await build.repo(hearth, carol, { name: 'twice' });
  const home = scratch(t);
  const work = await localRepo(home, 'work', 'dev', { 'a.txt': 'a\n' });
  await ok(git(home, ['tag', 't1'], work));
  await ok(git(home, ['push', '--quiet', remote(hearth, 'carol', 'twice', { user: 'carol', secret: carol.token }), 'dev', 't1'], work));

  // No worker runs here: the job the push enqueued is run by hand, twice.
  const [job] = await hearth.store.db.query<{ data: BranchSyncPayload }>(`SELECT data FROM pgboss.job WHERE name = 'branch-sync'`);
  t.truthy(job, 'the push enqueued a branch-sync job');
  t.deepEqual(job.data.updates.map((u) => u.ref), ['refs/heads/dev', 'refs/tags/t1']);
  const deps = actorDeps(hearth.store, hearth.config, pino({ level: 'silent' }));
  const snapshot = async (): Promise<unknown> => ({
    branches: await hearth.store.db.query('SELECT name, commit_id, updated FROM branch ORDER BY name'),
    releases: await hearth.store.db.query('SELECT tag_name, sha1 FROM release ORDER BY tag_name'),
    repo: await hearth.store.db.query('SELECT is_empty, default_branch, updated FROM repository'),
    events: await hearth.store.db.query(`SELECT count(*)::int AS n FROM domain_event WHERE kind = 'push'`),
  });
  t.is(await branchSync.handle(job.data, deps), 'done');
  const once = await snapshot();
  t.like(once, { repo: [{ is_empty: false, default_branch: 'dev' }], events: [{ n: 2 }] });
  t.is(await branchSync.handle(job.data, deps), 'done');
  t.deepEqual(await snapshot(), once);

  const jobs = async (): Promise<number> =>
    (await hearth.store.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'branch-sync'`))[0].n;
  const count = await jobs();
  await t.throwsAsync(inTx(hearth.store, async (tx) => {
    await recordRefUpdates(tx, hearth.deps.git.open(repo), repo, carol.user, [{ ref: 'refs/heads/dev', oldSha: '0'.repeat(40), newSha: 'a'.repeat(40) }]);
    throw new Error('the push could not be recorded');
  }));
  t.is(await jobs(), count);
});

test('a branch made or deleted through the API is recorded as a git push of the same change is: same row, same push event', async (t) => {
  const hearth = await startHearth(t);
  const dana = await hearth.createUser('dana');
  await hearth.call('POST', '/user/repos', { auth: dana.bearer, body: { name: 'twin' } });
  const home = scratch(t);
  const work = await localRepo(home, 'work', 'main', { 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n' });
  const tip = (await ok(git(home, ['rev-parse', 'HEAD'], work))).trim();
  const url = remote(hearth, 'dana', 'twin', { user: 'dana', secret: dana.token });
  const deps = actorDeps(hearth.store, hearth.config, pino({ level: 'silent' }));
  const synced = new Set<string>();
  const runSyncs = async (): Promise<void> => {
    const queued = await hearth.store.db.query<{ data: BranchSyncPayload }>(`SELECT data FROM pgboss.job WHERE name = 'branch-sync' ORDER BY created_on`);
    for (const { data } of queued.filter((job) => !synced.has(job.data.pushId))) {
      t.is(await branchSync.handle(data, deps), 'done');
      synced.add(data.pushId);
    }
  };
  const eventOf = async (ref: string): Promise<Row> => {
    const [event] = await hearth.store.db.query(`SELECT doer_id::int, payload FROM domain_event WHERE kind = 'push' AND payload->>'ref' = $1 ORDER BY id`, [ref]);
    return event;
  };
  const rowOf = async (name: string): Promise<Row> => {
    const [row] = await hearth.store.db.query(`SELECT commit_id, commit_message, commit_time, pusher_id FROM branch WHERE name = $1`, [name]);
    return row;
  };
  await ok(git(home, ['push', '--quiet', url, 'main'], work));
  await runSyncs();

  const made = await hearth.call('POST', '/repos/dana/twin/branches', { auth: dana.bearer, body: { new_branch_name: 'by-api' } });
  t.is(made.status, 201, JSON.stringify(made.body));
  t.like(await rowOf('by-api'), { commit_id: tip }, 'the row is there at once, before any sync');
  await ok(git(home, ['push', '--quiet', url, 'main:refs/heads/by-push'], work));
  await runSyncs();
  t.deepEqual(await rowOf('by-api'), await rowOf('by-push'));
  const [byApi, byPush] = [await eventOf('refs/heads/by-api'), await eventOf('refs/heads/by-push')];
  t.like(byPush, { doer_id: dana.user.id, payload: { before: '0'.repeat(40), after: tip, commits: 3 } });
  t.deepEqual(byApi, { ...byPush, payload: { ...(byPush.payload as Row), ref: 'refs/heads/by-api' } });

  t.is((await hearth.call('DELETE', '/repos/dana/twin/branches/by-api', { auth: dana.bearer })).status, 204);
  await ok(git(home, ['push', '--quiet', url, ':refs/heads/by-push'], work));
  await runSyncs();
  t.deepEqual(await branchNames(hearth, 'twin'), ['main']);
  const deletions = (await pushEvents(hearth)).slice(-2).map((e) => e.payload);
  t.deepEqual(deletions, [
    { ref: 'refs/heads/by-api', before: tip, after: '0'.repeat(40), commits: 0 },
    { ref: 'refs/heads/by-push', before: tip, after: '0'.repeat(40), commits: 0 },
  ]);
});
