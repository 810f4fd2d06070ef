import { existsSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth, type TestUser } from '../helpers/hearth.js';
import { commitFile, git, ok, refOnServer, remote, scratch } from '../git/git-client.js';

test('team members get their team mode on the repositories it includes; owners get everything', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const reader = await hearth.createUser('reader');
  const writer = await hearth.createUser('writer');
  const boss = await hearth.createUser('boss');
  const stranger = await hearth.createUser('stranger');
  const acme = await build.org(hearth, alice, { name: 'acme' });
  const made = await hearth.call('POST', '/orgs/acme/repos', { auth: alice.bearer, body: { name: 'app', private: true } });
  t.is(made.status, 201, JSON.stringify(made.body));
  t.deepEqual(made.body.permissions, { admin: true, push: true, pull: true }, 'the owner');
  t.is(made.body.owner.login, 'acme');
  const readers = (await build.team(hearth, acme, { name: 'readers', permission: 'read', units: ['repo.code'], members: [reader] })).id;
  const writers = (await build.team(hearth, acme, { name: 'writers', permission: 'write', units: ['repo.code'], members: [writer] })).id;
  const admins = (await build.team(hearth, acme, { name: 'admins', permission: 'admin', includesAllRepositories: true, members: [boss] })).id;
  for (const id of [readers, writers]) await hearth.call('PUT', `/teams/${id}/repos/acme/app`, { auth: alice.bearer });
  t.truthy(admins);

  const seen = async (user: TestUser) => hearth.call('GET', '/repos/acme/app', { auth: user.bearer });
  t.deepEqual((await seen(reader)).body.permissions, { admin: false, push: false, pull: true });
  t.deepEqual((await seen(writer)).body.permissions, { admin: false, push: true, pull: true });
  t.deepEqual((await seen(boss)).body.permissions, { admin: true, push: true, pull: true });
  t.is((await seen(stranger)).status, 404);
  t.is((await hearth.call('GET', '/repos/acme/app')).status, 404);

  t.is((await hearth.call('PATCH', '/repos/acme/app', { auth: writer.bearer, body: { description: 'x' } })).status, 403);
  t.is((await hearth.call('PATCH', '/repos/acme/app', { auth: boss.bearer, body: { description: 'by boss' } })).status, 200);
  const [{ description }] = await hearth.store.db.query<{ description: string }>(`SELECT description FROM repository WHERE lower_name = 'app'`);
  t.is(description, 'by boss');

  // Leaving the team takes the access away.
  await hearth.call('DELETE', `/teams/${readers}/members/reader`, { auth: alice.bearer });
  t.is((await seen(reader)).status, 404);
  await hearth.call('DELETE', `/teams/${writers}/repos/acme/app`, { auth: alice.bearer });
  t.is((await seen(writer)).status, 404);
});

test('public repositories of public, limited and private organizations, for anonymous callers, users and members', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const helper = await hearth.createUser('helper');
  for (const [org, visibility] of [['pub', 'public'], ['lim', 'limited'], ['priv', 'private']] as const) {
    await build.repo(hearth, await build.org(hearth, alice, { name: org, visibility }), { name: 'open' });
  }
  const status = async (org: string, user?: TestUser) => (await hearth.call('GET', `/repos/${org}/open`, { auth: user?.bearer })).status;
  t.deepEqual([await status('pub'), await status('lim'), await status('priv')], [200, 404, 404], 'anonymous');
  t.deepEqual([await status('pub', bob), await status('lim', bob), await status('priv', bob)], [200, 200, 404], 'another user');
  t.deepEqual([await status('pub', alice), await status('lim', alice), await status('priv', alice)], [200, 200, 200], 'a member');

  // A collaborator of one repository of a private organization sees that repository.
  await hearth.store.db.query(`INSERT INTO collaboration (repo_id, user_id, mode) SELECT id, $1, 1 FROM repository WHERE owner_name = 'priv'`, [helper.user.id]);
  t.is(await status('priv', helper), 200);

  const listed = async (org: string, user?: TestUser) => (await hearth.call('GET', `/orgs/${org}/repos`, { auth: user?.bearer }));
  t.deepEqual((await listed('pub')).body.map((r: { name: string }) => r.name), ['open']);
  t.is((await listed('lim')).status, 404);
  t.is((await listed('lim', bob)).body.length, 1);
  t.is((await listed('priv', bob)).status, 404);

  const search = await hearth.call('GET', '/repos/search?limit=50', { auth: bob.bearer });
  t.is(search.status, 200);
  const found = (search.body.data as Array<{ full_name: string }>).map((r) => r.full_name).sort();
  t.deepEqual(found, ['lim/open', 'pub/open'], 'searching does not reveal a private organization');
});

