import { execFileSync } from 'node:child_process';
import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth } from '../helpers/hearth.js';

const b64 = (text: string): string => Buffer.from(text).toString('base64');
const git = (dir: string, ...args: string[]): string => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();

test('create, read, update and delete a file; each write is one commit on the branch, recorded in the database', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  await build.repo(hearth, alice, { name: 'notes', autoInit: true });
  const dir = hearth.deps.git.pathOf('alice', 'notes');
  const before = git(dir, 'rev-parse', 'refs/heads/main');

  const made = await hearth.call('POST', '/repos/alice/notes/contents/docs/deep/a.txt', {
    auth: alice.bearer, body: { content: b64('hello\n'), message: 'add a' },
  });
  t.is(made.status, 201, JSON.stringify(made.body));
  t.is(made.body.content.path, 'docs/deep/a.txt');
  t.is(made.body.content.name, 'a.txt');
  t.is(made.body.content.type, 'file');
  t.is(made.body.content.size, 6);
  t.is(Buffer.from(made.body.content.content, 'base64').toString(), 'hello\n');
  t.is(made.body.content.encoding, 'base64');
  t.is(made.body.content.last_commit_sha, made.body.commit.sha);
  t.is(made.body.content.url, `${hearth.rootUrl}api/v1/repos/alice/notes/contents/docs/deep/a.txt?ref=main`);
  t.is(made.body.content.download_url, `${hearth.rootUrl}alice/notes/raw/branch/main/docs/deep/a.txt`);
  t.is(made.body.commit.message, 'add a\n');
  t.is(made.body.commit.author.email, 'alice@example.com');
  t.deepEqual(made.body.commit.parents.map((p: { sha: string }) => p.sha), [before]);
  t.is(made.body.verification.reason, 'gpg.error.not_signed_commit');
  t.false(made.body.verification.verified);
  const head = git(dir, 'rev-parse', 'refs/heads/main');
  t.is(head, made.body.commit.sha, 'the branch moved to the new commit');
  t.is(git(dir, 'show', `${head}:docs/deep/a.txt`), 'hello');
  const [branch] = await hearth.store.db.query<{ commit_id: string; commit_message: string; pusher_id: string }>(
    "SELECT commit_id, commit_message, pusher_id FROM branch WHERE name = 'main'",
  );
  t.is(branch.commit_id, head);
  t.is(branch.commit_message, 'add a');
  t.is(Number(branch.pusher_id), alice.user.id);
  const jobs = await hearth.store.db.query<{ data: { updates: Array<{ ref: string; oldSha: string; newSha: string }> } }>(
    "SELECT data FROM pgboss.job WHERE name = 'branch-sync'",
  );
  t.deepEqual(jobs.map((j) => j.data.updates), [[{ ref: 'refs/heads/main', oldSha: before, newSha: head }]]);

  const read = await hearth.call('GET', '/repos/alice/notes/contents/docs/deep/a.txt');
  t.is(read.status, 200);
  t.is(read.body.sha, made.body.content.sha);
  const listed = await hearth.call('GET', '/repos/alice/notes/contents/docs');
  t.deepEqual(listed.body.map((e: { name: string; type: string; content: null }) => [e.name, e.type, e.content]), [['deep', 'dir', null]]);
  const root = await hearth.call('GET', '/repos/alice/notes/contents');
  t.deepEqual(root.body.map((e: { path: string }) => e.path), ['README.md', 'docs']);
  t.is(root.body.find((e: { path: string }) => e.path === 'README.md').last_commit_sha, before);

  const stale = await hearth.call('PUT', '/repos/alice/notes/contents/docs/deep/a.txt', {
    auth: alice.bearer, body: { content: b64('x'), sha: '0'.repeat(40) },
  });
  t.is(stale.status, 422, JSON.stringify(stale.body));
  t.regex(stale.body.message, /sha does not match/);
  t.is(git(dir, 'rev-parse', 'refs/heads/main'), head, 'a refused write moves nothing');

  const updated = await hearth.call('PUT', '/repos/alice/notes/contents/docs/deep/a.txt', {
    auth: alice.bearer,
    body: { content: b64('bye\n'), sha: made.body.content.sha, from_path: 'docs/deep/a.txt', author: { name: 'Ann Other', email: 'ann@example.org' } },
  });
  t.is(updated.status, 200, JSON.stringify(updated.body));
  t.is(updated.body.commit.message, 'Update docs/deep/a.txt\n');
  t.deepEqual(updated.body.commit.author, { name: 'Ann Other', email: 'ann@example.org', date: updated.body.commit.author.date });
  t.is(updated.body.commit.committer.email, 'ann@example.org', 'one given identity is used for both');
  t.is(git(dir, 'show', 'main:docs/deep/a.txt'), 'bye');

  const wrongDelete = await hearth.call('DELETE', '/repos/alice/notes/contents/docs/deep/a.txt', {
    auth: alice.bearer, body: { sha: made.body.content.sha },
  });
  t.is(wrongDelete.status, 400, 'Gitea answers a stale sha on delete with 400');
  const deleted = await hearth.call('DELETE', '/repos/alice/notes/contents/docs/deep/a.txt', {
    auth: alice.bearer, body: { sha: updated.body.content.sha },
  });
  t.is(deleted.status, 200, JSON.stringify(deleted.body));
  t.is(deleted.body.content, null);
  t.is(deleted.body.commit.message, 'Delete docs/deep/a.txt\n');
  t.is((await hearth.call('GET', '/repos/alice/notes/contents/docs/deep/a.txt')).status, 404);
  t.is(git(dir, 'ls-tree', '-r', '--name-only', 'main'), 'README.md');
});

