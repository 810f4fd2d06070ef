import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { okOnDisk } from '../git/git-client.js';
import { build } from '../helpers/build.js';
import { startHearth, type TestHearth, type TestUser } from '../helpers/hearth.js';

async function setUp(t: Parameters<typeof startHearth>[0]): Promise<{ hearth: TestHearth; alice: TestUser }> {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  await build.repo(hearth, alice, { name: 'proj', autoInit: true });
  return { hearth, alice };
}

const headOf = (hearth: TestHearth, owner: string, repo: string): string =>
  readFileSync(path.join(hearth.deps.git.pathOf(owner, repo), 'HEAD'), 'utf8').trim();

test('name, description, website, private and template change and read back', async (t) => {
  const { hearth, alice } = await setUp(t);
  const edit = { name: 'renamed', description: 'A tool', website: 'https://example.com/tool', private: true, template: true };
  const answer = await hearth.call('PATCH', '/repos/alice/proj', { auth: alice.bearer, body: edit });
  t.is(answer.status, 200, JSON.stringify(answer.body));
  const read = await hearth.call('GET', '/repos/alice/renamed', { auth: alice.bearer });
  t.like(read.body, { name: 'renamed', full_name: 'alice/renamed', description: 'A tool', website: 'https://example.com/tool', private: true, template: true });
  t.true(existsSync(hearth.deps.git.pathOf('alice', 'renamed')));
  t.is((await hearth.call('GET', '/repos/alice/renamed')).status, 404, 'now private');

  const back = await hearth.call('PATCH', '/repos/alice/renamed', { auth: alice.bearer, body: { private: false, template: false, description: '' } });
  t.like(back.body, { private: false, template: false, description: '' });
  t.like((await hearth.call('GET', '/repos/alice/renamed')).body, { private: false, template: false, description: '' });

  const bob = await hearth.createUser('bob');
  await build.repo(hearth, alice, { name: 'other' });
  const taken = await hearth.call('PATCH', '/repos/alice/renamed', { auth: alice.bearer, body: { name: 'OTHER' } });
  t.is(taken.status, 422);
  const caseOnly = await hearth.call('PATCH', '/repos/alice/renamed', { auth: alice.bearer, body: { name: 'Renamed' } });
  t.is(caseOnly.body.name, 'Renamed');
  t.true(existsSync(hearth.deps.git.pathOf('alice', 'renamed')));
  t.is((await hearth.call('PATCH', '/repos/alice/renamed', { auth: bob.bearer, body: { description: 'x' } })).status, 403);
  t.is((await hearth.call('PATCH', '/repos/alice/renamed', { body: { description: 'x' } })).status, 401);
});

test('archived sets and clears archived_at', async (t) => {
  const { hearth, alice } = await setUp(t);
  const archived = await hearth.call('PATCH', '/repos/alice/proj', { auth: alice.bearer, body: { archived: true } });
  t.true(archived.body.archived);
  t.not(archived.body.archived_at, '1970-01-01T00:00:00Z');
  const read = await hearth.call('GET', '/repos/alice/proj');
  t.true(read.body.archived);
  t.is(read.body.archived_at, archived.body.archived_at);
  await hearth.call('PATCH', '/repos/alice/proj', { auth: alice.bearer, body: { archived: false } });
  const again = await hearth.call('GET', '/repos/alice/proj');
  t.false(again.body.archived);
  t.is(again.body.archived_at, '1970-01-01T00:00:00Z');
});

test('default_branch must name an existing branch and moves HEAD; an empty repository takes any valid name', async (t) => {
  const { hearth, alice } = await setUp(t);
  const dir = hearth.deps.git.pathOf('alice', 'proj');
  await okOnDisk(['update-ref', 'refs/heads/dev', 'refs/heads/main'], dir);
  const moved = await hearth.call('PATCH', '/repos/alice/proj', { auth: alice.bearer, body: { default_branch: 'dev' } });
  t.is(moved.status, 200, JSON.stringify(moved.body));
  t.is((await hearth.call('GET', '/repos/alice/proj')).body.default_branch, 'dev');
  t.is(headOf(hearth, 'alice', 'proj'), 'ref: refs/heads/dev');

  const missing = await hearth.call('PATCH', '/repos/alice/proj', { auth: alice.bearer, body: { default_branch: 'nope', description: 'changed' } });
  t.is(missing.status, 422);
  const after = await hearth.call('GET', '/repos/alice/proj');
  t.is(after.body.default_branch, 'dev');
  t.is(after.body.description, '', 'nothing of a refused edit is kept');
  t.is(headOf(hearth, 'alice', 'proj'), 'ref: refs/heads/dev');
  t.is((await hearth.call('PATCH', '/repos/alice/proj', { auth: alice.bearer, body: { default_branch: 'bad..name' } })).status, 422);

  await build.repo(hearth, alice, { name: 'empty' });
  const empty = await hearth.call('PATCH', '/repos/alice/empty', { auth: alice.bearer, body: { default_branch: 'trunk' } });
  t.is(empty.body.default_branch, 'trunk');
  t.is(headOf(hearth, 'alice', 'empty'), 'ref: refs/heads/trunk');
});

