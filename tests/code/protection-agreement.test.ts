import { mkdirSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import { startHearth, type TestHearth, type TestUser } from '../helpers/hearth.js';
import { commitFile, git, ok, refOnServer, remote, scratch } from '../git/git-client.js';

/**
 * What the branch view tells a user (`user_can_push`, `user_can_merge`) is what the operations then do: git push,
 * a commit through the contents API, a merge. Each pair is read from the same rule (db/models/code/branch-protection.ts).
 */

interface Org {
  hearth: TestHearth;
  owner: TestUser;
}

async function orgRepo(t: Parameters<typeof startHearth>[0]): Promise<Org & { repo: Awaited<ReturnType<typeof build.repo>>; org: Awaited<ReturnType<typeof build.org>> }> {
  const hearth = await startHearth(t);
  const owner = await hearth.createUser('owner');
  const org = await build.org(hearth, owner, { name: 'acme' });
  const repo = await build.repo(hearth, org, { name: 'proj', autoInit: true });
  return { hearth, owner, org, repo };
}

const branchView = async (hearth: TestHearth, who: TestUser): Promise<{ user_can_push: boolean; user_can_merge: boolean }> => {
  const answer = await hearth.call('GET', '/repos/acme/proj/branches/main', { auth: who.bearer });
  if (answer.status !== 200) throw new Error(JSON.stringify(answer.body));
  return answer.body;
};

/** A git push of one new commit to main as `who` (changing `file`, and `also`): whether the server's main moved to it, and what git printed. */
async function gitPush(
  t: Parameters<typeof startHearth>[0], hearth: TestHearth, who: TestUser, file: string, ...also: string[]
): Promise<{ moved: boolean; stderr: string }> {
  const home = scratch(t);
  await ok(git(home, ['clone', '--quiet', remote(hearth, 'acme', 'proj'), 'work']));
  const work = path.join(home, 'work');
  let next = '';
  for (const changed of [...also, file]) {
    mkdirSync(path.dirname(path.join(work, changed)), { recursive: true });
    next = await commitFile(home, work, changed, `${changed} by ${who.user.name}\n`);
  }
  const pushed = await git(home, ['push', remote(hearth, 'acme', 'proj', { user: who.user.name, secret: who.token }), 'main'], work);
  await drain(hearth, 'branch-sync');
  return { moved: (await refOnServer(hearth, 'acme', 'proj', 'refs/heads/main')) === next, stderr: pushed.stderr };
}

const gitPushes = async (t: Parameters<typeof startHearth>[0], hearth: TestHearth, who: TestUser, file: string): Promise<boolean> =>
  (await gitPush(t, hearth, who, file)).moved;

/** A new file on main through the contents API as `who`: whether it was committed (and main holds it). */
async function contentsCommits(hearth: TestHearth, who: TestUser, file: string): Promise<boolean> {
  const before = await refOnServer(hearth, 'acme', 'proj', 'refs/heads/main');
  const answer = await hearth.call('POST', `/repos/acme/proj/contents/${file}`, {
    auth: who.bearer, body: { branch: 'main', content: Buffer.from(`${file}\n`).toString('base64') },
  });
  const after = await refOnServer(hearth, 'acme', 'proj', 'refs/heads/main');
  if (answer.status === 201) return after === answer.body.commit.sha;
  if (after !== before) throw new Error('a refused commit moved main');
  return false;
}

test('the push whitelist: user_can_push is what git push and the contents API do, for a listed user, a listed team and a writer off it', async (t) => {
  const { hearth, owner, org, repo } = await orgRepo(t);
  const listed = await hearth.createUser('listed');
  const teamed = await hearth.createUser('teamed');
  const writer = await hearth.createUser('writer');
  await build.team(hearth, org, { name: 'pushers', permission: 'write', members: [teamed], repos: [repo] });
  await build.team(hearth, org, { name: 'writers', permission: 'write', members: [listed, writer], repos: [repo] });
  const rule = await hearth.call('POST', '/repos/acme/proj/branch_protections', {
    auth: owner.bearer, body: { rule_name: 'main', enable_push: true, enable_push_whitelist: true, push_whitelist_usernames: ['listed'], push_whitelist_teams: ['pushers'] },
  });
  t.is(rule.status, 201, JSON.stringify(rule.body));

  for (const [who, expected] of [[listed, true], [teamed, true], [writer, false]] as const) {
    const view = await branchView(hearth, who);
    t.is(view.user_can_push, expected, `${who.user.name}: the view`);
    t.is(await gitPushes(t, hearth, who, `git-${who.user.name}.txt`), expected, `${who.user.name}: git push`);
    t.is(await contentsCommits(hearth, who, `api-${who.user.name}.txt`), expected, `${who.user.name}: the contents API`);
  }
});

test('teams that write other units but not the code: the view says no push and no merge, as git, the contents API and the merge answer', async (t) => {
  const { hearth, owner, org, repo } = await orgRepo(t);
  const reviewer = await hearth.createUser('reviewer');
  const issuer = await hearth.createUser('issuer');
  await build.team(hearth, org, {
    name: 'triage', permission: 'write', unitsMap: { 'repo.code': 'read', 'repo.issues': 'write', 'repo.pulls': 'write' }, members: [reviewer], repos: [repo],
  });
  await build.team(hearth, org, { name: 'tracker', permission: 'write', units: ['repo.issues', 'repo.pulls'], members: [issuer], repos: [repo] });
  await build.commit(hearth, repo, { files: { 'f.txt': 'f\n' }, newBranch: 'feature' });
  await drain(hearth, 'branch-sync');
  t.is((await hearth.call('POST', '/repos/acme/proj/pulls', { auth: owner.bearer, body: { head: 'feature', base: 'main', title: 'F' } })).status, 201);

  // without a rule, then under one that lets every writer push and merge
  for (const protectedNow of [false, true]) {
    if (protectedNow) {
      t.is((await hearth.call('POST', '/repos/acme/proj/branch_protections', { auth: owner.bearer, body: { rule_name: 'main', enable_push: true } })).status, 201);
    }
    for (const who of [reviewer, issuer]) {
      const label = `${who.user.name}, protected: ${protectedNow}`;
      const view = await branchView(hearth, who);
      t.false(view.user_can_push, label);
      t.false(view.user_can_merge, label);
      t.false(await gitPushes(t, hearth, who, `git-${who.user.name}-${protectedNow}.txt`), label);
      t.false(await contentsCommits(hearth, who, `api-${who.user.name}-${protectedNow}.txt`), label);
      const merge = await hearth.call('POST', '/repos/acme/proj/pulls/1/merge', { auth: who.bearer, body: { Do: 'merge' } });
      t.is(merge.status, 405, `${label}: ${JSON.stringify(merge.body)}`);
    }
  }
  t.is((await hearth.call('GET', '/repos/acme/proj/pulls/1/merge')).status, 404);
});

test('protected file patterns: a file the contents API refuses is one a merge and a git push are refused for, matched as Gitea globs them', async (t) => {
  const { hearth, owner, repo } = await orgRepo(t);
  const rule = await hearth.call('POST', '/repos/acme/proj/branch_protections', {
    auth: owner.bearer, body: { rule_name: 'main', enable_push: true, protected_file_patterns: '*.md' },
  });
  t.is(rule.status, 201, JSON.stringify(rule.body));
  // `.` separates like `/`: `*.md` is guide.md, not notes.v2.md (Gitea's getFilePatterns)
  for (const [file, isProtected] of [['guide.md', true], ['notes.v2.md', false]] as const) {
    const branch = `change-${file.toLowerCase().replace(/\W/g, '-')}`;
    await build.commit(hearth, repo, { files: { [file]: 'changed\n' }, newBranch: branch });
    await drain(hearth, 'branch-sync');
    const pull = await hearth.call('POST', '/repos/acme/proj/pulls', { auth: owner.bearer, body: { head: branch, base: 'main', title: file } });
    t.is(pull.status, 201);

    const write = await hearth.call('POST', `/repos/acme/proj/contents/${file}`, {
      auth: owner.bearer, body: { branch: 'main', content: Buffer.from('changed\n').toString('base64') },
    });
    t.is(write.status, isProtected ? 403 : 201, `${file}: ${JSON.stringify(write.body)}`);
    if (isProtected) t.is(write.body.message, `path is protected and can not be changed [path: ${file}]`);

    const merge = await hearth.call('POST', `/repos/acme/proj/pulls/${pull.body.number}/merge`, { auth: owner.bearer, body: { Do: 'merge' } });
    t.is(merge.status, isProtected ? 405 : 200, `${file}: ${JSON.stringify(merge.body)}`);
    if (isProtected) t.regex(merge.body.message, /Changed protected files/);
    const merged = (await hearth.call('GET', `/repos/acme/proj/pulls/${pull.body.number}`)).body;
    t.is(merged.merged, !isProtected);

    // git push, by someone the rule lets push, is held to the same patterns (Gitea's pre-receive)
    const pushed = await gitPush(t, hearth, owner, file);
    t.is(pushed.moved, !isProtected, `${file}: ${pushed.stderr}`);
    if (isProtected) t.regex(pushed.stderr, new RegExp(`remote: Hearth: branch main is protected from changing file ${file.replace('.', '\\.')}`));
  }
  // a push touching a protected file among others is refused whole
  const home = scratch(t);
  await ok(git(home, ['clone', '--quiet', remote(hearth, 'acme', 'proj'), 'work']));
  const work = path.join(home, 'work');
  await commitFile(home, work, 'plain.txt', 'plain\n');
  await commitFile(home, work, 'Other.MD', 'other\n');
  const before = await refOnServer(hearth, 'acme', 'proj', 'refs/heads/main');
  const mixed = await git(home, ['push', remote(hearth, 'acme', 'proj', { user: 'owner', secret: owner.token }), 'main'], work);
  t.not(mixed.code, 0);
  t.regex(mixed.stderr, /protected from changing file Other\.MD/, 'the path as pushed, matched without case');
  t.is(await refOnServer(hearth, 'acme', 'proj', 'refs/heads/main'), before);
});

test('the approvals whitelist: a review is shown official exactly when its approval counts towards the required approvals', async (t) => {
  const { hearth, owner, org, repo } = await orgRepo(t);
  const listed = await hearth.createUser('listed');
  const writer = await hearth.createUser('writer');
  await build.team(hearth, org, { name: 'writers', permission: 'write', units: ['repo.code', 'repo.pulls'], members: [listed, writer], repos: [repo] });
  const rule = await hearth.call('POST', '/repos/acme/proj/branch_protections', {
    auth: owner.bearer, body: { rule_name: 'main', enable_push: true, required_approvals: 1, enable_approvals_whitelist: true, approvals_whitelist_username: ['listed'] },
  });
  t.is(rule.status, 201, JSON.stringify(rule.body));
  await build.commit(hearth, repo, { files: { 'f.txt': 'f\n' }, newBranch: 'feature' });
  await drain(hearth, 'branch-sync');
  t.is((await hearth.call('POST', '/repos/acme/proj/pulls', { auth: owner.bearer, body: { head: 'feature', base: 'main', title: 'F' } })).status, 201);

  const byWriter = await hearth.call('POST', '/repos/acme/proj/pulls/1/reviews', { auth: writer.bearer, body: { event: 'APPROVED' } });
  t.is(byWriter.status, 200, JSON.stringify(byWriter.body));
  t.false(byWriter.body.official);
  const early = await hearth.call('POST', '/repos/acme/proj/pulls/1/merge', { auth: owner.bearer, body: { Do: 'merge' } });
  t.is(early.status, 405);
  t.regex(early.body.message, /Does not have enough approvals/);

  const byListed = await hearth.call('POST', '/repos/acme/proj/pulls/1/reviews', { auth: listed.bearer, body: { event: 'APPROVED' } });
  t.true(byListed.body.official);
  const shown = (await hearth.call('GET', '/repos/acme/proj/pulls/1/reviews', { auth: owner.bearer })).body as Array<{ user: { login: string }; official: boolean }>;
  t.deepEqual(shown.map((r) => [r.user.login, r.official]), [['writer', false], ['listed', true]]);
  t.is((await hearth.call('POST', '/repos/acme/proj/pulls/1/merge', { auth: owner.bearer, body: { Do: 'merge' } })).status, 200);
  t.is((await hearth.call('GET', '/repos/acme/proj/pulls/1/merge')).status, 204);
});

test('unprotected file patterns: a pusher off the push whitelist pushes only unprotected files, by git as by the contents API', async (t) => {
  const { hearth, owner, org, repo } = await orgRepo(t);
  const writer = await hearth.createUser('writer');
  await build.team(hearth, org, { name: 'writers', permission: 'write', members: [writer], repos: [repo] });
  const rule = await hearth.call('POST', '/repos/acme/proj/branch_protections', {
    auth: owner.bearer, body: { rule_name: 'main', enable_push: true, enable_push_whitelist: true, push_whitelist_usernames: [], unprotected_file_patterns: 'docs/**' },
  });
  t.is(rule.status, 201, JSON.stringify(rule.body));
  t.false((await branchView(hearth, writer)).user_can_push, 'off the whitelist: not a pusher of the branch as such');

  t.true((await gitPush(t, hearth, writer, 'docs/guide.txt')).moved);
  t.true(await contentsCommits(hearth, writer, 'docs/api.txt'));

  const code = await gitPush(t, hearth, writer, 'src.txt');
  t.false(code.moved);
  t.regex(code.stderr, /remote: Hearth: Not allowed to push to protected branch main/);
  t.false(await contentsCommits(hearth, writer, 'src2.txt'));

  const mixed = await gitPush(t, hearth, writer, 'docs/more.txt', 'src3.txt');
  t.false(mixed.moved, 'one file outside the patterns refuses the push');
  const files = await ok(git(scratch(t), ['--git-dir', hearth.deps.git.pathOf('acme', 'proj'), 'ls-tree', '-r', '--name-only', 'main']));
  t.deepEqual(files.trim().split('\n').sort(), ['README.md', 'docs/api.txt', 'docs/guide.txt']);
});