test('several files in one commit, a new branch, and the refusals Gitea gives', async (t) => {
  const hearth = await startHearth(t);
  const bob = await hearth.createUser('bob');
  const eve = await hearth.createUser('eve');
  await build.repo(hearth, bob, { name: 'proj', autoInit: true });
  const dir = hearth.deps.git.pathOf('bob', 'proj');

  const many = await hearth.call('POST', '/repos/bob/proj/contents', {
    auth: bob.bearer,
    body: {
      new_branch: 'feature/x',
      dates: { author: '2020-02-02T02:02:02Z' },
      signoff: true,
      files: [
        { operation: 'create', path: 'src/a.ts', content: b64('export const a = 1;\n') },
        { operation: 'update', path: 'README.md', content: b64('# proj\n') },
        { operation: 'create', path: 'run.sh', content: b64('#!/bin/sh\n') },
      ],
    },
  });
  t.is(many.status, 201, JSON.stringify(many.body));
  t.is(many.body.files.length, 3);
  t.is(many.body.commit.message, 'Add src/a.ts, run.sh\nUpdate README.md\n\nSigned-off-by: bob <bob@example.com>');
  t.is(many.body.commit.author.date, '2020-02-02T02:02:02Z');
  t.is(git(dir, 'log', '-1', '--format=%aI', 'feature/x'), '2020-02-02T02:02:02+00:00');
  t.is(many.body.files[0].url, `${hearth.rootUrl}api/v1/repos/bob/proj/contents/src/a.ts?ref=feature%2Fx`);
  t.is(git(dir, 'rev-parse', 'refs/heads/feature/x'), many.body.commit.sha);
  t.not(git(dir, 'rev-parse', 'refs/heads/main'), many.body.commit.sha, 'main stays where it was');
  const branches = await hearth.store.db.query<{ name: string }>('SELECT name FROM branch ORDER BY name');
  t.deepEqual(branches.map((b) => b.name), ['feature/x', 'main']);
  const jobs = await hearth.store.db.query<{ data: { updates: Array<{ ref: string; oldSha: string }> } }>(
    "SELECT data FROM pgboss.job WHERE name = 'branch-sync'",
  );
  t.deepEqual(jobs.map((j) => [j.data.updates[0].ref, j.data.updates[0].oldSha]), [['refs/heads/feature/x', '0'.repeat(40)]]);

  const onBranch = await hearth.call('GET', '/repos/bob/proj/contents/src?ref=feature/x');
  t.deepEqual(onBranch.body.map((e: { path: string }) => e.path), ['src/a.ts']);
  t.is((await hearth.call('GET', '/repos/bob/proj/contents/src')).status, 404, 'not on the default branch');

  const again = await hearth.call('POST', '/repos/bob/proj/contents', {
    auth: bob.bearer, body: { new_branch: 'feature/x', files: [{ operation: 'create', path: 'b.txt', content: b64('b') }] },
  });
  t.is(again.status, 422);
  t.regex(again.body.message, /branch already exists/);
  const exists = await hearth.call('POST', '/repos/bob/proj/contents/README.md', { auth: bob.bearer, body: { content: b64('x') } });
  t.is(exists.status, 422);
  t.regex(exists.body.message, /already exists/);
  const underFile = await hearth.call('POST', '/repos/bob/proj/contents/README.md/x.txt', { auth: bob.bearer, body: { content: b64('x') } });
  t.is(underFile.status, 422);
  const gitPath = await hearth.call('POST', '/repos/bob/proj/contents/.git/config', { auth: bob.bearer, body: { content: b64('x') } });
  t.is(gitPath.status, 422);
  const noBranch = await hearth.call('POST', '/repos/bob/proj/contents/x.txt', { auth: bob.bearer, body: { content: b64('x'), branch: 'nope' } });
  t.is(noBranch.status, 404);
  const badBase64 = await hearth.call('POST', '/repos/bob/proj/contents/x.txt', { auth: bob.bearer, body: { content: 'not base64!' } });
  t.is(badBase64.status, 422);
  const missing = await hearth.call('DELETE', '/repos/bob/proj/contents/nope.txt', { auth: bob.bearer, body: { sha: 'a'.repeat(40) } });
  t.is(missing.status, 404);
  t.is((await hearth.call('POST', '/repos/bob/proj/contents/x.txt', { auth: eve.bearer, body: { content: b64('x') } })).status, 403);
  t.is((await hearth.call('POST', '/repos/bob/proj/contents/x.txt', { body: { content: b64('x') } })).status, 401);
  const readOnly = await hearth.createUser('reader', { scopes: ['read:repository'] });
  await hearth.store.db.query('INSERT INTO collaboration (repo_id, user_id, mode) SELECT id, $1, 2 FROM repository', [readOnly.user.id]);
  t.is((await hearth.call('POST', '/repos/bob/proj/contents/x.txt', { auth: readOnly.bearer, body: { content: b64('x') } })).status, 403, 'a read-only token');
  t.is(git(dir, 'for-each-ref', '--format=%(refname)'), 'refs/heads/feature/x\nrefs/heads/main', 'no refused write left a ref');
});

