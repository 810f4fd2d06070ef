import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth } from '../helpers/hearth.js';

async function setUp(t: Parameters<typeof startHearth>[0]) {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const repo = await build.repo(hearth, alice, { name: 'tool' });
  return { hearth, alice, bob, repo };
}

const eventsOf = async (hearth: Awaited<ReturnType<typeof startHearth>>, repoId: number) =>
  hearth.store.db.query<{ kind: string; payload: Record<string, unknown> }>(
    `SELECT kind, payload FROM domain_event WHERE repo_id = $1 AND (kind LIKE 'issue.%' OR kind LIKE 'comment.%') ORDER BY id`, [repoId],
  );

test('creating an issue answers Gitea\'s Issue, stores it with the next index and emits issue.opened', async (t) => {
  const { hearth, alice, repo } = await setUp(t);
  const answer = await hearth.call('POST', '/repos/alice/tool/issues', { auth: alice.bearer, body: { title: 'First', body: 'hello @bob', ref: 'main' } });
  t.is(answer.status, 201, JSON.stringify(answer.body));
  t.like(answer.body, {
    number: 1, title: 'First', body: 'hello @bob', ref: 'main', state: 'open', is_locked: false, comments: 0, labels: [], assets: [],
    milestone: null, assignee: null, assignees: null, closed_at: null, due_date: null, pull_request: null, pin_order: 0,
    original_author: '', original_author_id: 0,
    repository: { id: repo.id, name: 'tool', owner: 'alice', full_name: 'alice/tool' },
  });
  t.is(answer.body.user.login, 'alice');
  t.is(answer.body.url, `${hearth.rootUrl}api/v1/repos/alice/tool/issues/1`);
  t.is(answer.body.html_url, `${hearth.rootUrl}alice/tool/issues/1`);
  t.regex(answer.body.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

  const [row] = await hearth.store.db.query<{ index: number; poster_id: number; repo_id: number }>('SELECT index, poster_id, repo_id FROM issue WHERE id = $1', [answer.body.id]);
  t.deepEqual(row, { index: 1, poster_id: alice.user.id, repo_id: repo.id });
  const [counters] = await hearth.store.db.query('SELECT num_issues, num_closed_issues FROM repository WHERE id = $1', [repo.id]);
  t.deepEqual(counters, { num_issues: 1, num_closed_issues: 0 });
  t.is((await hearth.call('GET', '/repos/alice/tool')).body.open_issues_count, 1);
  const events = await eventsOf(hearth, repo.id);
  t.deepEqual(events, [{ kind: 'issue.opened', payload: { issue_id: answer.body.id, index: 1, is_pull: false } }]);
  const mentions = await hearth.store.db.query('SELECT user_id FROM issue_mention WHERE issue_id = $1', [answer.body.id]);
  t.is(mentions.length, 1);

  const got = await hearth.call('GET', '/repos/alice/tool/issues/1');
  t.is(got.status, 200);
  t.deepEqual(got.body, answer.body);
  t.is((await hearth.call('GET', '/repos/alice/tool/issues/2')).status, 404);
  t.is((await hearth.call('GET', '/repos/alice/tool/issues/abc')).status, 404);
});

test('fifty concurrent creations get the indexes 1..50 without gaps', async (t) => {
  const { hearth, alice, repo } = await setUp(t);
  const answers = await Promise.all(Array.from({ length: 50 }, (_, i) =>
    hearth.call('POST', '/repos/alice/tool/issues', { auth: alice.bearer, body: { title: `issue ${i}` } })));
  t.deepEqual(answers.map((a) => a.status), answers.map(() => 201));
  t.deepEqual(answers.map((a) => a.body.number).sort((a, b) => a - b), Array.from({ length: 50 }, (_, i) => i + 1));
  const rows = await hearth.store.db.query<{ index: number }>('SELECT index FROM issue WHERE repo_id = $1 ORDER BY index', [repo.id]);
  t.deepEqual(rows.map((r) => r.index), Array.from({ length: 50 }, (_, i) => i + 1));
  const [counters] = await hearth.store.db.query('SELECT num_issues FROM repository WHERE id = $1', [repo.id]);
  t.deepEqual(counters, { num_issues: 50 });
});

test('bad input is refused with 4xx and writes nothing, and a refused creation gives its index back', async (t) => {
  const { hearth, alice, repo } = await setUp(t);
  const bad = [
    { title: '' },
    { title: 'x'.repeat(256) },
    { title: 'ok', labels: [999999] },
    { title: 'ok', milestone: 999999 },
    { title: 'ok', assignees: ['nobody-here'] },
    { title: 'ok', assignees: ['bob'] },
    { title: 'ok', due_date: '2024-13-45' },
    { title: 'ok', due_date: 'tomorrow' },
    { title: 42 },
  ];
  for (const body of bad) {
    const answer = await hearth.call('POST', '/repos/alice/tool/issues', { auth: alice.bearer, body });
    t.true(answer.status >= 400 && answer.status < 500, `${JSON.stringify(body)} → ${answer.status}`);
    t.truthy(answer.body.message);
  }
  t.deepEqual(await hearth.store.db.query('SELECT id FROM issue WHERE repo_id = $1', [repo.id]), []);
  t.deepEqual(await eventsOf(hearth, repo.id), []);
  const answer = await hearth.call('POST', '/repos/alice/tool/issues', { auth: alice.bearer, body: { title: 'after' } });
  t.is(answer.body.number, 1);
});
