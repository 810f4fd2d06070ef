import { createServer, request as httpRequest } from 'node:http';
import test from 'ava';
import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import { startHearth, type TestHearth, type TestUser } from '../helpers/hearth.js';
import { startReceiver } from '../helpers/receiver.js';
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
  const ready = await call('POST', '/issues/4/comments', bob, { body: 'ready for review' }, 201);
  // reviews with a code comment, and reactions to an issue, a pull request and comments
  const changes = await call('POST', '/pulls/4/reviews', alice, { event: 'REQUEST_CHANGES', body: 'not yet', comments: [{ path: 'feature.txt', body: 'typo here', new_position: 1 }] }, 200);
  await call('POST', '/pulls/4/reviews', alice, { event: 'COMMENT', body: 'looking better' }, 200);
  await call('POST', `/pulls/4/reviews/${changes.id}/dismissals`, alice, { message: 'fixed meanwhile' }, 200);
  await call('POST', '/issues/1/reactions', bob, { content: '+1' }, 201);
  await call('POST', '/issues/1/reactions', alice, { content: '+1' }, 201);
  await call('POST', '/issues/4/reactions', alice, { content: 'heart' }, 201);
  await call('POST', `/issues/comments/${ready.id}/reactions`, alice, { content: 'laugh' }, 201);
  await call('POST', '/contents/done.txt', alice, { content: file('done'), new_branch: 'done', message: 'Add done' }, 201);
  await call('POST', '/pulls', alice, { head: 'done', base: 'main', title: 'Done work' }, 201);
  await call('POST', '/pulls/5/reviews', bob, { event: 'APPROVED', body: 'ship it' }, 200);
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
  // reviews (with their code comments) and reactions, by the migrating user with the source's people kept
  const sourceReviews = (await source.call('GET', '/repos/alice/proj/pulls/4/reviews', { auth: alice.bearer })).body;
  const reviews = await get('/pulls/4/reviews');
  const review = (r: {
    state: string; body: string; user: { login: string }; commit_id: string; submitted_at: string; comments_count: number; dismissed: boolean; official: boolean; stale: boolean;
  }) => `${r.state} ${r.body} by ${r.user.login} at ${r.commit_id} ${r.submitted_at} with ${r.comments_count} dismissed=${r.dismissed} official=${r.official} stale=${r.stale}`;
  t.deepEqual(reviews.map(review), sourceReviews.map((r: Parameters<typeof review>[0]) => review({ ...r, user: { login: 'carol' } })));
  t.is(reviews.length, 2);
  t.like(reviews[0], { state: 'REQUEST_CHANGES', dismissed: true });
  const [reviewRow] = await target.store.db.query<{ original_author: string }>(`SELECT original_author FROM review WHERE id = $1`, [reviews[0].id]);
  t.is(reviewRow.original_author, 'alice');
  const codeComments = await get(`/pulls/4/reviews/${reviews[0].id}/comments`);
  const sourceCodeComments = (await source.call('GET', `/repos/alice/proj/pulls/4/reviews/${sourceReviews[0].id}/comments`, { auth: alice.bearer })).body;
  const code = (c: { path: string; body: string; position: number; original_position: number; commit_id: string; diff_hunk: string }) =>
    `${c.path}:${c.position}/${c.original_position} ${c.body} @${c.commit_id}\n${c.diff_hunk}`;
  t.deepEqual(codeComments.map(code), sourceCodeComments.map(code));
  t.like(codeComments[0], { path: 'feature.txt', body: 'typo here', position: 1 });
  t.true(codeComments[0].diff_hunk.includes('+feature'), 'the diff around the line is cut as here');
  t.like((await get('/pulls/5/reviews'))[0], { state: 'APPROVED', body: 'ship it' });
  const timeline = (await get('/issues/4/timeline')).map((c: { type: string; body: string }) => `${c.type}: ${c.body}`);
  t.true(timeline.includes('review: not yet') && timeline.includes('review: looking better'), JSON.stringify(timeline));
  const firstReactions = await get('/issues/1/reactions');
  t.deepEqual(firstReactions.map((r: { content: string }) => r.content), ['+1', '+1'], 'one per source account');
  // shown as their authors at the source, as Gitea's ReactionList.LoadUsers does: `name(service)`, id -1
  t.deepEqual(firstReactions.map((r: { user: { id: number; login: string } }) => `${r.user.id} ${r.user.login}`).sort(), ['-1 alice(gitea)', '-1 bob(gitea)']);
  t.is(firstReactions[0].user.html_url, `${target.rootUrl}${firstReactions[0].user.login.replace('(', '%28').replace(')', '%29')}`);
  t.is((await target.call('POST', '/repos/carol/copy/issues/1/reactions', { auth: carol.bearer, body: { content: '+1' } })).status, 201, 'the migrating user reacts in their own name');
  t.deepEqual((await get('/issues/1/reactions')).map((r: { user: { login: string } }) => r.user.login).sort(), ['alice(gitea)', 'bob(gitea)', 'carol']);
  const [copy] = await target.store.db.query<{ original_service_type: string }>(`SELECT original_service_type FROM repository WHERE name = 'copy'`);
  t.is(copy.original_service_type, 'gitea');
  t.deepEqual((await get('/issues/4/reactions')).map((r: { content: string }) => r.content), ['heart']);
  const readyHere = (await get('/issues/4/comments'))[0];
  t.deepEqual((await get(`/issues/comments/${readyHere.id}/reactions`)).map((r: { content: string }) => r.content), ['laugh']);
  const reactionAuthors = await target.store.db.query<{ original_author: string }>(
    `SELECT x.original_author FROM reaction x JOIN issue i ON i.id = x.issue_id JOIN repository r ON r.id = i.repo_id WHERE r.name = 'copy' AND x.original_author <> '' ORDER BY x.original_author`,
  );
  t.deepEqual(reactionAuthors.map((r) => r.original_author), ['alice', 'alice', 'alice', 'bob']);

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

