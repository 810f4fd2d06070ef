import path from 'node:path';
import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth, type TestHearth, type TestUser } from '../helpers/hearth.js';
import { commitFile, git, ok, refOnServer, remote, scratch } from '../git/git-client.js';

async function setUp(t: Parameters<typeof startHearth>[0]): Promise<{ hearth: TestHearth; alice: TestUser; bob: TestUser; home: string; work: string }> {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const made = await build.repo(hearth, alice, { name: 'guarded', autoInit: true });
  await hearth.store.db.query('INSERT INTO collaboration (repo_id, user_id, mode) VALUES ($1, $2, 2)', [made.id, bob.user.id]);
  const home = scratch(t);
  await ok(git(home, ['clone', '--quiet', remote(hearth, 'alice', 'guarded'), 'work']));
  return { hearth, alice, bob, home, work: path.join(home, 'work') };
}

const as = (hearth: TestHearth, who: TestUser): string => remote(hearth, 'alice', 'guarded', { user: who.user.name, secret: who.token });

test('a protected branch refuses pushes the rule does not allow, with the reason printed by git', async (t) => {
  const { hearth, alice, bob, home, work } = await setUp(t);
  const rule = await hearth.call('POST', '/repos/alice/guarded/branch_protections', { auth: alice.bearer, body: { rule_name: 'main' } });
  t.is(rule.status, 201, JSON.stringify(rule.body));
  t.false(rule.body.enable_push);

  const before = await refOnServer(hearth, 'alice', 'guarded', 'refs/heads/main');
  const next = await commitFile(home, work, 'a.txt', 'a\n');
  const refused = await git(home, ['push', as(hearth, alice), 'main'], work);
  t.not(refused.code, 0);
  t.regex(refused.stderr, /\[remote rejected\] main -> main \(Not allowed to push to protected branch main\)/);
  t.regex(refused.stderr, /remote: Hearth: Not allowed to push to protected branch main/);
  t.is(await refOnServer(hearth, 'alice', 'guarded', 'refs/heads/main'), before, 'the ref is unchanged on disk');

  // Pushing allowed, but only for whitelisted users: bob is, alice (the owner) is not.
  const edited = await hearth.call('PATCH', '/repos/alice/guarded/branch_protections/main', {
    auth: alice.bearer, body: { enable_push: true, enable_push_whitelist: true, push_whitelist_usernames: ['bob'] },
  });
  t.is(edited.status, 200, JSON.stringify(edited.body));
  t.deepEqual(edited.body.push_whitelist_usernames, ['bob']);
  t.not((await git(home, ['push', as(hearth, alice), 'main'], work)).code, 0);
  const byBob = await git(home, ['push', as(hearth, bob), 'main'], work);
  t.is(byBob.code, 0, byBob.stderr);
  t.is(await refOnServer(hearth, 'alice', 'guarded', 'refs/heads/main'), next);

  // Even a whitelisted user cannot rewrite history: the pre-receive hook sees the new objects and refuses.
  await ok(git(home, ['reset', '--quiet', '--hard', 'HEAD~1'], work));
  await commitFile(home, work, 'b.txt', 'b\n');
  const forced = await git(home, ['push', '--force', as(hearth, bob), 'main'], work);
  t.not(forced.code, 0);
  t.regex(forced.stderr, /remote: Hearth: branch main is protected from force push/);
  t.regex(forced.stderr, /pre-receive hook declined/);
  t.is(await refOnServer(hearth, 'alice', 'guarded', 'refs/heads/main'), next);

  // The default branch is never deleted by a push.
  const deleted = await git(home, ['push', as(hearth, bob), ':main'], work);
  t.not(deleted.code, 0);
  t.regex(deleted.stderr, /branch main is the default branch and cannot be deleted/);
  t.is(await refOnServer(hearth, 'alice', 'guarded', 'refs/heads/main'), next);
});