test('unit switches, projects_mode and the internal tracker settings', async (t) => {
  const { hearth, alice } = await setUp(t);
  const off = {
    has_issues: false, has_wiki: false, has_pull_requests: false, has_projects: false, has_releases: false, has_packages: false, has_actions: false,
  };
  const answer = await hearth.call('PATCH', '/repos/alice/proj', { auth: alice.bearer, body: off });
  t.is(answer.status, 200, JSON.stringify(answer.body));
  const read = await hearth.call('GET', '/repos/alice/proj');
  t.like(read.body, off);
  t.is(read.body.internal_tracker, undefined, 'no tracker while issues are off');

  const on = Object.fromEntries(Object.keys(off).map((key) => [key, true]));
  await hearth.call('PATCH', '/repos/alice/proj', { auth: alice.bearer, body: { ...on, projects_mode: 'owner' } });
  const enabled = await hearth.call('GET', '/repos/alice/proj');
  t.like(enabled.body, { ...on, projects_mode: 'owner' });
  t.deepEqual(enabled.body.internal_tracker, { enable_time_tracker: true, allow_only_contributors_to_track_time: true, enable_issue_dependencies: true });

  await hearth.call('PATCH', '/repos/alice/proj', {
    auth: alice.bearer,
    body: { internal_tracker: { enable_time_tracker: false, allow_only_contributors_to_track_time: true, enable_issue_dependencies: false } },
  });
  t.deepEqual((await hearth.call('GET', '/repos/alice/proj')).body.internal_tracker, {
    enable_time_tracker: false, allow_only_contributors_to_track_time: true, enable_issue_dependencies: false,
  });

  await hearth.call('PATCH', '/repos/alice/proj', { auth: alice.bearer, body: { has_projects: false } });
  const noProjects = await hearth.call('PATCH', '/repos/alice/proj', { auth: alice.bearer, body: { projects_mode: 'repo' } });
  t.like(noProjects.body, { has_projects: false, projects_mode: 'all' }, 'a disabled project unit has no mode to set');
  t.is((await hearth.call('PATCH', '/repos/alice/proj', { auth: alice.bearer, body: { projects_mode: 'nobody' } })).status, 422);
});

test('an external tracker and an external wiki replace the internal ones, and are validated', async (t) => {
  const { hearth, alice } = await setUp(t);
  const tracker = {
    external_tracker_url: 'https://tracker.example.com/', external_tracker_format: 'https://tracker.example.com/{user}/{repo}/issues/{index}',
    external_tracker_style: 'numeric', external_tracker_regexp_pattern: '',
  };
  const answer = await hearth.call('PATCH', '/repos/alice/proj', {
    auth: alice.bearer,
    body: { has_issues: true, external_tracker: tracker, has_wiki: true, external_wiki: { external_wiki_url: 'https://wiki.example.com/' } },
  });
  t.is(answer.status, 200, JSON.stringify(answer.body));
  const read = await hearth.call('GET', '/repos/alice/proj');
  t.true(read.body.has_issues);
  t.deepEqual(read.body.external_tracker, tracker);
  t.is(read.body.internal_tracker, undefined);
  t.deepEqual(read.body.external_wiki, { external_wiki_url: 'https://wiki.example.com/' });

  for (const body of [
    { has_issues: true, external_tracker: { external_tracker_url: 'ftp://tracker.example.com/' } },
    { has_issues: true, external_tracker: { external_tracker_url: `${hearth.rootUrl}api/v1/repos` } },
    { has_issues: true, external_tracker: { external_tracker_url: 'https://t.example.com/', external_tracker_format: 'https://t.example.com/{index/' } },
    { has_wiki: true, external_wiki: { external_wiki_url: 'not a url' } },
  ]) {
    const refused = await hearth.call('PATCH', '/repos/alice/proj', { auth: alice.bearer, body });
    t.is(refused.status, 422, JSON.stringify(body));
  }
  t.deepEqual((await hearth.call('GET', '/repos/alice/proj')).body.external_tracker, tracker, 'refused edits change nothing');

  await hearth.call('PATCH', '/repos/alice/proj', { auth: alice.bearer, body: { has_issues: true, has_wiki: true } });
  const internal = await hearth.call('GET', '/repos/alice/proj');
  t.is(internal.body.external_tracker, undefined);
  t.is(internal.body.external_wiki, undefined);
  t.truthy(internal.body.internal_tracker);

  await hearth.call('PATCH', '/repos/alice/proj', { auth: alice.bearer, body: { has_issues: true, external_tracker: tracker } });
  await hearth.call('PATCH', '/repos/alice/proj', { auth: alice.bearer, body: { has_issues: false } });
  const none = await hearth.call('GET', '/repos/alice/proj');
  t.false(none.body.has_issues);
  t.is(none.body.external_tracker, undefined);
  const [row] = await hearth.store.db.query<{ external_tracker: unknown }>('SELECT external_tracker FROM repository WHERE name = $1', ['proj']);
  t.is(row.external_tracker, null);
});