test("a migration's imported issues, comments, pull requests, reviews, labels, milestones and releases reach no webhook and no notification; what happens afterwards does, and the counters are right", async (t) => {
  const [source, target] = await Promise.all([
    startHearth(t),
    startHearth(t, { HEARTH__migrations__ALLOW_LOCALNETWORKS: 'true', HEARTH__webhook__ALLOWED_HOST_LIST: 'loopback' }),
  ]);
  const receiver = await startReceiver(t);
  const [alice, bob] = [await source.createUser('alice'), await source.createUser('bob')];
  await seedSource(source, alice, bob);
  const [carol, dave] = [await target.createUser('carol'), await target.createUser('dave')];

  const made = await target.call('POST', '/repos/migrate', {
    auth: carol.bearer,
    body: {
      clone_addr: remote(source, 'alice', 'proj'), repo_name: 'copy', service: 'forgejo', auth_token: alice.token,
      issues: true, labels: true, milestones: true, releases: true, pull_requests: true,
    },
  });
  t.is(made.status, 201, JSON.stringify(made.body));
  // While it migrates, a hook on every event of the repository and a watcher are set up.
  const events = [
    'create', 'delete', 'push', 'issues', 'issue_assign', 'issue_label', 'issue_milestone', 'issue_comment', 'pull_request', 'pull_request_assign',
    'pull_request_label', 'pull_request_milestone', 'pull_request_comment', 'pull_request_review_approved', 'pull_request_review_rejected',
    'pull_request_review_comment', 'pull_request_sync', 'release', 'repository',
  ];
  const hook = await target.call('POST', '/repos/carol/copy/hooks', {
    auth: carol.bearer, body: { type: 'gitea', config: { url: receiver.url, content_type: 'json' }, events, active: true },
  });
  t.is(hook.status, 201, JSON.stringify(hook.body));
  t.is((await target.call('PUT', '/repos/carol/copy/subscription', { auth: dave.bearer })).status, 200);

  const ran = await drain(target);
  t.deepEqual(ran.filter((job) => job.outcome instanceof Error).map((job) => `${job.name}: ${String(job.outcome)}`), []);
  const [task] = await target.store.db.query<{ status: string; message: string }>('SELECT status, message FROM migration_task');
  t.is(task.status, 'finished', task.message);
  t.is((await target.call('GET', '/repos/carol/copy/issues/1/reactions', { auth: carol.bearer })).body.length, 2, 'the items were imported');

  const repoId = made.body.id as number;
  const kinds = await target.store.db.query<{ kind: string }>('SELECT DISTINCT kind FROM domain_event WHERE repo_id = $1 ORDER BY kind', [repoId]);
  t.deepEqual(kinds.map((k) => k.kind), ['repository.created', 'repository.migrated'], 'the repository\'s own events only');
  const tasks = await target.store.db.query<{ event_type: string }>('SELECT event_type FROM hook_task WHERE hook_id = $1', [hook.body.id]);
  t.deepEqual(tasks.filter((task) => task.event_type !== 'repository').map((task) => task.event_type), [], 'no hook task for an imported item');
  t.deepEqual(receiver.requests.map((r) => r.headers['x-gitea-event']).filter((kind) => kind !== 'repository'), [], 'nothing imported arrived');
  t.deepEqual(ran.filter((job) => job.name === 'mail'), [], 'no mail');
  t.deepEqual((await target.call('GET', '/notifications?all=true', { auth: dave.bearer })).body, [], 'the watcher has no notification');

  // the repository's counters, indexes and timelines are those of the imported items
  const repo = (await target.call('GET', '/repos/carol/copy', { auth: carol.bearer })).body;
  t.like(repo, { open_issues_count: 1, open_pr_counter: 1, release_counter: 1 });
  const [counts] = await target.store.db.query<Record<string, number>>(
    'SELECT num_issues::int, num_closed_issues::int, num_pulls::int, num_closed_pulls::int FROM repository WHERE id = $1', [repoId],
  );
  t.deepEqual(counts, { num_issues: 2, num_closed_issues: 1, num_pulls: 2, num_closed_pulls: 1 });
  t.like((await target.call('GET', '/repos/carol/copy/issues/1', { auth: carol.bearer })).body, { comments: 2, labels: [{ name: 'bug' }] });
  const labels = (await target.call('GET', '/repos/carol/copy/labels', { auth: carol.bearer })).body;
  const [bug] = await target.store.db.query<{ num_issues: number }>('SELECT num_issues::int FROM label WHERE id = $1', [labels[0].id]);
  t.is(bug.num_issues, 1);
  const closedTimeline = (await target.call('GET', '/repos/carol/copy/issues/3/timeline', { auth: carol.bearer })).body;
  t.true(closedTimeline.some((c: { type: string }) => c.type === 'close'));

  // A change made here afterwards is delivered and notified as usual.
  const delivered = receiver.requests.length;
  const fresh = await target.call('POST', '/repos/carol/copy/issues', { auth: carol.bearer, body: { title: 'after the migration' } });
  t.is(fresh.body.number, 6);
  await drain(target);
  const [after] = (await receiver.waitFor(delivered + 1)).slice(delivered);
  t.is(after.headers['x-gitea-event'], 'issues');
  t.like(after.json, { action: 'opened', issue: { number: 6, title: 'after the migration' } });
  const notes = (await target.call('GET', '/notifications', { auth: dave.bearer })).body;
  t.deepEqual(notes.map((n: { subject: { title: string } }) => n.subject.title), ['after the migration']);
});

