import { existsSync } from 'node:fs';
import test from 'ava';
import { okOnDisk } from '../git/git-client.js';
import { build } from '../helpers/build.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';

const refsOf = (hearth: TestHearth, owner: string, repo: string): Promise<string> =>
  okOnDisk(['for-each-ref', '--format=%(refname) %(objectname)'], hearth.deps.git.pathOf(owner, repo));

const countOf = async (hearth: TestHearth, sql: string, params: unknown[]): Promise<number> =>
  (await hearth.store.db.query<{ n: number }>(`SELECT (${sql})::int AS n`, params))[0].n;

test('a fork copies the refs and branch rows, points at its parent and counts on it', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const base = await build.repo(hearth, alice, { name: 'lib', description: 'the lib', autoInit: true, defaultBranch: 'trunk' });
  const dir = hearth.deps.git.pathOf('alice', 'lib');
  await okOnDisk(['update-ref', 'refs/heads/feature', 'refs/heads/trunk'], dir);
  await okOnDisk(['tag', 'v1', 'refs/heads/trunk'], dir);

  const fork = await hearth.call('POST', '/repos/alice/lib/forks', { auth: bob.bearer, body: {} });
  t.is(fork.status, 202, JSON.stringify(fork.body));
  t.like(fork.body, {
    full_name: 'bob/lib', fork: true, private: false, empty: false, description: 'the lib', default_branch: 'trunk',
    has_issues: false, has_wiki: false, has_projects: false, has_releases: false, has_packages: false, has_actions: false, has_pull_requests: true,
    permissions: { admin: true, push: true, pull: true },
  });
  t.is(fork.body.parent.full_name, 'alice/lib');
  t.is(await refsOf(hearth, 'bob', 'lib'), await refsOf(hearth, 'alice', 'lib'));
  const branches = await hearth.store.db.query<{ name: string; commit_id: string }>(
    'SELECT name, commit_id FROM branch WHERE repo_id = $1 ORDER BY name', [fork.body.id],
  );
  t.deepEqual(branches.map((b) => b.name), ['feature', 'trunk']);
  t.is(branches[1].commit_id, (await okOnDisk(['rev-parse', 'refs/heads/trunk'], dir)));
  const tagReleases = await hearth.store.db.query<{ tag_name: string; is_tag: boolean; sha1: string }>(
    'SELECT tag_name, is_tag, sha1 FROM release WHERE repo_id = $1', [fork.body.id],
  );
  t.deepEqual(tagReleases, [{ tag_name: 'v1', is_tag: true, sha1: branches[1].commit_id }]);

  const parent = await hearth.call('GET', '/repos/alice/lib');
  t.is(parent.body.forks_count, 1);
  const read = await hearth.call('GET', '/repos/bob/lib');
  t.is(read.body.parent.id, base.id);
  const forks = await hearth.call('GET', '/repos/alice/lib/forks');
  t.is(forks.status, 200);
  t.is(forks.headers.get('x-total-count'), '1');
  t.deepEqual(forks.body.map((r: { full_name: string }) => r.full_name), ['bob/lib']);
  t.is(await countOf(hearth, 'SELECT num_repos FROM "user" WHERE id = $1', [bob.user.id]), 1);
});

