import test, { type ExecutionContext } from 'ava';
import { build } from '../helpers/build.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';

/**
 * The issue list answers issues it rendered before from their kept text while their view's version is unchanged
 * (api/routes/issues/rendered-issues.ts). Each change below touches one thing an issue shows; after each, every listed
 * issue must equal the issue read alone, which is always rendered afresh.
 */
async function listedMatchSingle(t: ExecutionContext, hearth: TestHearth, repoPath: string): Promise<Array<Record<string, any>>> {
  const listed = await hearth.call('GET', `/repos/${repoPath}/issues?state=all`);
  t.is(listed.status, 200, JSON.stringify(listed.body));
  for (const item of listed.body) {
    const single = await hearth.call('GET', `/repos/${repoPath}/issues/${item.number}`);
    t.deepEqual(item, single.body, `issue ${item.number} as listed`);
  }
  return listed.body;
}

test('a listed issue shows every change to what it shows, whoever made it', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const repo = await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  await hearth.call('PUT', '/repos/alice/tool/collaborators/bob', { auth: alice.bearer, body: { permission: 'write' } });
  const label = (name: string) => hearth.call('POST', '/repos/alice/tool/labels', { auth: alice.bearer, body: { name, color: 'f00' } });
  const bug = (await label('bug')).body.id;
  const ui = (await label('ui')).body.id;
  const v1 = (await hearth.call('POST', '/repos/alice/tool/milestones', { auth: alice.bearer, body: { title: 'v1' } })).body.id;
  await build.issue(hearth, repo, { title: 'first', labels: [bug], milestoneId: v1 });
  await build.issue(hearth, repo, { title: 'second', by: bob.user });
  await build.commit(hearth, repo, { files: { 'feature.txt': 'x\n' }, newBranch: 'feature' });
  const pull = await hearth.call('POST', '/repos/alice/tool/pulls', { auth: alice.bearer, body: { title: 'third', head: 'feature', base: 'main' } });
  t.is(pull.status, 201, JSON.stringify(pull.body));
  const byNumber = async () => new Map((await listedMatchSingle(t, hearth, 'alice/tool')).map((issue) => [issue.number, issue]));
  t.is((await byNumber()).get(1)!.title, 'first');
  // a second read answers from the kept texts
  t.is((await byNumber()).size, 3);

  const edit = (path: string, body: unknown, auth = alice.bearer) => hearth.call('PATCH', path, { auth, body });
  t.is((await edit('/repos/alice/tool/issues/1', { title: 'first, renamed' })).status, 201);
  t.is((await byNumber()).get(1)!.title, 'first, renamed');

  t.is((await edit(`/repos/alice/tool/labels/${bug}`, { name: 'defect' })).status, 200);
  t.deepEqual((await byNumber()).get(1)!.labels.map((l: { name: string }) => l.name), ['defect']);

  t.is((await hearth.call('POST', '/repos/alice/tool/issues/1/labels', { auth: alice.bearer, body: { labels: [ui] } })).status, 200);
  t.deepEqual((await byNumber()).get(1)!.labels.map((l: { name: string }) => l.name), ['defect', 'ui']);

  t.is((await edit(`/repos/alice/tool/milestones/${v1}`, { title: 'v1.0' })).status, 200);
  t.is((await byNumber()).get(1)!.milestone.title, 'v1.0');

  t.is((await edit('/repos/alice/tool/issues/2', { assignees: ['bob'] })).status, 201);
  t.deepEqual((await byNumber()).get(2)!.assignees.map((u: { login: string }) => u.login), ['bob']);

  // the poster and an assignee change their names: the same user shown on several issues
  t.is((await edit('/user/settings', { full_name: 'Bob B.' }, bob.bearer)).status, 200);
  const afterBob = await byNumber();
  t.is(afterBob.get(2)!.user.full_name, 'Bob B.');
  t.is(afterBob.get(2)!.assignees[0].full_name, 'Bob B.');

  const form = new FormData();
  form.append('attachment', new Blob([new Uint8Array(Buffer.from('notes'))]), 'notes.txt');
  const asset = await fetch(`${hearth.rootUrl}api/v1/repos/alice/tool/issues/2/assets`, { method: 'POST', headers: { Authorization: alice.bearer }, body: form });
  t.is(asset.status, 201);
  t.deepEqual((await byNumber()).get(2)!.assets.map((a: { name: string }) => a.name), ['notes.txt']);

  t.is((await edit('/repos/alice/tool/issues/2', { state: 'closed' })).status, 201);
  t.is((await byNumber()).get(2)!.state, 'closed');

  // a write from outside the API (a worker, an operator) is seen as well
  await hearth.store.db.query('UPDATE pull_request SET has_merged = true, merged_at = now() WHERE issue_id = (SELECT id FROM issue WHERE repo_id = $1 AND index = 3)', [repo.id]);
  t.true((await byNumber()).get(3)!.pull_request.merged);
  await hearth.store.db.query(`UPDATE "user" SET full_name = 'Alice A.' WHERE lower_name = 'alice'`);
  t.is((await byNumber()).get(1)!.user.full_name, 'Alice A.');

  t.is((await hearth.call('DELETE', `/repos/alice/tool/labels/${ui}`, { auth: alice.bearer })).status, 204);
  t.deepEqual((await byNumber()).get(1)!.labels.map((l: { name: string }) => l.name), ['defect']);

  // the repository's new name is in every address
  t.is((await edit('/repos/alice/tool', { name: 'gadget' })).status, 200);
  const renamed = await listedMatchSingle(t, hearth, 'alice/gadget');
  t.true(renamed.every((issue) => issue.url.includes('/repos/alice/gadget/issues/') && issue.repository.full_name === 'alice/gadget'));
});

test('page 50 and a filtered page list the same issues in the same order as before', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const repo = await build.repo(hearth, alice, { name: 'tool' });
  for (let i = 1; i <= 7; i++) await build.issue(hearth, repo, { title: `issue ${i}`, closed: i % 3 === 0 });
  const numbers = async (query: string) => (await hearth.call('GET', `/repos/alice/tool/issues${query}`)).body.map((i: { number: number }) => i.number);
  t.deepEqual(await numbers('?limit=2&page=1'), [7, 5]);
  t.deepEqual(await numbers('?limit=2&page=2'), [4, 2]);
  t.deepEqual(await numbers('?limit=2&page=3'), [1]);
  t.deepEqual(await numbers('?limit=2&page=50'), []);
  t.deepEqual(await numbers('?state=closed&limit=1&page=2'), [3]);
  const closed = await hearth.call('GET', '/repos/alice/tool/issues?state=closed&q=issue');
  t.is(closed.headers.get('x-total-count'), '2');
  t.is(closed.headers.get('content-type'), 'application/json; charset=utf-8');
});