/** A front of `source` that answers 500 to the API requests `failing` matches and passes everything else on. */
async function startFailingFront(t: Parameters<typeof startHearth>[0], source: TestHearth, failing: RegExp): Promise<{ url: string; refused: string[] }> {
  const target = new URL(source.rootUrl);
  const refused: string[] = [];
  const server = createServer((req, res) => {
    if (failing.test(req.url ?? '')) {
      refused.push(req.url!.split('?')[0]);
      res.writeHead(500, { 'Content-Type': 'application/json' }).end('{"message":"internal server error"}');
      return;
    }
    const forwarded = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forwarded.on('error', () => res.destroy());
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`, refused };
}

test("reactions and reviews the source fails to give are a warning on the migration task, and the migration goes on (Gitea's WarnAndNotice)", async (t) => {
  const [source, target] = await Promise.all([startHearth(t), startHearth(t, { HEARTH__migrations__ALLOW_LOCALNETWORKS: 'true' })]);
  const [alice, bob] = [await source.createUser('alice'), await source.createUser('bob')];
  await seedSource(source, alice, bob);
  const carol = await target.createUser('carol');
  const front = await startFailingFront(t, source, /^\/api\/v1\/repos\/alice\/proj\/(issues\/4\/reactions|issues\/comments\/\d+\/reactions|pulls\/4\/reviews)/);

  const made = await target.call('POST', '/repos/migrate', {
    auth: carol.bearer,
    body: { clone_addr: `${front.url}alice/proj.git`, repo_name: 'copy', service: 'gitea', auth_token: alice.token, issues: true, pull_requests: true },
  });
  t.is(made.status, 201, JSON.stringify(made.body));
  await drain(target);
  const [task] = await target.store.db.query<{ status: string; message: string }>('SELECT status, message FROM migration_task');
  t.is(task.status, 'finished', task.message);
  const warnings = task.message.split('\n');
  t.true(warnings.some((w) => /reactions to #4: the source API answered 500/.test(w)), task.message);
  t.true(warnings.some((w) => /reactions to comment \d+ of #1/.test(w)), task.message);
  t.true(warnings.some((w) => /reviews of pull request #4: the source API answered 500/.test(w)), task.message);
  t.false(task.message.includes(alice.token));
  t.true(front.refused.length >= 3, JSON.stringify(front.refused));

  // everything else came: issues, comments, the other reactions, the pull requests and the reviews that could be read
  const get = async (path: string) => (await target.call('GET', `/repos/carol/copy${path}`, { auth: carol.bearer })).body;
  t.deepEqual((await get('/issues?state=all')).map((i: { number: number }) => i.number).sort(), [1, 3, 4, 5]);
  t.deepEqual((await get('/issues/1/comments')).map((c: { original_author: string; body: string }) => `${c.original_author}: ${c.body}`), ['bob: confirmed here', 'alice: thanks']);
  t.is((await get('/issues/1/reactions')).length, 2);
  t.deepEqual(await get('/issues/4/reactions'), []);
  t.deepEqual(await get('/pulls/4/reviews'), []);
  const kept = await get('/pulls/5/reviews');
  t.like(kept[0], { state: 'APPROVED', body: 'ship it' });
  const [reviewRow] = await target.store.db.query<{ original_author: string; reviewer_id: number }>('SELECT original_author, reviewer_id FROM review WHERE id = $1', [kept[0].id]);
  t.deepEqual(reviewRow, { original_author: 'bob', reviewer_id: carol.user.id }, 'the source reviewer is kept as original_author');
});