test("an organization's repository list shows what the caller may read", async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const acme = await build.org(hearth, alice, { name: 'acme' });
  for (const [name, isPrivate] of [['b-open', false], ['a-closed', true], ['c-team', true]] as const) {
    await build.repo(hearth, acme, { name, private: isPrivate });
  }
  const devs = (await build.team(hearth, acme, { name: 'devs', permission: 'read', units: ['repo.code'], members: [bob] })).id;
  await hearth.call('PUT', `/teams/${devs}/repos/acme/c-team`, { auth: alice.bearer });
  const names = async (user?: TestUser) => (await hearth.call('GET', '/orgs/acme/repos', { auth: user?.bearer })).body.map((r: { name: string }) => r.name);
  t.deepEqual(await names(), ['b-open']);
  t.deepEqual(await names(bob), ['b-open', 'c-team']);
  t.deepEqual(await names(alice), ['b-open', 'a-closed', 'c-team'], 'in creation order');
  const counted = await hearth.call('GET', '/orgs/acme/repos?limit=1', { auth: bob.bearer });
  t.is(counted.headers.get('x-total-count'), '2');
});

test('creating repositories in an organization: owners, can_create_org_repo teams (creator becomes admin), nobody else', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const maker = await hearth.createUser('maker');
  const reader = await hearth.createUser('reader');
  const acme = await build.org(hearth, alice, { name: 'acme' });
  await build.team(hearth, acme, { name: 'makers', permission: 'read', units: ['repo.code'], canCreateOrgRepo: true, members: [maker] });
  await build.team(hearth, acme, { name: 'readers', permission: 'read', units: ['repo.code'], members: [reader] });

  const refused = await hearth.call('POST', '/orgs/acme/repos', { auth: reader.bearer, body: { name: 'nope' } });
  t.is(refused.status, 403);
  t.is(refused.body.message, 'Given user is not allowed to create repository in organization.');
  t.false(existsSync(hearth.deps.git.pathOf('acme', 'nope')));

  const made = await hearth.call('POST', '/orgs/acme/repos', { auth: maker.bearer, body: { name: 'made', private: true } });
  t.is(made.status, 201, JSON.stringify(made.body));
  t.deepEqual(made.body.permissions, { admin: true, push: true, pull: true });
  const [collaboration] = await hearth.store.db.query<{ mode: number }>(
    `SELECT c.mode FROM collaboration c JOIN repository r ON r.id = c.repo_id WHERE r.lower_name = 'made' AND c.user_id = $1`,
    [maker.user.id],
  );
  t.is(collaboration.mode, 3, 'the creator administers it as a collaborator');
  t.true(existsSync(hearth.deps.git.pathOf('acme', 'made')));
  t.is((await hearth.call('PATCH', '/repos/acme/made', { auth: maker.bearer, body: { description: 'mine' } })).status, 200);

  const byOwner = await hearth.call('POST', '/orgs/acme/repos', { auth: alice.bearer, body: { name: 'owned' } });
  t.is(byOwner.status, 201);
  const ownerRows = await hearth.store.db.query(`SELECT 1 FROM collaboration c JOIN repository r ON r.id = c.repo_id WHERE r.lower_name = 'owned'`);
  t.is(ownerRows.length, 0, 'owners need no collaboration');

  const old = await hearth.call('POST', '/org/acme/repos', { auth: alice.bearer, body: { name: 'legacy' } });
  t.is(old.status, 201, 'the deprecated path still works');
  t.is(old.body.full_name, 'acme/legacy');
  const swagger = await hearth.call('GET', '/swagger.v1.json');
  t.true(swagger.body.paths['/org/{org}/repos'].post.deprecated);
  t.is(swagger.body.paths['/orgs/{org}/repos'].post.deprecated, undefined);

  t.is((await hearth.call('POST', '/orgs/nothing/repos', { auth: alice.bearer, body: { name: 'x' } })).status, 404);
  t.is((await hearth.call('POST', '/orgs/acme/repos', { auth: alice.bearer, body: { name: 'made' } })).status, 409);
  t.is((await hearth.call('POST', '/orgs/acme/repos', { auth: alice.bearer, body: { name: 'bad.git' } })).status, 422);
});

test('a team with unit permissions: the unit mode counts where a unit is asked for', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const acme = await build.org(hearth, alice, { name: 'acme' });
  await build.repo(hearth, acme, { name: 'app', private: true });
  const id = (await build.team(hearth, acme, { name: 'mixed', unitsMap: { 'repo.code': 'write', 'repo.issues': 'read' }, members: [bob] })).id;
  await hearth.call('PUT', `/teams/${id}/repos/acme/app`, { auth: alice.bearer });
  const { accessModeOf } = await import('../../db/models/access.js');
  const { findRepo } = await import('../../db/models/repos/repos.js');
  const repo = (await findRepo(hearth.store.db, 'acme', 'app'))!;
  t.is(await accessModeOf(hearth.store.db, bob.user, repo), 1, 'the team mode is the smallest granted unit mode');
  t.is(await accessModeOf(hearth.store.db, bob.user, repo, 'repo.code'), 2);
  t.is(await accessModeOf(hearth.store.db, bob.user, repo, 'repo.issues'), 1);
  t.is(await accessModeOf(hearth.store.db, bob.user, repo, 'repo.wiki'), 0);
});

