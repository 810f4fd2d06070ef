import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';

async function setUp(t: Parameters<typeof startHearth>[0]) {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const carol = await hearth.createUser('carol');
  const repo = await build.repo(hearth, alice, { name: 'tool' });
  return { hearth, alice, bob, carol, repo };
}

const issueRow = async (hearth: TestHearth, id: number) =>
  (await hearth.store.db.query<Record<string, unknown>>('SELECT * FROM issue WHERE id = $1', [id]))[0] as Record<string, unknown> | undefined;
const kinds = async (hearth: TestHearth, repoId: number) =>
  (await hearth.store.db.query<{ kind: string }>(`SELECT kind FROM domain_event WHERE repo_id = $1 AND kind LIKE 'issue.%' ORDER BY id`, [repoId])).map((r) => r.kind);

test('an edit changes only the allowed fields, answers 201 with the loaded milestone, and records each change', async (t) => {
  const { hearth, alice, repo } = await setUp(t);
  const issue = await build.issue(hearth, repo, { title: 'Old' });
  const milestone = await hearth.call('POST', '/repos/alice/tool/milestones', { auth: alice.bearer, body: { title: 'v1' } });
  t.is(milestone.status, 201);
  const answer = await hearth.call('PATCH', '/repos/alice/tool/issues/1', {
    auth: alice.bearer,
    body: {
      title: 'New', body: 'text', ref: 'refs/heads/x', milestone: milestone.body.id, due_date: '2030-05-06T10:00:00Z',
      // fields outside EditIssueOption are ignored (spec rule 10)
      number: 99, user: { id: -1 }, poster_id: -1, repository: { id: 999 }, created_at: '2000-01-01T00:00:00Z', id: 12345,
    },
  });
  t.is(answer.status, 201, JSON.stringify(answer.body));
  t.like(answer.body, { number: 1, title: 'New', body: 'text', ref: 'refs/heads/x', due_date: '2030-05-06T23:59:59Z' });
  t.like(answer.body.milestone, { id: milestone.body.id, title: 'v1', open_issues: 1, closed_issues: 0 });
  t.is(answer.body.user.login, 'alice');
  const row = await issueRow(hearth, issue.id);
  t.like(row, { index: 1, poster_id: alice.user.id, repo_id: repo.id, title: 'New', content: 'text', milestone_id: milestone.body.id });
  t.is((row!.created as Date).getTime(), issue.created.getTime());
  // one event per changed field (title, body, ref, then the due date), as Gitea notifies them
  t.deepEqual(await kinds(hearth, repo.id), ['issue.opened', 'issue.edited', 'issue.edited', 'issue.edited', 'issue.edited', 'issue.milestoned']);
  const edits = await hearth.store.db.query<{ payload: Record<string, unknown> }>(
    `SELECT payload FROM domain_event WHERE kind = 'issue.edited' ORDER BY id LIMIT 3`);
  const facts = { issue_id: issue.id, index: 1, is_pull: false };
  t.deepEqual(edits.map((e) => e.payload), [{ ...facts, previous: { title: 'Old' } }, { ...facts, previous: { body: '' } }, { ...facts, previous: { ref: '' } }]);

  const unset = await hearth.call('PATCH', '/repos/alice/tool/issues/1', { auth: alice.bearer, body: { unset_due_date: true, milestone: 0 } });
  t.is(unset.status, 201);
  t.is(unset.body.due_date, null);
  t.is(unset.body.milestone, null);
  const zero = await hearth.call('POST', '/repos/alice/tool/issues/1/deadline', { auth: alice.bearer, body: { due_date: '2031-01-02T03:04:05+02:00' } });
  t.is(zero.status, 201);
  t.deepEqual(zero.body, { due_date: '2031-01-02T23:59:59Z' });
  t.is((await hearth.call('GET', '/repos/alice/tool/issues/1')).body.due_date, '2031-01-02T23:59:59Z');
  const removed = await hearth.call('POST', '/repos/alice/tool/issues/1/deadline', { auth: alice.bearer, body: { due_date: null } });
  t.is(removed.status, 201);
  t.is((await issueRow(hearth, issue.id))!.deadline, null);
  const types = (await hearth.store.db.query<{ type: number }>('SELECT type FROM comment WHERE issue_id = $1 ORDER BY id', [issue.id])).map((r) => r.type);
  t.deepEqual(types, [10, 33, 16, 8, 18, 8, 16, 18]);
});

