import test from 'ava';
import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import { startHearth } from '../helpers/hearth.js';

/**
 * GET /pulls/{index}/files?whitespace=… as Gitea's GetWhitespaceFlag: ignore-all (-w), ignore-change (-b), ignore-eol
 * (--ignore-space-at-eol), show-all (the default). A file whose only changes are ignored is left out.
 */
test('the whitespace option leaves out the files whose only changes it ignores, and counts lines without them', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const repo = await build.repo(hearth, alice, { name: 'ws', autoInit: true });
  await build.commit(hearth, repo, { files: { 'amount.txt': 'a b\nkeep\n', 'eol.txt': 'c\n', 'inside.txt': 'ab\n', 'real.txt': 'x\n' }, message: 'files' });
  const feature = await hearth.call('POST', '/repos/alice/ws/branches', { auth: alice.bearer, body: { new_branch_name: 'feature', old_branch_name: 'main' } });
  t.is(feature.status, 201, JSON.stringify(feature.body));
  const files = [
    { operation: 'update', path: 'amount.txt', content: 'a  b\nkeep\n' },
    { operation: 'update', path: 'eol.txt', content: 'c  \n' },
    { operation: 'update', path: 'inside.txt', content: 'a b\n' },
    { operation: 'update', path: 'real.txt', content: 'y\nz\n' },
  ];
  const shas = new Map<string, string>();
  for (const file of files) {
    const read = await hearth.call('GET', `/repos/alice/ws/contents/${file.path}?ref=feature`, { auth: alice.bearer });
    shas.set(file.path, read.body.sha);
  }
  const written = await hearth.call('POST', '/repos/alice/ws/contents', {
    auth: alice.bearer,
    body: { branch: 'feature', message: 'whitespace and more', files: files.map((f) => ({ ...f, sha: shas.get(f.path), content: Buffer.from(f.content).toString('base64') })) },
  });
  t.is(written.status, 201, JSON.stringify(written.body));
  await drain(hearth, 'branch-sync');
  const pull = await hearth.call('POST', '/repos/alice/ws/pulls', { auth: alice.bearer, body: { head: 'feature', base: 'main', title: 'Spaces' } });
  t.is(pull.status, 201, JSON.stringify(pull.body));

  const listed = async (whitespace?: string): Promise<{ names: string[]; total: string | undefined; counts: Record<string, [number, number]> }> => {
    const answer = await hearth.call('GET', `/repos/alice/ws/pulls/1/files${whitespace ? `?whitespace=${whitespace}` : ''}`, { auth: alice.bearer });
    t.is(answer.status, 200, JSON.stringify(answer.body));
    const body = answer.body as Array<{ filename: string; additions: number; deletions: number }>;
    return {
      names: body.map((f) => f.filename),
      total: answer.headers.get('x-total-count') ?? undefined,
      counts: Object.fromEntries(body.map((f) => [f.filename, [f.additions, f.deletions]])),
    };
  };
  const all = await listed();
  t.deepEqual(all.names, ['amount.txt', 'eol.txt', 'inside.txt', 'real.txt']);
  t.deepEqual(await listed('show-all'), all);
  t.deepEqual(all.counts['real.txt'], [2, 1]);

  const ignoreAll = await listed('ignore-all');
  t.deepEqual(ignoreAll.names, ['real.txt']);
  t.is(ignoreAll.total, '1');
  t.deepEqual(ignoreAll.counts['real.txt'], [2, 1]);
  t.deepEqual((await listed('ignore-change')).names, ['inside.txt', 'real.txt']);
  t.deepEqual((await listed('ignore-eol')).names, ['amount.txt', 'inside.txt', 'real.txt']);

  const bad = await hearth.call('GET', '/repos/alice/ws/pulls/1/files?whitespace=sometimes', { auth: alice.bearer });
  t.is(bad.status, 422, 'a value outside the documented enum');
});
