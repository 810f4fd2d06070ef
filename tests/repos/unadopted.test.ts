import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { okOnDisk } from '../git/git-client.js';
import { build } from '../helpers/build.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';

/** A bare repository put on disk behind Hearth's back, optionally with one commit on `branch`. */
async function plant(hearth: TestHearth, owner: string, name: string, branch?: string): Promise<string> {
  const dir = path.join(hearth.deps.git.root, owner, `${name}.git`);
  mkdirSync(path.dirname(dir), { recursive: true });
  await okOnDisk(['init', '--bare', '--quiet', '--initial-branch=main', dir], os.tmpdir());
  if (branch) {
    const work = mkdtempSync(path.join(os.tmpdir(), 'hearth-work-'));
    try {
      await okOnDisk(['init', '--quiet', `--initial-branch=${branch}`, work], os.tmpdir());
      writeFileSync(path.join(work, 'file.txt'), 'hello\n');
      await okOnDisk(['add', '-A'], work);
      await okOnDisk(['-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '--quiet', '-m', 'first'], work);
      await okOnDisk(['push', '--quiet', dir, `HEAD:refs/heads/${branch}`], work);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  return dir;
}

test('unadopted directories are listed, filtered and paged; only administrators may look', async (t) => {
  const hearth = await startHearth(t);
  const root = await hearth.createUser('root', { admin: true });
  const alice = await hearth.createUser('alice');
  await build.repo(hearth, alice, { name: 'real' });
  await plant(hearth, 'alice', 'orphan', 'dev');
  await plant(hearth, 'alice', 'empty-one');
  await plant(hearth, 'alice', 'thing.wiki');
  await plant(hearth, 'alice', 'Upper');
  await plant(hearth, 'ghost', 'lost');

  const all = await hearth.call('GET', '/admin/unadopted', { auth: root.bearer });
  t.is(all.status, 200, JSON.stringify(all.body));
  t.deepEqual(all.body, ['alice/empty-one', 'alice/orphan']);
  t.is(all.headers.get('x-total-count'), '2');
  t.deepEqual((await hearth.call('GET', '/admin/unadopted?pattern=alice/orph*', { auth: root.bearer })).body, ['alice/orphan']);
  t.deepEqual((await hearth.call('GET', '/admin/unadopted?query=a*', { auth: root.bearer })).body, ['alice/empty-one', 'alice/orphan']);
  t.deepEqual((await hearth.call('GET', '/admin/unadopted?pattern=ghost', { auth: root.bearer })).body, []);
  const second = await hearth.call('GET', '/admin/unadopted?limit=1&page=2', { auth: root.bearer });
  t.deepEqual(second.body, ['alice/orphan']);
  t.is(second.headers.get('x-total-count'), '2');
  t.is((await hearth.call('GET', '/admin/unadopted', { auth: alice.bearer })).status, 403);
});

test('adopting makes a private repository of the files, with branch rows and an existing default branch', async (t) => {
  const hearth = await startHearth(t);
  const root = await hearth.createUser('root', { admin: true });
  const alice = await hearth.createUser('alice');
  await plant(hearth, 'alice', 'orphan', 'dev');
  await plant(hearth, 'alice', 'blank');

  const adopted = await hearth.call('POST', '/admin/unadopted/alice/orphan', { auth: root.bearer });
  t.is(adopted.status, 204, JSON.stringify(adopted.body));
  const read = await hearth.call('GET', '/repos/alice/orphan', { auth: alice.bearer });
  t.like(read.body, { full_name: 'alice/orphan', private: true, empty: false, default_branch: 'dev' });
  t.is((await hearth.call('GET', '/repos/alice/orphan')).status, 404);
  const branches = await hearth.store.db.query<{ name: string }>('SELECT name FROM branch WHERE repo_id = $1', [read.body.id]);
  t.deepEqual(branches.map((b) => b.name), ['dev']);
  t.is(await okOnDisk(['symbolic-ref', 'HEAD'], hearth.deps.git.pathOf('alice', 'orphan')), 'refs/heads/dev');
  const [{ num_repos }] = await hearth.store.db.query<{ num_repos: number }>('SELECT num_repos FROM "user" WHERE id = $1', [alice.user.id]);
  t.is(num_repos, 1);
  t.deepEqual((await hearth.call('GET', '/admin/unadopted', { auth: root.bearer })).body, ['alice/blank']);

  t.is((await hearth.call('POST', '/admin/unadopted/alice/blank', { auth: root.bearer })).status, 204);
  t.like((await hearth.call('GET', '/repos/alice/blank', { auth: alice.bearer })).body, { empty: true, default_branch: 'main' });

  t.is((await hearth.call('POST', '/admin/unadopted/alice/orphan', { auth: root.bearer })).status, 404, 'already a repository');
  t.is((await hearth.call('POST', '/admin/unadopted/alice/nothing', { auth: root.bearer })).status, 404);
  t.is((await hearth.call('POST', '/admin/unadopted/ghost/orphan', { auth: root.bearer })).status, 404);
  t.is((await hearth.call('POST', '/admin/unadopted/alice/orphan', { auth: alice.bearer })).status, 403);

  mkdirSync(path.join(hearth.deps.git.root, 'alice', 'junk.git'));
  const junk = await hearth.call('POST', '/admin/unadopted/alice/junk', { auth: root.bearer });
  t.is(junk.status, 422);
  t.deepEqual(await hearth.store.db.query(`SELECT 1 FROM repository WHERE name = 'junk'`), []);
  t.true(existsSync(path.join(hearth.deps.git.root, 'alice', 'junk.git')), 'a refused adoption leaves the files alone');
});

test('deleting unadopted files removes only directories no repository claims', async (t) => {
  const hearth = await startHearth(t);
  const root = await hearth.createUser('root', { admin: true });
  const alice = await hearth.createUser('alice');
  await build.repo(hearth, alice, { name: 'real' });
  const orphan = await plant(hearth, 'alice', 'orphan', 'main');

  t.is((await hearth.call('DELETE', '/admin/unadopted/alice/real', { auth: root.bearer })).status, 404);
  t.true(existsSync(hearth.deps.git.pathOf('alice', 'real')));
  t.is((await hearth.call('DELETE', '/admin/unadopted/alice/orphan', { auth: alice.bearer })).status, 403);
  t.true(existsSync(orphan));
  t.is((await hearth.call('DELETE', '/admin/unadopted/alice/orphan', { auth: root.bearer })).status, 204);
  t.false(existsSync(orphan));
  t.is((await hearth.call('DELETE', '/admin/unadopted/alice/orphan', { auth: root.bearer })).status, 404);
});