test('one fork per owner; the same name twice is a conflict; a fork can take another name', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  await build.repo(hearth, alice, { name: 'lib', autoInit: true });
  t.is((await hearth.call('POST', '/repos/alice/lib/forks', { auth: bob.bearer, body: { name: 'mine' } })).status, 202);
  t.true(existsSync(hearth.deps.git.pathOf('bob', 'mine')));
  const again = await hearth.call('POST', '/repos/alice/lib/forks', { auth: bob.bearer, body: { name: 'second' } });
  t.is(again.status, 409);
  t.regex(again.body.message, /already forked/);
  t.false(existsSync(hearth.deps.git.pathOf('bob', 'second')));

  const own = await hearth.call('POST', '/repos/alice/lib/forks', { auth: alice.bearer, body: {} });
  t.is(own.status, 409, 'forking one\'s own repository under its own name');
  const ownRenamed = await hearth.call('POST', '/repos/alice/lib/forks', { auth: alice.bearer, body: { name: 'lib-copy' } });
  t.is(ownRenamed.status, 202);
  t.is(ownRenamed.body.parent.full_name, 'alice/lib');

  const badName = await hearth.call('POST', '/repos/alice/lib-copy/forks', { auth: bob.bearer, body: { name: 'x.git' } });
  t.is(badName.status, 422);
  t.is((await hearth.call('GET', '/repos/alice/lib')).body.forks_count, 2, 'refused forks are not counted');
  t.is((await hearth.call('GET', '/repos/alice/lib-copy')).body.forks_count, 0);
  t.is((await hearth.call('POST', '/repos/alice/lib/forks', { body: {} })).status, 401);
  t.is((await hearth.call('POST', '/repos/alice/nothing/forks', { auth: bob.bearer, body: {} })).status, 404);
});

test('a private repository can be forked by a reader; the fork stays private and is listed only to those who may see it', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const carol = await hearth.createUser('carol');
  const dave = await hearth.createUser('dave');
  await build.repo(hearth, alice, { name: 'secret', private: true, autoInit: true });
  t.is((await hearth.call('POST', '/repos/alice/secret/forks', { auth: carol.bearer, body: {} })).status, 404);
  await hearth.call('PUT', '/repos/alice/secret/collaborators/carol', { auth: alice.bearer, body: { permission: 'read' } });
  const fork = await hearth.call('POST', '/repos/alice/secret/forks', { auth: carol.bearer, body: {} });
  t.is(fork.status, 202, JSON.stringify(fork.body));
  t.true(fork.body.private);
  t.is((await hearth.call('GET', '/repos/carol/secret', { auth: dave.bearer })).status, 404);

  const seenByAlice = await hearth.call('GET', '/repos/alice/secret/forks', { auth: alice.bearer });
  t.deepEqual(seenByAlice.body, [], 'the owner of the base cannot read the private fork');
  t.is(seenByAlice.headers.get('x-total-count'), '0');
  const seenByCarol = await hearth.call('GET', '/repos/alice/secret/forks', { auth: carol.bearer });
  t.deepEqual(seenByCarol.body.map((r: { full_name: string }) => r.full_name), ['carol/secret']);
  const edit = await hearth.call('PATCH', '/repos/carol/secret', { auth: carol.bearer, body: { private: false } });
  t.true(edit.body.private, "a fork's visibility follows its base");
});

test('an empty repository forks into an empty repository', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  await build.repo(hearth, alice, { name: 'blank' });
  const fork = await hearth.call('POST', '/repos/alice/blank/forks', { auth: bob.bearer, body: {} });
  t.is(fork.status, 202, JSON.stringify(fork.body));
  t.true(fork.body.empty);
  t.is(await refsOf(hearth, 'bob', 'blank'), '');
  t.is(await countOf(hearth, 'SELECT count(*) FROM branch WHERE repo_id = $1', [fork.body.id]), 0);
});

test('forking into an organization needs a member who may create repositories there', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  await build.repo(hearth, bob, { name: 'tool', autoInit: true });
  await build.org(hearth, alice, { name: 'guild' });

  t.is((await hearth.call('POST', '/repos/bob/tool/forks', { auth: alice.bearer, body: { organization: 'nowhere' } })).status, 422);
  const outsider = await hearth.call('POST', '/repos/bob/tool/forks', { auth: bob.bearer, body: { organization: 'guild' } });
  t.is(outsider.status, 403);
  const fork = await hearth.call('POST', '/repos/bob/tool/forks', { auth: alice.bearer, body: { organization: 'guild' } });
  t.is(fork.status, 202, JSON.stringify(fork.body));
  t.is(fork.body.full_name, 'guild/tool');
  t.true(existsSync(hearth.deps.git.pathOf('guild', 'tool')));
  const listed = await hearth.call('GET', '/repos/bob/tool/forks');
  t.deepEqual(listed.body.map((r: { full_name: string }) => r.full_name), ['guild/tool']);
});
