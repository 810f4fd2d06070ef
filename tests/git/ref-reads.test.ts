import { statSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { ObjectReader } from '../../db/git/objects.js';
import { readRef } from '../../db/git/refs.js';
import { commitFile, git, gitOnDisk, localRepo, ok, scratch } from './git-client.js';

/** What git itself answers for `rev-parse --verify --quiet rev`, or null. */
async function gitAnswer(dir: string, rev: string): Promise<string | null> {
  const run = await gitOnDisk(['rev-parse', '--verify', '--quiet', '--end-of-options', rev], dir);
  return run.code === 0 ? run.stdout.toString('utf8').trim() : null;
}

test('refs and peeled objects read from the files answer what git rev-parse answers: loose, packed, both, symbolic, short names, annotated tags', async (t) => {
  const home = scratch(t);
  const work = await localRepo(home, 'work', 'main', { 'a.txt': 'a' });
  const first = await commitFile(home, work, 'b.txt', 'b');
  await ok(git(home, ['tag', 'light'], work));
  await ok(git(home, ['tag', '-a', 'annotated', '-m', 'an annotated tag'], work));
  await ok(git(home, ['branch', 'topic'], work));
  await ok(git(home, ['branch', 'nested/deeper'], work));
  // a branch and a tag of one name: git prefers the tag for the short name
  await ok(git(home, ['branch', 'same'], work));
  await ok(git(home, ['tag', 'same', 'HEAD~1'], work));
  const bare = path.join(home, 'bare.git');
  await ok(git(home, ['clone', '--quiet', '--bare', work, bare]));
  await ok(git(home, ['pack-refs', '--all'], bare));
  // after packing, a loose ref that moved on shadows its packed line; another exists only loose
  const second = await commitFile(home, work, 'c.txt', 'c');
  await ok(git(home, ['push', '--quiet', bare, 'main', 'main:refs/heads/loose-only'], work));
  await ok(git(home, ['symbolic-ref', 'refs/heads/alias', 'refs/heads/topic'], bare));

  const reader = new ObjectReader(bare, 'sha1');
  const names = [
    'refs/heads/main', 'main', 'HEAD', 'refs/heads/topic', 'topic', 'refs/heads/nested/deeper', 'nested/deeper',
    'refs/tags/light', 'light', 'refs/tags/annotated', 'annotated', 'same', 'refs/heads/same', 'refs/tags/same',
    'refs/heads/loose-only', 'loose-only', 'alias', 'refs/heads/alias', 'missing', 'refs/heads/missing', 'refs/heads',
    'config', 'description', 'heads/main', 'tags/annotated',
  ];
  for (const name of names) {
    t.is(await reader.refTarget(name), await gitAnswer(bare, name), `ref ${name}`);
    for (const type of ['commit', 'tree'] as const) {
      t.is(await reader.resolvePeeled(name, type), await gitAnswer(bare, `${name}^{${type}}`), `${name}^{${type}}`);
    }
  }
  t.is(await reader.refTarget('refs/heads/main'), second, 'the loose ref shadows the packed one');
  t.not(await reader.refTarget('refs/tags/annotated'), first, 'an annotated tag names its tag object');
  t.is(await reader.resolvePeeled('annotated', 'commit'), first, 'and peels to its commit (again from the cache)');
  for (const refused of ['../HEAD', 'refs/heads/../../config', '-main', 'main\u0000']) t.is(await reader.refTarget(refused), null, refused);
});

test('where only git can tell, git answers: a full id as a name, symbolic refs past git\'s depth, replace refs loose or packed; a rewritten packed-refs is read again', async (t) => {
  const home = scratch(t);
  const work = await localRepo(home, 'work', 'main', { 'a.txt': 'a' });
  const first = await commitFile(home, work, 'b.txt', 'b');
  const other = await commitFile(home, work, 'c.txt', 'c');
  const bare = path.join(home, 'bare.git');
  await ok(git(home, ['clone', '--quiet', '--bare', work, bare]));
  await ok(git(home, ['update-ref', 'refs/heads/main', first], bare));
  await ok(git(home, ['pack-refs', '--all'], bare));
  const reader = new ObjectReader(bare, 'sha1');

  t.deepEqual(readRef(bare, 'main'), { oid: first }, 'a packed branch is read from the files');
  t.deepEqual(readRef(bare, 'HEAD'), { oid: first }, 'and HEAD through it');
  t.is(readRef(bare, other), 'ask-git', 'a full id is an object name for git, not a ref');
  t.is(await reader.refTarget(other), await gitAnswer(bare, other));

  // git reads at most five refs along a chain of symbolic refs: s3 … s6 → main resolves, s2 does not
  await ok(git(home, ['symbolic-ref', 'refs/heads/s6', 'refs/heads/main'], bare));
  for (const at of [5, 4, 3, 2]) await ok(git(home, ['symbolic-ref', `refs/heads/s${at}`, `refs/heads/s${at + 1}`], bare));
  t.deepEqual(readRef(bare, 's3'), { oid: first });
  t.is(readRef(bare, 's2'), 'ask-git');
  for (const name of ['s3', 's2', 'refs/heads/s2']) t.is(await reader.refTarget(name), await gitAnswer(bare, name), name);

  // packed-refs written anew with the same size: what was kept of the old file is not taken for it
  const packed = path.join(bare, 'packed-refs');
  const before = statSync(packed).size;
  await ok(git(home, ['update-ref', 'refs/heads/main', other], bare));
  await ok(git(home, ['pack-refs', '--all'], bare));
  t.is(statSync(packed).size, before);
  t.is(await reader.refTarget('refs/heads/main'), other);

  // a replacement for main's commit: git reads main's tree through it, so the ref is for git to answer
  const originalTree = (await gitOnDisk(['rev-parse', 'main^{tree}'], bare)).stdout.toString('utf8').trim();
  t.is(await reader.resolvePeeled('main', 'tree'), originalTree);
  await ok(git(home, ['replace', other, first], bare));
  t.is(readRef(bare, 'main'), 'ask-git', 'a loose replace ref');
  t.is(await reader.refTarget('main'), other);
  const replacedTree = await reader.resolvePeeled('main', 'tree');
  t.is(replacedTree, await gitAnswer(bare, 'main^{tree}'));
  t.not(replacedTree, originalTree);
  await ok(git(home, ['pack-refs', '--all'], bare));
  t.is(readRef(bare, 'main'), 'ask-git', 'a packed replace ref');
  t.is(await reader.resolvePeeled('main', 'commit'), await gitAnswer(bare, 'main^{commit}'));
});