test('writing into an empty repository makes the first commit; reads of an empty repository never fail', async (t) => {
  const hearth = await startHearth(t);
  const carol = await hearth.createUser('carol');
  await build.repo(hearth, carol, { name: 'blank', defaultBranch: 'trunk' });
  t.deepEqual((await hearth.call('GET', '/repos/carol/blank/contents')).body, []);
  t.is((await hearth.call('GET', '/repos/carol/blank/contents/a.txt')).status, 404);
  const commits = await hearth.call('GET', '/repos/carol/blank/commits');
  t.is(commits.status, 409);
  t.is(commits.body.message, 'Git Repository is empty.');
  t.is((await hearth.call('DELETE', '/repos/carol/blank/contents/a.txt', { auth: carol.bearer, body: { sha: 'a'.repeat(40) } })).status, 404);

  const first = await hearth.call('POST', '/repos/carol/blank/contents/a.txt', { auth: carol.bearer, body: { content: b64('first') } });
  t.is(first.status, 201, JSON.stringify(first.body));
  t.deepEqual(first.body.commit.parents, []);
  t.is(first.body.commit.message, 'Add a.txt\n');
  const repo = await hearth.call('GET', '/repos/carol/blank');
  t.false(repo.body.empty);
  t.is(repo.body.default_branch, 'trunk');
  const dir = hearth.deps.git.pathOf('carol', 'blank');
  t.is(git(dir, 'rev-parse', 'refs/heads/trunk'), first.body.commit.sha);
  t.is((await hearth.call('GET', '/repos/carol/blank/commits')).body.length, 1);
});