test('globs protect families of branches; an exact rule wins; one refused ref refuses the push', async (t) => {
  const { hearth, alice, home, work } = await setUp(t);
  const pushed = await git(home, ['push', as(hearth, alice), 'HEAD:refs/heads/release/1.0', 'HEAD:refs/heads/release/special', 'HEAD:refs/heads/release/deep/x'], work);
  t.is(pushed.code, 0, pushed.stderr);
  for (const body of [{ rule_name: 'release/*' }, { rule_name: 'release/special', enable_push: true }]) {
    t.is((await hearth.call('POST', '/repos/alice/guarded/branch_protections', { auth: alice.bearer, body })).status, 201);
  }
  const tip = await refOnServer(hearth, 'alice', 'guarded', 'refs/heads/main');
  const next = await commitFile(home, work, 'c.txt', 'c\n');

  const special = await git(home, ['push', as(hearth, alice), 'HEAD:refs/heads/release/special'], work);
  t.is(special.code, 0, special.stderr);
  t.is(await refOnServer(hearth, 'alice', 'guarded', 'refs/heads/release/special'), next);
  // `*` stays within a segment, so release/deep/x is not protected by release/*.
  t.is((await git(home, ['push', as(hearth, alice), 'HEAD:refs/heads/release/deep/x'], work)).code, 0);

  const mixed = await git(home, ['push', as(hearth, alice), 'HEAD:refs/heads/free', 'HEAD:refs/heads/release/1.0'], work);
  t.not(mixed.code, 0);
  t.regex(mixed.stderr, /release\/1\.0 \(Not allowed to push to protected branch release\/1\.0\)/);
  t.regex(mixed.stderr, /free \(another ref in this push was refused\)/);
  t.is(await refOnServer(hearth, 'alice', 'guarded', 'refs/heads/free'), null);
  t.is(await refOnServer(hearth, 'alice', 'guarded', 'refs/heads/release/1.0'), tip);

  const removal = await git(home, ['push', as(hearth, alice), ':refs/heads/release/1.0'], work);
  t.regex(removal.stderr, /branch release\/1\.0 is protected from deletion/);
  t.is(await refOnServer(hearth, 'alice', 'guarded', 'refs/heads/release/1.0'), tip);

  const branch = await hearth.call('GET', '/repos/alice/guarded/branches/release/1.0', { auth: alice.bearer });
  t.is(branch.status, 200, JSON.stringify(branch.body));
  t.true(branch.body.protected);
  t.is(branch.body.effective_branch_protection_name, 'release/*');
  t.false(branch.body.user_can_push);
  t.is((await hearth.call('GET', '/repos/alice/guarded/branches/release/special', { auth: alice.bearer })).body.effective_branch_protection_name, 'release/special');
});