test('merge settings change while pull requests are on', async (t) => {
  const { hearth, alice } = await setUp(t);
  const settings = {
    ignore_whitespace_conflicts: true, allow_merge_commits: false, allow_rebase: false, allow_rebase_explicit: false, allow_squash_merge: false,
    allow_fast_forward_only_merge: false, allow_manual_merge: true, autodetect_manual_merge: true, allow_rebase_update: false,
    default_delete_branch_after_merge: true, default_merge_style: 'squash', default_allow_maintainer_edit: true,
  };
  const answer = await hearth.call('PATCH', '/repos/alice/proj', { auth: alice.bearer, body: settings });
  t.is(answer.status, 200, JSON.stringify(answer.body));
  const read = await hearth.call('GET', '/repos/alice/proj');
  const { allow_manual_merge: manual, autodetect_manual_merge: autodetect, ...shown } = settings;
  t.like(read.body, shown);
  const [row] = await hearth.store.db.query<{ allow_manual_merge: boolean; autodetect_manual_merge: boolean }>(
    'SELECT allow_manual_merge, autodetect_manual_merge FROM repository WHERE name = $1', ['proj'],
  );
  t.deepEqual(row, { allow_manual_merge: manual, autodetect_manual_merge: autodetect });

  await hearth.call('PATCH', '/repos/alice/proj', { auth: alice.bearer, body: { has_pull_requests: false, allow_rebase: true, default_merge_style: 'merge' } });
  const ignored = await hearth.call('GET', '/repos/alice/proj');
  t.like(ignored.body, { has_pull_requests: false, allow_rebase: false, default_merge_style: 'squash' });
  t.is((await hearth.call('PATCH', '/repos/alice/proj', { auth: alice.bearer, body: { default_merge_style: 'octopus' } })).status, 422);
});

test('mirror settings: enable_prune alone is saved, the interval has a minimum, a non-mirror answers 422', async (t) => {
  const { hearth, alice } = await setUp(t);
  for (const body of [{ enable_prune: false }, { mirror_interval: '1h' }]) {
    const refused = await hearth.call('PATCH', '/repos/alice/proj', { auth: alice.bearer, body });
    t.is(refused.status, 422, JSON.stringify(body));
  }
  const [{ id }] = await hearth.store.db.query<{ id: number }>(`UPDATE repository SET is_mirror = true WHERE name = 'proj' RETURNING id`);
  await hearth.store.db.query('INSERT INTO mirror (repo_id, interval_seconds, enable_prune) VALUES ($1, 28800, true)', [id]);
  const prune = async (): Promise<{ enable_prune: boolean; interval_seconds: number; next_update: Date | null }> =>
    (await hearth.store.db.query<{ enable_prune: boolean; interval_seconds: number; next_update: Date | null }>(
      'SELECT enable_prune, interval_seconds, next_update FROM mirror WHERE repo_id = $1', [id],
    ))[0];

  const pruneOnly = await hearth.call('PATCH', '/repos/alice/proj', { auth: alice.bearer, body: { enable_prune: false } });
  t.is(pruneOnly.status, 200, JSON.stringify(pruneOnly.body));
  t.false((await prune()).enable_prune);
  t.is((await hearth.call('GET', '/repos/alice/proj')).body.mirror_interval, '8h0m0s');

  const interval = await hearth.call('PATCH', '/repos/alice/proj', { auth: alice.bearer, body: { mirror_interval: '1h30m', enable_prune: true } });
  t.is(interval.body.mirror_interval, '1h30m0s');
  t.is((await hearth.call('GET', '/repos/alice/proj')).body.mirror_interval, '1h30m0s');
  const saved = await prune();
  t.true(saved.enable_prune);
  t.is(saved.interval_seconds, 5400);
  t.true(saved.next_update!.getTime() > Date.now() + 5000 * 1000);

  for (const mirror_interval of ['5m', 'often', '-1h']) {
    t.is((await hearth.call('PATCH', '/repos/alice/proj', { auth: alice.bearer, body: { mirror_interval } })).status, 422, mirror_interval);
  }
  const off = await hearth.call('PATCH', '/repos/alice/proj', { auth: alice.bearer, body: { mirror_interval: '0' } });
  t.is(off.body.mirror_interval, '0s');
  t.is((await prune()).next_update, null);
  t.is((await hearth.call('PATCH', '/repos/alice/proj', { auth: alice.bearer, body: { archived: true } })).status, 422, 'a mirror cannot be archived');
});
