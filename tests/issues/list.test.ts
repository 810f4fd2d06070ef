import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth } from '../helpers/hearth.js';

test('listing filters by state, labels, milestones, q, type, users and dates, newest first with paging headers', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const repo = await build.repo(hearth, alice, { name: 'tool' });
  await hearth.call('PUT', '/repos/alice/tool/collaborators/bob', { auth: alice.bearer, body: { permission: 'write' } });
  const bug = (await hearth.call('POST', '/repos/alice/tool/labels', { auth: alice.bearer, body: { name: 'bug', color: 'f00' } })).body.id;
  const ui = (await hearth.call('POST', '/repos/alice/tool/labels', { auth: alice.bearer, body: { name: 'ui', color: '0f0' } })).body.id;
  const v1 = (await hearth.call('POST', '/repos/alice/tool/milestones', { auth: alice.bearer, body: { title: 'v1' } })).body.id;
  await build.issue(hearth, repo, { title: 'crash on start', labels: [bug, ui], milestoneId: v1 });
  await build.issue(hearth, repo, { title: 'slow', labels: [bug], body: 'ping @bob', by: 'bob' });
  await build.issue(hearth, repo, { title: 'closed one', closed: true, assignees: ['bob'] });
  await build.issue(hearth, repo, { title: 'a pull', isPull: true });

  const titles = async (query: string) => {
    const answer = await hearth.call('GET', `/repos/alice/tool/issues${query}`);
    t.is(answer.status, 200, `${query}: ${JSON.stringify(answer.body)}`);
    return answer.body.map((i: { title: string }) => i.title);
  };
  t.deepEqual(await titles(''), ['a pull', 'slow', 'crash on start']);
  t.deepEqual(await titles('?state=closed'), ['closed one']);
  t.deepEqual(await titles('?state=all&type=issues'), ['closed one', 'slow', 'crash on start']);
  t.deepEqual(await titles('?type=pulls'), ['a pull']);
  t.deepEqual(await titles('?labels=bug'), ['slow', 'crash on start']);
  t.deepEqual(await titles('?labels=bug,ui'), ['crash on start']);
  t.deepEqual(await titles(`?milestones=v1`), ['crash on start']);
  t.deepEqual(await titles(`?milestones=${v1}`), ['crash on start']);
  t.deepEqual(await titles('?q=CRASH'), ['crash on start']);
  t.deepEqual(await titles('?created_by=bob'), ['slow']);
  t.deepEqual(await titles('?state=all&assigned_by=bob'), ['closed one']);
  t.deepEqual(await titles('?mentioned_by=bob'), ['slow']);
  t.deepEqual(await titles('?since=2999-01-01T00:00:00Z'), []);
  t.deepEqual(await titles('?before=2999-01-01T00:00:00Z&type=issues'), ['slow', 'crash on start']);
  t.is((await hearth.call('GET', '/repos/alice/tool/issues?created_by=nobody')).status, 404);
  t.is((await hearth.call('GET', '/repos/alice/tool/issues?since=yesterday')).status, 422);
  t.is((await hearth.call('GET', '/repos/alice/tool/issues?state=weird')).status, 422);

  const paged = await hearth.call('GET', '/repos/alice/tool/issues?state=all&limit=2&page=1');
  t.is(paged.body.length, 2);
  t.is(paged.headers.get('x-total-count'), '4');
  t.regex(paged.headers.get('link') ?? '', /rel="next"/);
});

test('a private repository\'s issues are hidden from strangers, and a disabled unit hides its items', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const repo = await build.repo(hearth, alice, { name: 'secret', private: true });
  await build.issue(hearth, repo);
  t.is((await hearth.call('GET', '/repos/alice/secret/issues', { auth: bob.bearer })).status, 404);
  t.is((await hearth.call('GET', '/repos/alice/secret/issues/1', { auth: bob.bearer })).status, 404);
  t.is((await hearth.call('GET', '/repos/alice/secret/issues/1', { auth: alice.bearer })).status, 200);
  await hearth.store.db.query('UPDATE repository SET has_issues = false WHERE id = $1', [repo.id]);
  t.is((await hearth.call('GET', '/repos/alice/secret/issues/1', { auth: bob.bearer })).status, 404);
  t.is((await hearth.call('POST', '/repos/alice/secret/issues', { auth: bob.bearer, body: { title: 'x' } })).status, 404);
});

test('the list shows the units the caller may read: anonymous callers by the switches, team members by their unit modes', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const repo = await build.repo(hearth, alice, { name: 'open' });
  await build.issue(hearth, repo, { title: 'an issue' });
  await build.issue(hearth, repo, { title: 'a pull', isPull: true });
  const titles = async (path: string, auth?: string) => {
    const answer = await hearth.call('GET', path, auth ? { auth } : {});
    return answer.status === 200 ? (answer.body as Array<{ title: string }>).map((issue) => issue.title).sort() : answer.status;
  };
  t.deepEqual(await titles('/repos/alice/open/issues'), ['a pull', 'an issue']);
  await hearth.store.db.query('UPDATE repository SET has_issues = false WHERE id = $1', [repo.id]);
  t.deepEqual(await titles('/repos/alice/open/issues'), ['a pull'], 'without the issues unit only pull requests are listed');
  t.is(await titles('/repos/alice/open/issues?type=issues'), 404);
  await hearth.store.db.query('UPDATE repository SET has_pull_requests = false WHERE id = $1', [repo.id]);
  t.is(await titles('/repos/alice/open/issues'), 404, 'neither unit: nothing to list');

  const acme = await build.org(hearth, alice, { name: 'acme' });
  const app = await build.repo(hearth, acme, { name: 'app', private: true });
  await build.issue(hearth, app, { title: 'org issue' });
  await build.issue(hearth, app, { title: 'org pull', isPull: true });
  const team = (await build.team(hearth, acme, { name: 'triage', unitsMap: { 'repo.code': 'read', 'repo.issues': 'read' }, members: [bob] })).id;
  await hearth.call('PUT', `/teams/${team}/repos/acme/app`, { auth: alice.bearer });
  t.deepEqual(await titles('/repos/acme/app/issues', bob.bearer), ['org issue'], 'a team without the pull request unit sees issues only');
  t.is(await titles('/repos/acme/app/issues?type=pulls', bob.bearer), 404);
  t.deepEqual(await titles('/repos/acme/app/issues', alice.bearer), ['org issue', 'org pull']);
});
