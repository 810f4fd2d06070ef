import test from 'ava';
import { startHearth } from '../helpers/hearth.js';

test('organization labels: create, read, list, edit and delete; colours are normalised like Gitea', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const org = (await hearth.call('POST', '/orgs', { auth: alice.bearer, body: { username: 'acme' } })).body;

  const made = await hearth.call('POST', '/orgs/acme/labels', { auth: alice.bearer, body: { name: 'kind/bug', color: '#EE0701', description: 'broken', exclusive: true } });
  t.is(made.status, 201, JSON.stringify(made.body));
  t.deepEqual(made.body, {
    id: made.body.id, name: 'kind/bug', exclusive: true, is_archived: false, color: 'ee0701', description: 'broken',
    url: `${hearth.rootUrl}api/v1/orgs/acme/labels/${made.body.id}`,
  });
  const [row] = await hearth.store.db.query<{ color: string; org_id: number; repo_id: number | null }>('SELECT color, org_id, repo_id FROM label WHERE id = $1', [made.body.id]);
  t.deepEqual(row, { color: '#ee0701', org_id: org.id, repo_id: null });

  const short = await hearth.call('POST', '/orgs/acme/labels', { auth: alice.bearer, body: { name: 'docs', color: '0af' } });
  t.is(short.body.color, '00aaff');
  const archived = await hearth.call('POST', '/orgs/acme/labels', { auth: alice.bearer, body: { name: 'old', color: '123456', is_archived: true } });
  t.true(archived.body.is_archived);

  for (const color of ['red', '#12345', '#1234567', '', 'gggggg']) {
    const bad = await hearth.call('POST', '/orgs/acme/labels', { auth: alice.bearer, body: { name: 'x', color } });
    t.is(bad.status, 422, color);
  }
  t.is((await hearth.call('POST', '/orgs/acme/labels', { auth: alice.bearer, body: { color: '000000' } })).status, 422);
  t.is((await hearth.call('POST', '/orgs/acme/labels', { auth: alice.bearer, body: { name: ' ', color: '000000' } })).status, 422);
  t.is((await hearth.call('POST', '/orgs/acme/labels', { auth: bob.bearer, body: { name: 'x', color: '000000' } })).status, 403);
  const [{ n }] = await hearth.store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM label');
  t.is(n, 3);

  const list = await hearth.call('GET', '/orgs/acme/labels');
  t.deepEqual(list.body.map((l: { name: string }) => l.name), ['docs', 'kind/bug', 'old']);
  t.is(list.headers.get('x-total-count'), '3');
  t.is((await hearth.call('GET', `/orgs/acme/labels/${made.body.id}`, { auth: bob.bearer })).body.name, 'kind/bug');
  t.is((await hearth.call('GET', '/orgs/acme/labels/docs', { auth: bob.bearer })).body.id, short.body.id, 'a label is also found by name');
  t.is((await hearth.call('GET', `/orgs/acme/labels/${made.body.id}`)).status, 401);
  t.is((await hearth.call('GET', '/orgs/acme/labels/999999', { auth: bob.bearer })).status, 404);

  const edited = await hearth.call('PATCH', `/orgs/acme/labels/${made.body.id}`, { auth: alice.bearer, body: { color: 'abc', is_archived: true } });
  t.is(edited.status, 200, JSON.stringify(edited.body));
  t.like(edited.body, { name: 'kind/bug', color: 'aabbcc', description: 'broken', exclusive: true, is_archived: true });
  const unarchived = await hearth.call('PATCH', `/orgs/acme/labels/${made.body.id}`, { auth: alice.bearer, body: { is_archived: false, name: 'kind/defect' } });
  t.like(unarchived.body, { name: 'kind/defect', is_archived: false, color: 'aabbcc' });
  t.is((await hearth.call('PATCH', `/orgs/acme/labels/${made.body.id}`, { auth: alice.bearer, body: { color: 'nope' } })).status, 422);
  t.is((await hearth.call('PATCH', `/orgs/acme/labels/${made.body.id}`, { auth: bob.bearer, body: { name: 'x' } })).status, 403);
  const [stored] = await hearth.store.db.query<{ name: string; color: string }>('SELECT name, color FROM label WHERE id = $1', [made.body.id]);
  t.deepEqual(stored, { name: 'kind/defect', color: '#aabbcc' });

  t.is((await hearth.call('DELETE', `/orgs/acme/labels/${made.body.id}`, { auth: bob.bearer })).status, 403);
  t.is((await hearth.call('DELETE', `/orgs/acme/labels/${made.body.id}`, { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('DELETE', `/orgs/acme/labels/${made.body.id}`, { auth: alice.bearer })).status, 404);
  t.is((await hearth.store.db.query('SELECT 1 FROM label WHERE id = $1', [made.body.id])).length, 0);
});

test("labels of another organization are not reachable through this one, and a private organization's labels are hidden", async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  await hearth.call('POST', '/orgs', { auth: alice.bearer, body: { username: 'acme' } });
  await hearth.call('POST', '/orgs', { auth: bob.bearer, body: { username: 'other' } });
  const theirs = await hearth.call('POST', '/orgs/other/labels', { auth: bob.bearer, body: { name: 'x', color: '000000' } });
  t.is((await hearth.call('GET', `/orgs/acme/labels/${theirs.body.id}`, { auth: alice.bearer })).status, 404);
  t.is((await hearth.call('DELETE', `/orgs/acme/labels/${theirs.body.id}`, { auth: alice.bearer })).status, 404);
  t.is((await hearth.store.db.query('SELECT 1 FROM label WHERE id = $1', [theirs.body.id])).length, 1);

  await hearth.call('PATCH', '/orgs/other', { auth: bob.bearer, body: { visibility: 'private' } });
  t.is((await hearth.call('GET', '/orgs/other/labels')).status, 404);
  t.is((await hearth.call('GET', '/orgs/other/labels', { auth: alice.bearer })).status, 404);
  t.is((await hearth.call('GET', '/orgs/other/labels', { auth: bob.bearer })).body.length, 1);
});
