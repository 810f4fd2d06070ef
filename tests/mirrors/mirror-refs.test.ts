import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { readHeadAndTagRefs } from '../../db/git/refs.js';
import { okOnDisk } from '../git/git-client.js';

const identity = { GIT_AUTHOR_NAME: 'A', GIT_AUTHOR_EMAIL: 'a@example.com', GIT_COMMITTER_NAME: 'A', GIT_COMMITTER_EMAIL: 'a@example.com' };

/** What git lists: the reader must agree with it exactly. */
async function gitRefs(dir: string): Promise<Map<string, string>> {
  const out = await okOnDisk(['for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads/', 'refs/tags/'], dir);
  return new Map(out.split('\n').filter(Boolean).map((line) => [line.slice(line.indexOf(' ') + 1), line.slice(0, line.indexOf(' '))]));
}

test('branches and tags read without git are what git for-each-ref lists: loose, packed, nested, annotated; odd refs are left to git', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hearth-mirror-refs-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  await okOnDisk(['init', '--quiet', '--bare', dir], os.tmpdir());
  t.deepEqual(readHeadAndTagRefs(dir), new Map(), 'an empty repository has none');
  const empty = await okOnDisk(['hash-object', '-t', 'tree', '-w', '/dev/null'], dir);
  const first = await okOnDisk(['commit-tree', empty, '-m', 'one'], dir, identity);
  const second = await okOnDisk(['commit-tree', empty, '-p', first, '-m', 'two'], dir, identity);
  for (const [ref, sha] of [['refs/heads/main', first], ['refs/heads/feature/deep/x', second], ['refs/tags/v1', first], ['refs/pull/1/head', second]]) {
    await okOnDisk(['update-ref', ref, sha], dir);
  }
  await okOnDisk(['tag', '-a', '-m', 'annotated', 'v2', second], dir, identity);
  await okOnDisk(['pack-refs', '--all'], dir);
  // loose refs over packed ones, new loose ones beside them
  await okOnDisk(['update-ref', 'refs/heads/main', second], dir);
  await okOnDisk(['update-ref', 'refs/tags/v3', second], dir);
  const read = readHeadAndTagRefs(dir);
  t.deepEqual(read, await gitRefs(dir));
  t.is(read?.get('refs/heads/main'), second);
  t.false(read?.has('refs/pull/1/head'), 'only branches and tags');

  // A symbolic ref among the tags is git's to read.
  await okOnDisk(['symbolic-ref', 'refs/tags/alias', 'refs/tags/v1'], dir);
  t.is(readHeadAndTagRefs(dir), null);
});