test('a protected branch refuses writes by someone the rule does not let push, and a rolled-back write moves no ref', async (t) => {
  const hearth = await startHearth(t);
  const dan = await hearth.createUser('dan');
  await build.repo(hearth, dan, { name: 'guarded', autoInit: true });
  const dir = hearth.deps.git.pathOf('dan', 'guarded');
  const head = git(dir, 'rev-parse', 'refs/heads/main');
  await hearth.store.db.query("INSERT INTO protected_branch (repo_id, rule_name, can_push) SELECT id, 'main', false FROM repository");
  const refused = await hearth.call('POST', '/repos/dan/guarded/contents/a.txt', { auth: dan.bearer, body: { content: b64('a') } });
  t.is(refused.status, 403, JSON.stringify(refused.body));
  t.regex(refused.body.message, /cannot commit/);
  const elsewhere = await hearth.call('POST', '/repos/dan/guarded/contents/a.txt', { auth: dan.bearer, body: { content: b64('a'), new_branch: 'side' } });
  t.is(elsewhere.status, 201, 'a new branch is not the protected one');
  await hearth.store.db.query("UPDATE protected_branch SET can_push = true, protected_file_patterns = 'secret/*'");
  const protectedFile = await hearth.call('POST', '/repos/dan/guarded/contents/secret/key', { auth: dan.bearer, body: { content: b64('k') } });
  t.is(protectedFile.status, 403);
  t.is(git(dir, 'rev-parse', 'refs/heads/main'), head);

  // A failure after the ref moved (here: the branch row cannot be written) puts the ref back.
  await hearth.store.db.query("UPDATE protected_branch SET protected_file_patterns = ''");
  await hearth.store.db.query('ALTER TABLE branch ADD CONSTRAINT no_writes CHECK (commit_message <> $$boom$$)');
  const failed = await hearth.call('POST', '/repos/dan/guarded/contents/b.txt', { auth: dan.bearer, body: { content: b64('b'), message: 'boom' } });
  t.is(failed.status, 500);
  t.is(git(dir, 'rev-parse', 'refs/heads/main'), head, 'the ref was moved back');
  t.is((await hearth.store.db.query("SELECT 1 FROM pgboss.job WHERE name = 'branch-sync' AND data->'updates'->0->>'ref' = 'refs/heads/main'")).length, 0);
});

test('diffpatch applies a unified diff as one commit', async (t) => {
  const hearth = await startHearth(t);
  const erin = await hearth.createUser('erin');
  await build.repo(hearth, erin, { name: 'patched', autoInit: true, description: 'd' });
  const dir = hearth.deps.git.pathOf('erin', 'patched');
  const patch = '--- a/README.md\n+++ b/README.md\n@@ -1,3 +1,4 @@\n # patched\n \n d\n+added line\n';
  const applied = await hearth.call('POST', '/repos/erin/patched/diffpatch', { auth: erin.bearer, body: { content: patch, message: 'patch it' } });
  t.is(applied.status, 201, JSON.stringify(applied.body));
  t.is(applied.body.commit.message, 'patch it\n');
  t.is(git(dir, 'show', 'main:README.md'), '# patched\n\nd\nadded line');
  const bad = await hearth.call('POST', '/repos/erin/patched/diffpatch', { auth: erin.bearer, body: { content: patch } });
  t.is(bad.status, 422, 'the same patch no longer applies');
  t.is(git(dir, 'rev-parse', 'main'), applied.body.commit.sha);
});

test('concurrent writes to one branch take turns: none is lost, each builds on the last', async (t) => {
  const hearth = await startHearth(t);
  const fay = await hearth.createUser('fay');
  await build.repo(hearth, fay, { name: 'race', autoInit: true });
  const dir = hearth.deps.git.pathOf('fay', 'race');
  const answers = await Promise.all(
    Array.from({ length: 6 }, (_, i) => hearth.call('POST', `/repos/fay/race/contents/f${i}.txt`, { auth: fay.bearer, body: { content: b64(`${i}`) } })),
  );
  t.deepEqual(answers.map((a) => a.status), [201, 201, 201, 201, 201, 201]);
  const landed = answers;
  const files = git(dir, 'ls-tree', '--name-only', 'main').split('\n');
  for (const answer of landed) t.true(files.includes(answer.body.content.path), `${answer.body.content.path} is on main`);
  t.is(Number(git(dir, 'rev-list', '--count', 'main')), landed.length + 1, 'one commit per successful write');
  const [branch] = await hearth.store.db.query<{ commit_id: string }>("SELECT commit_id FROM branch WHERE name = 'main'");
  t.is(branch.commit_id, git(dir, 'rev-parse', 'main'));
});

test('a branch moves only from the commit a write built on', async (t) => {
  const hearth = await startHearth(t);
  const gus = await hearth.createUser('gus');
  await build.repo(hearth, gus, { name: 'cas', autoInit: true });
  const dir = hearth.deps.git.pathOf('gus', 'cas');
  const base = git(dir, 'rev-parse', 'main');
  const next = git(dir, 'commit-tree', `${base}^{tree}`, '-p', base, '-m', 'next');
  const other = git(dir, 'commit-tree', `${base}^{tree}`, '-p', base, '-m', 'other');
  const repoGit = hearth.deps.git.open('gus', 'cas');
  t.true(await repoGit.updateRef('refs/heads/main', next, base));
  t.false(await repoGit.updateRef('refs/heads/main', other, base), 'someone else moved it meanwhile');
  t.false(await repoGit.updateRef('refs/heads/main', other, null), 'it already exists');
  t.is(git(dir, 'rev-parse', 'main'), next);
});
