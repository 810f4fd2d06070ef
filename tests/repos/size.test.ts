import { randomBytes } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import { startHearth } from '../helpers/hearth.js';
import { commitFile, git, localRepo, ok, remote, scratch } from '../git/git-client.js';

async function bytesOnDisk(dir: string): Promise<number> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries.filter((e) => e.isFile()).map((e) => stat(path.join(e.parentPath, e.name)));
  return (await Promise.all(files)).reduce((sum, s) => sum + s.size, 0);
}

test('the repository size (KiB) is measured at creation and kept current after pushes, as Gitea measures it', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  await build.repo(hearth, alice, { name: 'grows', autoInit: true });
  const dir = hearth.deps.git.pathOf('alice', 'grows');
  const created = await hearth.call('GET', '/repos/alice/grows');
  t.true(created.body.size > 0, 'a new repository already takes some space');
  t.is(created.body.size, Math.round((await bytesOnDisk(dir)) / 1024));

  const home = scratch(t);
  const work = await localRepo(home, 'work', 'main', { 'seed.txt': 'seed\n' });
  await commitFile(home, work, 'noise.bin', randomBytes(300 * 1024).toString('base64'));
  const url = remote(hearth, 'alice', 'grows', { user: 'alice', secret: alice.token });
  await ok(git(home, ['push', '--quiet', '--force', url, 'main'], work));
  await drain(hearth, 'branch-sync');
  const pushed = await hearth.call('GET', '/repos/alice/grows');
  t.true(pushed.body.size >= created.body.size + 300, `${created.body.size} KiB then ${pushed.body.size} KiB`);
  const [row] = await hearth.store.db.query<{ size: string }>('SELECT size FROM repository WHERE lower_name = $1', ['grows']);
  t.is(Number(row.size), await bytesOnDisk(dir));
});

test('timestamps a repository never had render as Gitea renders them', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  await build.repo(hearth, alice, { name: 'plain' });
  const answer = await hearth.call('GET', '/repos/alice/plain');
  t.is(answer.body.mirror_updated, '0001-01-01T00:00:00Z', 'Go zero time for a repository that is not a mirror');
  t.is(answer.body.archived_at, '1970-01-01T00:00:00Z', 'a zero Unix timestamp, as ArchivedUnix.AsTime gives');
});
