import { readFileSync } from 'node:fs';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { inTx } from '../../db/data-source.js';
import { CommitFieldsCache, type CommitFields } from '../../db/git/commit-fields.js';
import { recordRefUpdates } from '../../db/models/code/ref-updates.js';
import type { RepoRow } from '../../db/models/repos/repo-row.js';
import { build } from '../helpers/build.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';
import { git, ok, okOnDisk, refOnServer, remote, scratch } from '../git/git-client.js';

interface ApiBranch {
  name: string;
  commit: { id: string; message: string; timestamp: string; author: { name: string; email: string; username: string }; committer: { name: string } };
}

const diskIdentity = { GIT_AUTHOR_NAME: 'Disk Writer', GIT_AUTHOR_EMAIL: 'disk@example.com', GIT_COMMITTER_NAME: 'Disk Writer', GIT_COMMITTER_EMAIL: 'disk@example.com' };

/** Runs git in a repository's bare directory on the server, as an administrator on the machine would. */
function onDisk(hearth: TestHearth, owner: string, repo: string, args: string[]): Promise<string> {
  return okOnDisk(args, hearth.deps.git.pathOf(owner, repo), diskIdentity);
}

/** A new commit on top of `parent` (same tree), written straight into the bare repository. */
async function commitOnDisk(hearth: TestHearth, owner: string, repo: string, parent: string, message: string): Promise<string> {
  return onDisk(hearth, owner, repo, ['commit-tree', `${parent}^{tree}`, '-p', parent, '-m', message]);
}

async function branchesOf(hearth: TestHearth, owner: string, repo: string): Promise<Map<string, ApiBranch['commit']>> {
  const list = await hearth.call<ApiBranch[]>('GET', `/repos/${owner}/${repo}/branches`);
  if (list.status !== 200) throw new Error(`list answered ${list.status}`);
  return new Map(list.body.map((b) => [b.name, b.commit]));
}

/** The named branches as single-branch reads (read from git at the time of the call) show them; missing ones left out. */
async function headsOf(hearth: TestHearth, owner: string, repo: string, names: string[]): Promise<Map<string, ApiBranch['commit']>> {
  const heads = new Map<string, ApiBranch['commit']>();
  for (const name of names) {
    const one = await hearth.call<ApiBranch>('GET', `/repos/${owner}/${repo}/branches/${name}`);
    if (one.status === 200) heads.set(name, one.body.commit);
  }
  return heads;
}

async function setUp(t: ExecutionContext, objectFormat: 'sha1' | 'sha256' = 'sha1'): Promise<{ hearth: TestHearth; alice: Awaited<ReturnType<TestHearth['createUser']>>; repo: RepoRow; main: string }> {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const repo = await build.repo(hearth, alice, { name: 'reads', autoInit: true, objectFormat });
  const main = (await refOnServer(hearth, 'alice', 'reads', 'refs/heads/main'))!;
  return { hearth, alice, repo, main };
}

test('a branch moved with git directly on disk shows its new head on the next single read; the list shows what its row records until the move is recorded', async (t) => {
  const { hearth, alice, repo, main } = await setUp(t);
  await build.branch(hearth, repo, { name: 'feature/disk' });
  const before = await branchesOf(hearth, 'alice', 'reads');
  t.is(before.get('feature/disk')?.id, main);
  t.is(before.get('feature/disk')?.message, 'Initial commit\n');
  t.deepEqual((await headsOf(hearth, 'alice', 'reads', ['feature/disk'])).get('feature/disk'), before.get('feature/disk'), 'the row renders as git does');

  const next = await commitOnDisk(hearth, 'alice', 'reads', main, 'Written on disk\n\nwith a body');
  await onDisk(hearth, 'alice', 'reads', ['update-ref', 'refs/heads/feature/disk', next]);
  const one = await hearth.call<ApiBranch>('GET', '/repos/alice/reads/branches/feature/disk');
  t.like(one.body.commit, { id: next, message: 'Written on disk\n\nwith a body\n', author: { name: 'Disk Writer', email: 'disk@example.com', username: '' } });
  t.is((await branchesOf(hearth, 'alice', 'reads')).get('feature/disk')?.id, main, 'a move nobody recorded is not in the rows');

  await inTx(hearth.store, (tx) => recordRefUpdates(tx, hearth.deps.git.open(repo), repo, alice.user, [{ ref: 'refs/heads/feature/disk', oldSha: main, newSha: next }]));
  const after = await branchesOf(hearth, 'alice', 'reads');
  t.deepEqual(after.get('feature/disk'), one.body.commit, 'once recorded, the list shows the head as the single read does, before any job has run');
  t.like(after.get('main'), { id: main, message: 'Initial commit\n' }, 'the other branch is untouched');
  t.is(await refOnServer(hearth, 'alice', 'reads', 'refs/heads/feature/disk'), next);
});

