import test from 'ava';
import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import { startHearth, type TestHearth, type TestUser } from '../helpers/hearth.js';
import { refOnServer, remote } from '../git/git-client.js';

/** A source Hearth (it speaks Gitea's API) with labels, milestones, issues with comments and a gap, and a release. */
async function seedSource(source: TestHearth, alice: TestUser, bob: TestUser): Promise<void> {
  await build.repo(source, alice, { name: 'proj', autoInit: true, private: true });
  await source.call('PUT', '/repos/alice/proj/collaborators/bob', { auth: alice.bearer, body: { permission: 'write' } });
  const api = '/repos/alice/proj';
  const call = async (method: string, path: string, who: TestUser, body: unknown, status: number) => {
    const answer = await source.call(method, `${api}${path}`, { auth: who.bearer, body });
    if (answer.status !== status) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  const bug = await call('POST', '/labels', alice, { name: 'bug', color: '#ee0701', description: 'broken' }, 201);
  await call('POST', '/labels', alice, { name: 'feature', color: '#00ff00' }, 201);
  const v1 = await call('POST', '/milestones', alice, { title: 'v1', description: 'first', due_on: '2030-01-02T00:00:00Z' }, 201);
  await call('POST', '/milestones', alice, { title: 'v0', state: 'closed' }, 201);
  await call('POST', '/issues', alice, { title: 'First issue', body: 'it breaks', labels: [bug.id], milestone: v1.id }, 201);
  await call('POST', '/issues/1/comments', bob, { body: 'confirmed here' }, 201);
  await call('POST', '/issues/1/comments', alice, { body: 'thanks' }, 201);
  await call('POST', '/issues', alice, { title: 'Removed' }, 201);
  await call('POST', '/issues', bob, { title: 'Done already', body: 'was fixed' }, 201);
  await call('PATCH', '/issues/3', alice, { state: 'closed' }, 201);
  await call('DELETE', '/issues/2', alice, undefined, 204);
  // #4 an open pull request with a comment, #5 a merged one
  const file = (text: string) => Buffer.from(text).toString('base64');
  await call('POST', '/contents/feature.txt', alice, { content: file('feature'), new_branch: 'feature', message: 'Add the feature' }, 201);
  await call('POST', '/pulls', bob, { head: 'feature', base: 'main', title: 'The feature', body: 'please pull' }, 201);
  await call('POST', '/issues/4/comments', bob, { body: 'ready for review' }, 201);
  await call('POST', '/contents/done.txt', alice, { content: file('done'), new_branch: 'done', message: 'Add done' }, 201);
  await call('POST', '/pulls', alice, { head: 'done', base: 'main', title: 'Done work' }, 201);
  await call('POST', '/pulls/5/merge', alice, { Do: 'merge' }, 200);
  await call('POST', '/releases', alice, { tag_name: 'v1.0', name: 'One', body: 'notes' }, 201);
  await call('POST', '/wiki/new', alice, { title: 'Home', content_base64: Buffer.from('wiki home').toString('base64') }, 201);
  await drain(source);
}

test('a migration with service gitea (and gogs) reads labels, milestones, issues and pull requests with comments and releases from another Hearth through its API with the token', async (t) => {
  const [source, target] = await Promise.all([startHearth(t), startHearth(t, { HEARTH__migrations__ALLOW_LOCALNETWORKS: 'true' })]);
  const [alice, bob] = [await source.createUser('alice'), await source.createUser('bob')];
  await seedSource(source, alice, bob);
  const carol = await target.createUser('carol');

  const made = await target.call('POST', '/repos/migrate', {
    auth: carol.bearer,
    body: {
      clone_addr: remote(source, 'alice', 'proj'), repo_name: 'copy', service: 'gitea', auth_token: alice.token,
      issues: true, labels: true, milestones: true, releases: true, pull_requests: true, wiki: true,
    },
  });
  t.is(made.status, 201, JSON.stringify(made.body));
  const ran = await drain(target);
  t.deepEqual(ran.filter((job) => job.outcome instanceof Error).map((job) => `${job.name}: ${String(job.outcome)}`), [], 'no job failed (events of the imported items included)');
  const [task] = await target.store.db.query<{ status: string; message: string }>('SELECT status, message FROM migration_task');
  t.is(task.status, 'finished', task.message);

  const get = async (path: string) => (await target.call('GET', `/repos/carol/copy${path}`, { auth: carol.bearer })).body;
  t.deepEqual((await get('/labels')).map((l: { name: string; color: string }) => `${l.name} ${l.color}`), ['bug ee0701', 'feature 00ff00']);
  const milestones = await get('/milestones?state=all');
  t.deepEqual(milestones.map((m: { title: string; state: string }) => `${m.title} ${m.state}`).sort(), ['v0 closed', 'v1 open']);
  t.like(milestones.find((m: { title: string }) => m.title === 'v1'), { description: 'first', due_on: '2030-01-02T00:00:00Z', open_issues: 1 });

  const issues = await get('/issues?state=all&type=issues');
  t.deepEqual(issues.map((i: { number: number; title: string; state: string }) => `#${i.number} ${i.title} ${i.state}`), [
    '#3 Done already closed', '#1 First issue open',
  ]);
  const first = issues.find((i: { number: number }) => i.number === 1);
  t.like(first, { body: 'it breaks', original_author: 'alice', user: { login: 'carol' }, milestone: { title: 'v1' } });
  t.deepEqual(first.labels.map((l: { name: string }) => l.name), ['bug']);
  t.like(issues.find((i: { number: number }) => i.number === 3), { original_author: 'bob', body: 'was fixed' });
  const sourceIssue = (await source.call('GET', '/repos/alice/proj/issues/1', { auth: alice.bearer })).body;
  t.is(first.created_at, sourceIssue.created_at, 'dates are kept');
  const comments = await get('/issues/1/comments');
  t.deepEqual(comments.map((c: { body: string; original_author: string }) => `${c.original_author}: ${c.body}`), ['bob: confirmed here', 'alice: thanks']);
  // Pull requests keep their numbers, heads (as refs/pull/N/head), bases, states and merges.
  const sourcePulls = (await source.call('GET', '/repos/alice/proj/pulls?state=all', { auth: alice.bearer })).body;
  const pulls = await get('/pulls?state=all');
  const shape = (p: { number: number; title: string; state: string; merged: boolean; head: { ref: string; sha: string }; base: { ref: string } }) =>
    `#${p.number} ${p.title} ${p.state} merged=${p.merged} ${p.head.ref}@${p.head.sha} → ${p.base.ref}`;
  t.deepEqual(pulls.map(shape).sort(), sourcePulls.map(shape).sort());
  t.is(pulls.length, 2);
  const open = pulls.find((p: { number: number }) => p.number === 4);
  t.like(open, { body: 'please pull', mergeable: true, user: { login: 'carol' } });
  const merged = pulls.find((p: { number: number }) => p.number === 5);
  t.is(merged.merge_commit_sha, sourcePulls.find((p: { number: number }) => p.number === 5).merge_commit_sha);
  t.is(await refOnServer(target, 'carol', 'copy', 'refs/pull/4/head'), open.head.sha);
  t.deepEqual((await get('/pulls/4/files')).map((f: { filename: string }) => f.filename), ['feature.txt']);
  t.deepEqual((await get('/issues/4/comments')).map((c: { body: string; original_author: string }) => `${c.original_author}: ${c.body}`), ['bob: ready for review']);
  const [pullIssue] = await target.store.db.query<{ original_author: string }>(
    `SELECT i.original_author FROM issue i JOIN repository r ON r.id = i.repo_id WHERE r.name = 'copy' AND i.index = 4`,
  );
  t.is(pullIssue.original_author, 'bob');
  // numbers continue after the source's
  const next = await target.call('POST', '/repos/carol/copy/issues', { auth: carol.bearer, body: { title: 'new here' } });
  t.is(next.body.number, 6);
  t.like((await get('/releases'))[0], { tag_name: 'v1.0', name: 'One', body: 'notes' });
  const sourceHome = (await source.call('GET', '/repos/alice/proj/wiki/page/Home', { auth: alice.bearer })).body;
  t.like(await get('/wiki/page/Home'), { content_base64: Buffer.from('wiki home').toString('base64'), last_commit: { sha: sourceHome.last_commit.sha } });

  // Gogs' dialect of the same API: the same data.
  const gogs = await target.call('POST', '/repos/migrate', {
    auth: carol.bearer,
    body: { clone_addr: remote(source, 'alice', 'proj'), repo_name: 'from-gogs', service: 'gogs', auth_token: alice.token, issues: true, labels: true, milestones: true, pull_requests: true },
  });
  t.is(gogs.status, 201);
  await drain(target);
  const gogsIssues = (await target.call('GET', '/repos/carol/from-gogs/issues?state=all', { auth: carol.bearer })).body;
  t.deepEqual(gogsIssues.map((i: { number: number }) => i.number).sort(), [1, 3]);
  t.is((await target.call('GET', '/repos/carol/from-gogs/pulls?state=all', { auth: carol.bearer })).body.length, 0, "Gogs' API has no pull requests");
  t.is((await target.call('GET', '/repos/carol/from-gogs/labels', { auth: carol.bearer })).body.length, 2);
  t.false(target.deps.git.exists('carol', 'from-gogs.wiki'), 'no wiki unless asked');

  // Without the token the private source's API refuses, and the migration fails and leaves nothing.
  const refused = await target.call('POST', '/repos/migrate', {
    auth: carol.bearer, body: { clone_addr: remote(source, 'alice', 'proj'), repo_name: 'nope', service: 'gitea', issues: true },
  });
  t.is(refused.status, 201);
  await drain(target);
  t.is((await target.call('GET', '/repos/carol/nope', { auth: carol.bearer })).status, 404);
});