test('git over HTTP follows team access: members clone, writers push, strangers are refused', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const reader = await hearth.createUser('reader');
  const writer = await hearth.createUser('writer');
  const stranger = await hearth.createUser('stranger');
  const acme = await build.org(hearth, alice, { name: 'acme', visibility: 'private' });
  await build.repo(hearth, acme, { name: 'app', autoInit: true });
  await build.team(hearth, acme, { name: 'readers', permission: 'read', units: ['repo.code'], includesAllRepositories: true, members: [reader] });
  await build.team(hearth, acme, { name: 'writers', permission: 'write', units: ['repo.code'], includesAllRepositories: true, members: [writer] });
  const home = scratch(t);
  const as = (user: TestUser) => remote(hearth, 'acme', 'app', { user: user.user.name, secret: user.token });

  await ok(git(home, ['clone', '--quiet', as(reader), 'reader']));
  t.true(existsSync(path.join(home, 'reader', 'README.md')));
  const anonymous = await git(home, ['clone', '--quiet', remote(hearth, 'acme', 'app'), 'anon']);
  t.not(anonymous.code, 0, 'the repository of a private organization is hidden from anonymous callers');
  const denied = await git(home, ['clone', '--quiet', as(stranger), 'stranger']);
  t.not(denied.code, 0);
  t.false(existsSync(path.join(home, 'stranger', 'README.md')));

  const before = await refOnServer(hearth, 'acme', 'app', 'refs/heads/main');
  const dir = path.join(home, 'reader');
  const commit = await commitFile(home, dir, 'change.txt', 'x\n');
  const refused = await git(home, ['push', as(reader), 'main'], dir);
  t.not(refused.code, 0, 'a read team cannot push');
  t.is(await refOnServer(hearth, 'acme', 'app', 'refs/heads/main'), before);
  const pushed = await git(home, ['push', as(writer), 'main'], dir);
  t.is(pushed.code, 0, pushed.stderr);
  t.is(await refOnServer(hearth, 'acme', 'app', 'refs/heads/main'), commit);
});

test('a restricted user sees only the organizations and repositories they belong to', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const rex = await hearth.createUser('rex');
  await hearth.store.db.query('UPDATE "user" SET restricted = true WHERE id = $1', [rex.user.id]);
  for (const org of ['pub', 'mine']) await build.repo(hearth, await build.org(hearth, alice, { name: org }), { name: 'open' });
  await build.team(hearth, 'mine', { name: 'devs', permission: 'read', units: ['repo.code'], includesAllRepositories: true, members: [rex] });
  t.is((await hearth.call('GET', '/orgs/pub', { auth: rex.bearer })).status, 404);
  t.is((await hearth.call('GET', '/repos/pub/open', { auth: rex.bearer })).status, 404);
  t.is((await hearth.call('GET', '/repos/pub/open')).status, 200, 'while anonymous callers see it');
  t.is((await hearth.call('GET', '/repos/mine/open', { auth: rex.bearer })).status, 200);
  t.deepEqual((await hearth.call('GET', '/orgs', { auth: rex.bearer })).body.map((o: { name: string }) => o.name), ['mine']);
});

test('token scopes: organization routes need the organization scope, and the user scope where Gitea asks for both', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  await build.org(hearth, alice, { name: 'acme' });
  const { createToken } = await import('../../db/models/users/tokens.js');
  const { inTx } = await import('../../db/data-source.js');
  const tokenWith = async (name: string, scopes: string[]) =>
    `token ${(await inTx(hearth.store, (tx) => createToken(tx, alice.user, { name, scopes }))).token}`;
  const orgOnly = await tokenWith('org', ['read:organization']);
  const both = await tokenWith('both', ['read:organization', 'read:user']);
  const repoOnly = await tokenWith('repo', ['write:repository']);
  t.is((await hearth.call('GET', '/user/orgs', { auth: orgOnly })).status, 403);
  t.is((await hearth.call('GET', '/user/orgs', { auth: both })).status, 200);
  t.is((await hearth.call('GET', '/orgs/acme', { auth: repoOnly })).status, 403);
  t.is((await hearth.call('POST', '/orgs', { auth: orgOnly, body: { username: 'more' } })).status, 403);
  t.is((await hearth.call('POST', '/orgs/acme/repos', { auth: repoOnly, body: { name: 'x' } })).status, 403);
  t.is((await hearth.call('GET', '/orgs/more', { auth: both })).status, 404);
});