test('a push over HTTP shows on the next single-branch read and list, before any job has run', async (t) => {
  const { hearth, alice, main } = await setUp(t);
  t.is((await hearth.call<ApiBranch>('GET', '/repos/alice/reads/branches/main')).body.commit.id, main);
  const home = scratch(t);
  const work = path.join(home, 'work');
  const url = remote(hearth, 'alice', 'reads', { user: 'alice', secret: alice.token });
  await ok(git(home, ['clone', '--quiet', url, work]));
  await ok(git(home, ['commit', '--quiet', '--allow-empty', '-m', 'Pushed over HTTP'], work));
  const pushed = (await ok(git(home, ['rev-parse', 'HEAD'], work))).trim();
  await ok(git(home, ['push', '--quiet', 'origin', 'main'], work));
  const one = await hearth.call<ApiBranch>('GET', '/repos/alice/reads/branches/main');
  t.like(one.body.commit, { id: pushed, message: 'Pushed over HTTP\n', author: { name: 'Tester', email: 'tester@example.com' } });
  t.deepEqual((await branchesOf(hearth, 'alice', 'reads')).get('main'), one.body.commit, 'the list too: the push wrote the row');
});

for (const format of ['sha1', 'sha256'] as const) {
  test(`packed and loose refs both read, a loose ref winning over its packed line (${format})`, async (t) => {
    const { hearth, repo, main } = await setUp(t, format);
    t.is(main.length, format === 'sha1' ? 40 : 64);
    for (const name of ['alpha', 'beta', 'nested/gamma']) await build.branch(hearth, repo, { name });
    await onDisk(hearth, 'alice', 'reads', ['tag', '-a', '-m', 'a tag', 'v1', main]);
    const names = ['alpha', 'beta', 'main', 'nested/gamma'];
    const loose = await headsOf(hearth, 'alice', 'reads', names);
    t.deepEqual(loose, await branchesOf(hearth, 'alice', 'reads'));

    await onDisk(hearth, 'alice', 'reads', ['pack-refs', '--all']);
    const packedFile = readFileSync(path.join(hearth.deps.git.pathOf('alice', 'reads'), 'packed-refs'), 'utf8');
    t.regex(packedFile, new RegExp(`^${main} refs/heads/nested/gamma$`, 'm'), 'the branches now live in packed-refs');
    t.deepEqual(await headsOf(hearth, 'alice', 'reads', names), loose, 'packed branches read the same as loose ones');

    const moved = await commitOnDisk(hearth, 'alice', 'reads', main, 'Loose over packed');
    await onDisk(hearth, 'alice', 'reads', ['update-ref', 'refs/heads/beta', moved]);
    t.regex(readFileSync(path.join(hearth.deps.git.pathOf('alice', 'reads'), 'packed-refs'), 'utf8'), new RegExp(`^${main} refs/heads/beta$`, 'm'));
    const mixed = await headsOf(hearth, 'alice', 'reads', names);
    t.like(mixed.get('beta'), { id: moved, message: 'Loose over packed\n' });
    t.like(mixed.get('alpha'), { id: main });
    t.like(mixed.get('nested/gamma'), { id: main });

    await onDisk(hearth, 'alice', 'reads', ['update-ref', '-d', 'refs/heads/alpha']);
    t.is((await hearth.call('GET', '/repos/alice/reads/branches/alpha')).status, 404, 'a branch deleted on disk (from packed-refs) is gone');

    // Without branch rows the list rebuilds them from every branch on disk (the whole-repository read), packed and loose.
    const [{ id }] = await hearth.store.db.query<{ id: number }>(`SELECT id FROM repository WHERE lower_name = 'reads'`);
    await hearth.store.db.query('DELETE FROM branch WHERE repo_id = $1', [id]);
    const rebuilt = await branchesOf(hearth, 'alice', 'reads');
    t.deepEqual([...rebuilt.keys()].sort(), ['beta', 'main', 'nested/gamma']);
    t.deepEqual(rebuilt.get('beta'), mixed.get('beta'));
    const rows = await hearth.store.db.query<{ name: string; commit_id: string }>('SELECT name, commit_id FROM branch WHERE repo_id = $1 ORDER BY name', [id]);
    t.deepEqual(rows, [{ name: 'beta', commit_id: moved }, { name: 'main', commit_id: main }, { name: 'nested/gamma', commit_id: main }]);
  });
}