test('closing and reopening move the counters, record the time and refuse to close over open dependencies', async (t) => {
  const { hearth, alice, repo } = await setUp(t);
  const issue = await build.issue(hearth, repo);
  const blocker = await build.issue(hearth, repo);
  await hearth.store.db.query('INSERT INTO issue_dependency (issue_id, dependency_id) VALUES ($1, $2)', [issue.id, blocker.id]);
  const refused = await hearth.call('PATCH', '/repos/alice/tool/issues/1', { auth: alice.bearer, body: { state: 'closed', title: 'changed' } });
  t.is(refused.status, 412);
  t.like(await issueRow(hearth, issue.id), { is_closed: false, title: issue.title });
  t.is((await hearth.call('PATCH', '/repos/alice/tool/issues/2', { auth: alice.bearer, body: { state: 'closed' } })).status, 201);
  const closed = await hearth.call('PATCH', '/repos/alice/tool/issues/1', { auth: alice.bearer, body: { state: 'closed' } });
  t.is(closed.status, 201);
  t.is(closed.body.state, 'closed');
  t.truthy(closed.body.closed_at);
  const [counters] = await hearth.store.db.query('SELECT num_issues, num_closed_issues FROM repository WHERE id = $1', [repo.id]);
  t.deepEqual(counters, { num_issues: 2, num_closed_issues: 2 });
  const reopened = await hearth.call('PATCH', '/repos/alice/tool/issues/1', { auth: alice.bearer, body: { state: 'open' } });
  t.is(reopened.body.state, 'open');
  t.is(reopened.body.closed_at, null);
  t.deepEqual(await kinds(hearth, repo.id), ['issue.opened', 'issue.opened', 'issue.closed', 'issue.closed', 'issue.reopened']);
  t.is((await hearth.call('PATCH', '/repos/alice/tool/issues/1', { auth: alice.bearer, body: { state: 'shut' } })).status, 422);
});

test('the poster may edit the text, readers may not, and only writers set assignees, milestones and dates', async (t) => {
  const { hearth, alice, bob, carol, repo } = await setUp(t);
  const mine = await hearth.call('POST', '/repos/alice/tool/issues', { auth: bob.bearer, body: { title: 'by bob', assignees: ['alice'], labels: [], due_date: '2030-01-01T00:00:00Z' } });
  t.is(mine.status, 201);
  t.is(mine.body.assignees, null, 'a reader cannot assign');
  t.is(mine.body.due_date, null);
  const edited = await hearth.call('PATCH', '/repos/alice/tool/issues/1', { auth: bob.bearer, body: { title: 'by bob, edited', assignees: ['alice'], due_date: '2030-01-01T00:00:00Z' } });
  t.is(edited.status, 201);
  t.is(edited.body.title, 'by bob, edited');
  t.is(edited.body.assignees, null);
  t.is(edited.body.due_date, null);
  t.is((await hearth.call('PATCH', '/repos/alice/tool/issues/1', { auth: carol.bearer, body: { title: 'carol' } })).status, 403);
  t.is((await hearth.call('PATCH', '/repos/alice/tool/issues/1', { body: { title: 'anon' } })).status, 401);
  t.is((await issueRow(hearth, mine.body.id))!.title, 'by bob, edited');
});