test('branch protection rules: create, list, read, edit and delete, with Gitea answers for bad requests', async (t) => {
  const { hearth, alice, bob } = await setUp(t);
  const base = '/repos/alice/guarded/branch_protections';
  const made = await hearth.call('POST', base, {
    auth: alice.bearer,
    body: {
      branch_name: 'main', enable_push: true, enable_push_whitelist: true, push_whitelist_usernames: ['bob', 'alice'],
      merge_whitelist_usernames: ['bob'], enable_status_check: true, status_check_contexts: ['ci/build'], required_approvals: 2,
      protected_file_patterns: '*.lock',
    },
  });
  t.is(made.status, 201, JSON.stringify(made.body));
  t.like(made.body, {
    rule_name: 'main', branch_name: 'main', enable_push: true, enable_push_whitelist: true, enable_status_check: true,
    status_check_contexts: ['ci/build'], required_approvals: 2, protected_file_patterns: '*.lock', push_whitelist_teams: [],
  });
  t.deepEqual([...made.body.push_whitelist_usernames].sort(), ['alice', 'bob']);
  t.is((await hearth.call('POST', base, { auth: alice.bearer, body: { rule_name: 'main' } })).status, 403, 'a rule of that name exists');
  t.is((await hearth.call('POST', base, { auth: alice.bearer, body: {} })).status, 400);
  t.is((await hearth.call('POST', base, { auth: alice.bearer, body: { rule_name: 'x', push_whitelist_usernames: ['nobody'] } })).status, 422);
  t.is((await hearth.call('POST', base, { auth: bob.bearer, body: { rule_name: 'y' } })).status, 403, 'writers are not repository admins');
  t.is((await hearth.call('GET', base)).status, 401);

  const glob = await hearth.call('POST', base, { auth: alice.bearer, body: { rule_name: 'feature/**' } });
  t.is(glob.body.branch_name, '', 'a glob rule names no branch');
  const list = await hearth.call('GET', base, { auth: alice.bearer });
  t.deepEqual(list.body.map((r: { rule_name: string }) => r.rule_name), ['main', 'feature/**']);
  t.is((await hearth.call('GET', `${base}/feature/**`, { auth: alice.bearer })).body.rule_name, 'feature/**');

  const edited = await hearth.call('PATCH', `${base}/main`, { auth: alice.bearer, body: { enable_push: false, required_approvals: 1 } });
  t.is(edited.status, 200);
  t.like(edited.body, { enable_push: false, enable_push_whitelist: false, required_approvals: 1, enable_status_check: true });
  const [row] = await hearth.store.db.query<{ can_push: boolean; required_approvals: number }>(
    'SELECT can_push, required_approvals FROM protected_branch WHERE rule_name = $1', ['main'],
  );
  t.deepEqual(row, { can_push: false, required_approvals: 1 });

  const branch = await hearth.call('GET', '/repos/alice/guarded/branches/main', { auth: bob.bearer });
  t.like(branch.body, { protected: true, required_approvals: 1, enable_status_check: true, status_check_contexts: ['ci/build'], user_can_push: false, user_can_merge: true });
  t.is(branch.body.effective_branch_protection_name, '', 'only repository admins are told the rule');

  t.is((await hearth.call('DELETE', `${base}/main`, { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('GET', `${base}/main`, { auth: alice.bearer })).status, 404);
  t.is((await hearth.call('PATCH', `${base}/main`, { auth: alice.bearer, body: {} })).status, 404);
  t.is((await hearth.call('DELETE', `${base}/main`, { auth: alice.bearer })).status, 404);
  const after = await hearth.call('GET', '/repos/alice/guarded/branches/main', { auth: bob.bearer });
  t.like(after.body, { protected: false, user_can_push: true, user_can_merge: true });
});

test('team whitelists: members of a named team of the organization may push, other writers may not', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const carol = await hearth.createUser('carol');
  const acme = await build.org(hearth, alice, { name: 'acme' });
  await build.repo(hearth, acme, { name: 'r', autoInit: true });
  await build.team(hearth, acme, { name: 'devs', permission: 'write', units: ['repo.code'], includesAllRepositories: true, members: [bob] });
  t.is((await hearth.call('PUT', '/repos/acme/r/collaborators/carol', { auth: alice.bearer, body: { permission: 'write' } })).status, 204);

  const unknown = await hearth.call('POST', '/repos/acme/r/branch_protections', {
    auth: alice.bearer, body: { rule_name: 'main', enable_push: true, enable_push_whitelist: true, push_whitelist_teams: ['nobody'] },
  });
  t.is(unknown.status, 422);
  t.regex(unknown.body.message, /team does not exist/);
  const rule = await hearth.call('POST', '/repos/acme/r/branch_protections', {
    auth: alice.bearer, body: { rule_name: 'main', enable_push: true, enable_push_whitelist: true, push_whitelist_teams: ['devs'] },
  });
  t.is(rule.status, 201, JSON.stringify(rule.body));
  t.deepEqual(rule.body.push_whitelist_teams, ['devs']);
  t.deepEqual((await hearth.call('GET', '/repos/acme/r/branch_protections/main', { auth: alice.bearer })).body.push_whitelist_teams, ['devs']);

  t.true((await hearth.call('GET', '/repos/acme/r/branches/main', { auth: bob.bearer })).body.user_can_push);
  t.false((await hearth.call('GET', '/repos/acme/r/branches/main', { auth: carol.bearer })).body.user_can_push);
  const byBob = await hearth.call('POST', '/repos/acme/r/contents/bob.txt', { auth: bob.bearer, body: { content: Buffer.from('b').toString('base64') } });
  t.is(byBob.status, 201, JSON.stringify(byBob.body));
  const byCarol = await hearth.call('POST', '/repos/acme/r/contents/carol.txt', { auth: carol.bearer, body: { content: Buffer.from('c').toString('base64') } });
  t.is(byCarol.status, 403);
});
