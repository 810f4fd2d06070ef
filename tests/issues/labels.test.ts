import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';

const labelIdsOf = async (hearth: TestHearth, issueId: number) =>
  (await hearth.store.db.query<{ label_id: number }>('SELECT label_id FROM issue_label WHERE issue_id = $1 ORDER BY label_id', [issueId])).map((r) => r.label_id);

async function label(hearth: TestHearth, path: string, auth: string, name: string, exclusive = false) {
  const answer = await hearth.call('POST', path, { auth, body: { name, color: 'ff0000', exclusive } });
  if (answer.status !== 201) throw new Error(JSON.stringify(answer.body));
  return answer.body.id as number;
}

test('repository labels: CRUD with normalised colours, by id or name, 422 on a bad colour', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  await build.repo(hearth, alice, { name: 'tool' });
  const made = await hearth.call('POST', '/repos/alice/tool/labels', { auth: alice.bearer, body: { name: 'bug', color: '#F0A', description: 'd' } });
  t.is(made.status, 201);
  t.like(made.body, { name: 'bug', color: 'ff00aa', description: 'd', exclusive: false, is_archived: false });
  t.is(made.body.url, `${hearth.rootUrl}api/v1/repos/alice/tool/labels/${made.body.id}`);
  t.is((await hearth.call('POST', '/repos/alice/tool/labels', { auth: alice.bearer, body: { name: 'x', color: 'nothex' } })).status, 422);
  t.is((await hearth.call('POST', '/repos/alice/tool/labels', { auth: bob.bearer, body: { name: 'x', color: 'fff' } })).status, 403);
  t.is((await hearth.call('GET', '/repos/alice/tool/labels')).body.length, 1);
  t.is((await hearth.call('GET', '/repos/alice/tool/labels/bug')).body.id, made.body.id);
  t.is((await hearth.call('GET', `/repos/alice/tool/labels/${made.body.id}`)).body.name, 'bug');
  const edited = await hearth.call('PATCH', `/repos/alice/tool/labels/${made.body.id}`, { auth: alice.bearer, body: { color: '00FF00', exclusive: true } });
  t.like(edited.body, { color: '00ff00', exclusive: true, name: 'bug' });
  t.is((await hearth.call('DELETE', `/repos/alice/tool/labels/${made.body.id}`, { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('GET', `/repos/alice/tool/labels/${made.body.id}`)).status, 404);
});

test('exclusive scopes: adding, replacing and creating never leave two labels of one scope, and the last one wins', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const repo = await build.repo(hearth, alice, { name: 'tool' });
  const path = '/repos/alice/tool/labels';
  const high = await label(hearth, path, alice.bearer, 'priority/high', true);
  const low = await label(hearth, path, alice.bearer, 'priority/low', true);
  const alphaA = await label(hearth, path, alice.bearer, 'scope/alpha/a', true);
  const betaA = await label(hearth, path, alice.bearer, 'scope/beta/a', true);
  const plain = await label(hearth, path, alice.bearer, 'kind/bug', false);
  const plain2 = await label(hearth, path, alice.bearer, 'kind/feature', false);

  const created = await hearth.call('POST', '/repos/alice/tool/issues', { auth: alice.bearer, body: { title: 'x', labels: [high, low, plain, plain2] } });
  t.is(created.status, 201);
  t.deepEqual(await labelIdsOf(hearth, created.body.id), [low, plain, plain2].sort((a, b) => a - b));

  const added = await hearth.call('POST', '/repos/alice/tool/issues/1/labels', { auth: alice.bearer, body: { labels: [high] } });
  t.is(added.status, 200);
  t.deepEqual(await labelIdsOf(hearth, created.body.id), [high, plain, plain2].sort((a, b) => a - b));
  t.deepEqual(added.body.map((l: { id: number }) => l.id).sort(), [high, plain, plain2].sort((a, b) => a - b));

  await hearth.call('POST', '/repos/alice/tool/issues/1/labels', { auth: alice.bearer, body: { labels: ['scope/alpha/a', 'scope/beta/a', 'priority/low', 'priority/high'] } });
  t.deepEqual(await labelIdsOf(hearth, created.body.id), [high, alphaA, betaA, plain, plain2].sort((a, b) => a - b), 'scope/alpha and scope/beta are different scopes');

  const replaced = await hearth.call('PUT', '/repos/alice/tool/issues/1/labels', { auth: alice.bearer, body: { labels: [high, low, plain] } });
  t.is(replaced.status, 200);
  t.deepEqual(await labelIdsOf(hearth, created.body.id), [low, plain].sort((a, b) => a - b));

  const unknown = await hearth.call('PUT', '/repos/alice/tool/issues/1/labels', { auth: alice.bearer, body: { labels: [999999] } });
  t.is(unknown.status, 422);
  t.deepEqual(await labelIdsOf(hearth, created.body.id), [low, plain].sort((a, b) => a - b), 'a refused replacement changes nothing');

  const [counts] = await hearth.store.db.query('SELECT num_issues FROM label WHERE id = $1', [low]);
  t.deepEqual(counts, { num_issues: 1 });
  t.is((await hearth.call('DELETE', `/repos/alice/tool/issues/1/labels/${low}`, { auth: alice.bearer })).status, 204);
  t.deepEqual(await labelIdsOf(hearth, created.body.id), [plain]);
  t.is((await hearth.call('DELETE', '/repos/alice/tool/issues/1/labels/999999', { auth: alice.bearer })).status, 422);
  t.is((await hearth.call('DELETE', '/repos/alice/tool/issues/1/labels', { auth: alice.bearer })).status, 204);
  t.deepEqual(await labelIdsOf(hearth, created.body.id), []);
  const events = (await hearth.store.db.query<{ kind: string }>(`SELECT kind FROM domain_event WHERE repo_id = $1 AND kind LIKE 'issue.%label%' ORDER BY id`, [repo.id])).map((r) => r.kind);
  t.true(events.includes('issue.labelled') && events.includes('issue.unlabelled'));
});

test('organization labels are usable on the organization\'s repositories with the same exclusive rule; deleting a label removes it from issues', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const org = await build.org(hearth, alice, { name: 'acme' });
  const repo = await build.repo(hearth, org, { name: 'tool' });
  const orgHigh = await label(hearth, '/orgs/acme/labels', alice.bearer, 'priority/high', true);
  const repoLow = await label(hearth, '/repos/acme/tool/labels', alice.bearer, 'priority/low', true);
  const issue = await build.issue(hearth, repo, { labels: [repoLow] });
  const added = await hearth.call('POST', '/repos/acme/tool/issues/1/labels', { auth: alice.bearer, body: { labels: [orgHigh] } });
  t.is(added.status, 200, JSON.stringify(added.body));
  t.deepEqual(await labelIdsOf(hearth, issue.id), [orgHigh]);
  t.is(added.body[0].url, `${hearth.rootUrl}api/v1/orgs/acme/labels/${orgHigh}`);
  t.is((await hearth.call('DELETE', `/orgs/acme/labels/${orgHigh}`, { auth: alice.bearer })).status, 204);
  t.deepEqual(await labelIdsOf(hearth, issue.id), []);
  t.deepEqual((await hearth.call('GET', '/repos/acme/tool/issues/1')).body.labels, []);
});