test('rows written before they carried their head commit are completed by the list, which then reads no git for them', async (t) => {
  const { hearth, repo, main } = await setUp(t);
  await build.branch(hearth, repo, { name: 'old' });
  const expected = await branchesOf(hearth, 'alice', 'reads');
  const heads = ['author_name', 'author_email', 'author_date', 'committer_name', 'committer_email', 'committer_date', 'message'];
  await hearth.store.db.query(`UPDATE branch SET ${heads.map((c) => `${c} = NULL`).join(', ')} WHERE repo_id = $1`, [repo.id]);
  t.deepEqual(await branchesOf(hearth, 'alice', 'reads'), expected);
  const rows = await hearth.store.db.query<{ name: string; commit_id: string; message: string; author_email: string }>(
    'SELECT name, commit_id, message, author_email FROM branch WHERE repo_id = $1 ORDER BY name', [repo.id],
  );
  t.deepEqual(rows, ['main', 'old'].map((name) => ({ name, commit_id: main, message: 'Initial commit\n', author_email: 'alice@example.com' })));
  // the rows alone answer now: a commit gone from git's view would show
  await onDisk(hearth, 'alice', 'reads', ['update-ref', '-d', 'refs/heads/old']);
  t.deepEqual(await branchesOf(hearth, 'alice', 'reads'), expected);
});

test('the commit cache never shows an old head after a force update, and one commit on two branches reads the same', async (t) => {
  const { hearth, main } = await setUp(t);
  const other = await onDisk(hearth, 'alice', 'reads', ['commit-tree', `${main}^{tree}`, '-m', 'An unrelated root']);
  const stamp = (await hearth.call<ApiBranch>('GET', '/repos/alice/reads/branches/main')).body.commit;

  await onDisk(hearth, 'alice', 'reads', ['update-ref', 'refs/heads/main', other]);
  const forced = (await hearth.call<ApiBranch>('GET', '/repos/alice/reads/branches/main')).body.commit;
  t.like(forced, { id: other, message: 'An unrelated root\n', author: { name: 'Disk Writer', username: '' } });

  await onDisk(hearth, 'alice', 'reads', ['update-ref', 'refs/heads/main', main]);
  t.deepEqual((await hearth.call<ApiBranch>('GET', '/repos/alice/reads/branches/main')).body.commit, stamp, 'back at the first commit, with its own fields');
  await onDisk(hearth, 'alice', 'reads', ['update-ref', 'refs/heads/twin', main]);
  t.deepEqual((await hearth.call<ApiBranch>('GET', '/repos/alice/reads/branches/twin')).body.commit, stamp);
});

test('branches git must read itself (a symbolic ref) still answer, and names that are no ref never reach the disk', async (t) => {
  const { hearth, main } = await setUp(t);
  await onDisk(hearth, 'alice', 'reads', ['symbolic-ref', 'refs/heads/alias', 'refs/heads/main']);
  t.is((await hearth.call<ApiBranch>('GET', '/repos/alice/reads/branches/alias')).body.commit.id, main);
  t.is((await hearth.call<ApiBranch>('GET', '/repos/alice/reads/branches/main')).body.commit.id, main);
  for (const name of ['..%2F..%2Fconfig', '..%2FHEAD', 'main.lock', '.hidden', 'a..b']) {
    t.is((await hearth.call('GET', `/repos/alice/reads/branches/${name}`)).status, 404, name);
  }
});

test('the commit cache is bounded in entries and keeps no overlong message', (t) => {
  const cache = new CommitFieldsCache(3, 1_000, 100);
  const fields = (message: string): CommitFields => ({
    authorName: 'a', authorEmail: 'a@x', authorDate: '2024-01-01T00:00:00+00:00',
    committerName: 'c', committerEmail: 'c@x', committerDate: '2024-01-01T00:00:00+00:00', message,
  });
  for (const id of ['1', '2', '3']) cache.set(id, fields(`m${id}`));
  t.truthy(cache.get('1'), 'reading 1 makes 2 the least recently used');
  cache.set('4', fields('m4'));
  t.is(cache.size, 3);
  t.is(cache.get('2'), undefined);
  t.is(cache.get('1')?.message, 'm1');
  cache.set('5', fields('x'.repeat(101)));
  t.is(cache.get('5'), undefined);
  for (let i = 0; i < 20; i++) cache.set(`big${i}`, fields('y'.repeat(100)));
  t.true(cache.size <= 3);
});