test('assignees must be assignable: 422 on create and on edit, nothing assigned', async (t) => {
  const { hearth, alice, bob, carol, repo } = await setUp(t);
  t.is((await hearth.call('PUT', '/repos/alice/tool/collaborators/bob', { auth: alice.bearer, body: { permission: 'write' } })).status, 204);
  const refused = await hearth.call('POST', '/repos/alice/tool/issues', { auth: alice.bearer, body: { title: 'x', assignees: ['bob', 'carol'] } });
  t.is(refused.status, 422);
  t.deepEqual(await hearth.store.db.query('SELECT id FROM issue WHERE repo_id = $1', [repo.id]), []);
  const made = await hearth.call('POST', '/repos/alice/tool/issues', { auth: alice.bearer, body: { title: 'x', assignee: 'alice', assignees: ['bob'] } });
  t.is(made.status, 201);
  t.deepEqual(made.body.assignees.map((u: { login: string }) => u.login).sort(), ['alice', 'bob']);
  t.truthy(made.body.assignee);
  const bad = await hearth.call('PATCH', '/repos/alice/tool/issues/1', { auth: alice.bearer, body: { assignees: ['carol'] } });
  t.is(bad.status, 422);
  const rows = await hearth.store.db.query<{ assignee_id: number }>('SELECT assignee_id FROM issue_assignees WHERE issue_id = $1 ORDER BY assignee_id', [made.body.id]);
  t.deepEqual(rows.map((r) => r.assignee_id), [alice.user.id, bob.user.id]);
  const cleared = await hearth.call('PATCH', '/repos/alice/tool/issues/1', { auth: alice.bearer, body: { assignees: [] } });
  t.is(cleared.body.assignees, null);
  const events = await kinds(hearth, repo.id);
  t.deepEqual(events.filter((k) => k.endsWith('assigned')), ['issue.assigned', 'issue.assigned', 'issue.unassigned', 'issue.unassigned']);
  t.truthy(carol);
});

test('deleting an issue needs repository admin and takes its rows and counters with it', async (t) => {
  const { hearth, alice, bob, repo } = await setUp(t);
  await hearth.call('PUT', '/repos/alice/tool/collaborators/bob', { auth: alice.bearer, body: { permission: 'write' } });
  const issue = await build.issue(hearth, repo, { assignees: ['bob'] });
  await hearth.call('POST', '/repos/alice/tool/issues/1/comments', { auth: bob.bearer, body: { body: 'hi' } });
  t.is((await hearth.call('DELETE', '/repos/alice/tool/issues/1', { auth: bob.bearer })).status, 403);
  t.is((await hearth.call('DELETE', '/repos/alice/tool/issues/1', { auth: alice.bearer })).status, 204);
  t.is(await issueRow(hearth, issue.id), undefined);
  t.deepEqual(await hearth.store.db.query('SELECT id FROM comment WHERE issue_id = $1', [issue.id]), []);
  const [counters] = await hearth.store.db.query('SELECT num_issues, num_closed_issues FROM repository WHERE id = $1', [repo.id]);
  t.deepEqual(counters, { num_issues: 0, num_closed_issues: 0 });
  t.is((await hearth.call('GET', '/repos/alice/tool/issues/1')).status, 404);
  t.is((await kinds(hearth, repo.id)).at(-1), 'issue.deleted');
  const next = await hearth.call('POST', '/repos/alice/tool/issues', { auth: alice.bearer, body: { title: 'next' } });
  t.is(next.body.number, 2, 'indexes are not reused');
});

test('deleting a pull request\'s issue removes its refs once committed; an archived repository takes no new issues or comments', async (t) => {
  const { hearth, alice, repo } = await setUp(t);
  const { execFileSync } = await import('node:child_process');
  const withCode = await build.repo(hearth, alice, { name: 'code', autoInit: true });
  const dir = hearth.deps.git.pathOf('alice', 'code');
  const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8' }).trim();
  await build.issue(hearth, withCode, { isPull: true });
  await build.issue(hearth, withCode, { isPull: true });
  git('update-ref', 'refs/pull/1/head', 'main');
  git('update-ref', 'refs/pull/10/head', 'main');
  t.is((await hearth.call('DELETE', '/repos/alice/code/issues/1', { auth: alice.bearer })).status, 204);
  t.deepEqual(git('for-each-ref', '--format=%(refname)', 'refs/pull').split('\n'), ['refs/pull/10/head']);
  const [counters] = await hearth.store.db.query('SELECT num_pulls FROM repository WHERE id = $1', [withCode.id]);
  t.deepEqual(counters, { num_pulls: 1 });

  await build.issue(hearth, repo);
  await hearth.store.db.query('UPDATE repository SET is_archived = true WHERE id = $1', [repo.id]);
  t.is((await hearth.call('POST', '/repos/alice/tool/issues', { auth: alice.bearer, body: { title: 'x' } })).status, 423);
  t.is((await hearth.call('POST', '/repos/alice/tool/issues/1/comments', { auth: alice.bearer, body: { body: 'x' } })).status, 423);
  t.deepEqual(await hearth.store.db.query('SELECT index FROM issue WHERE repo_id = $1', [repo.id]), [{ index: 1 }]);
});
