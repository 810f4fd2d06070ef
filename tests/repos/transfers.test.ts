import { existsSync, mkdirSync } from 'node:fs';
import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';

const sql = async <T = Record<string, unknown>>(hearth: TestHearth, text: string, params: unknown[] = []): Promise<T[]> =>
  hearth.store.db.query<T>(text, params);

test('a transfer to another user waits for them; accepting moves the row, the directory, the counters and the old path', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const made = await build.repo(hearth, alice, { name: 'proj', private: true, autoInit: true });
  t.is((await hearth.call('GET', '/repos/alice/proj', { auth: bob.bearer })).status, 404);

  const started = await hearth.call('POST', '/repos/alice/proj/transfer', { auth: alice.bearer, body: { new_owner: 'bob' } });
  t.is(started.status, 201, JSON.stringify(started.body));
  t.is(started.body.full_name, 'alice/proj');
  t.is(started.body.repo_transfer.doer.login, 'alice');
  t.is(started.body.repo_transfer.recipient.login, 'bob');
  t.deepEqual(started.body.repo_transfer.teams, []);
  const seen = await hearth.call('GET', '/repos/alice/proj', { auth: bob.bearer });
  t.is(seen.status, 200, 'the recipient may look at what is offered');
  t.is(seen.body.repo_transfer.recipient.login, 'bob');
  t.false(seen.body.permissions.push);
  const twice = await hearth.call('POST', '/repos/alice/proj/transfer', { auth: alice.bearer, body: { new_owner: 'bob' } });
  t.is(twice.status, 409);

  const accepted = await hearth.call('POST', '/repos/alice/proj/transfer/accept', { auth: bob.bearer });
  t.is(accepted.status, 202, JSON.stringify(accepted.body));
  t.like(accepted.body, { id: made.id, full_name: 'bob/proj', repo_transfer: null, private: true });
  t.is(accepted.body.owner.login, 'bob');
  t.false(existsSync(hearth.deps.git.pathOf('alice', 'proj')));
  t.true(existsSync(hearth.deps.git.pathOf('bob', 'proj')));
  const viaOldPath = await hearth.call('GET', '/repos/alice/proj', { auth: bob.bearer });
  t.is(viaOldPath.body.full_name, 'bob/proj', 'the old path redirects');
  t.is((await hearth.call('GET', '/repos/bob/proj', { auth: alice.bearer })).status, 404, 'the old owner has no access left');
  const counts = await sql<{ name: string; num_repos: number }>(hearth, 'SELECT name, num_repos FROM "user" ORDER BY name');
  t.deepEqual(counts.map((c) => [c.name, c.num_repos]), [['alice', 0], ['bob', 1]]);
  t.deepEqual(await sql(hearth, 'SELECT * FROM repo_transfer'), []);
  t.deepEqual(await sql(hearth, 'SELECT * FROM collaboration'), [], 'the new owner is no collaborator of their own repository');
  const events = await sql<{ kind: string; payload: Record<string, string> }>(hearth, `SELECT kind, payload FROM domain_event WHERE kind LIKE 'repository.transfer%' ORDER BY id`);
  t.deepEqual(events.map((e) => e.kind), ['repository.transfer_pending', 'repository.transferred']);
  t.like(events[1].payload, { previous: { owner: 'alice' }, owner: 'bob', name: 'proj' });
});

test('only the recipient accepts or rejects; rejecting leaves the repository where it was', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const carol = await hearth.createUser('carol');
  const dave = await hearth.createUser('dave');
  await build.repo(hearth, alice, { name: 'proj' });
  t.is((await hearth.call('POST', '/repos/alice/proj/transfer/accept', { auth: carol.bearer })).status, 404, 'nothing pending');
  await hearth.call('POST', '/repos/alice/proj/transfer', { auth: alice.bearer, body: { new_owner: 'carol' } });
  t.is((await hearth.call('POST', '/repos/alice/proj/transfer/accept', { auth: dave.bearer })).status, 403);
  t.is((await hearth.call('POST', '/repos/alice/proj/transfer/reject', { auth: alice.bearer })).status, 403);
  t.is((await hearth.call('POST', '/repos/alice/proj/transfer/reject')).status, 401);
  const rejected = await hearth.call('POST', '/repos/alice/proj/transfer/reject', { auth: carol.bearer });
  t.is(rejected.status, 200, JSON.stringify(rejected.body));
  t.like(rejected.body, { full_name: 'alice/proj', repo_transfer: null });
  t.is((await hearth.call('GET', '/repos/alice/proj')).body.repo_transfer, null);
  t.deepEqual(await sql(hearth, 'SELECT * FROM repo_transfer'), []);
  t.is((await hearth.call('POST', '/repos/alice/proj/transfer/accept', { auth: carol.bearer })).status, 404);
  t.true(existsSync(hearth.deps.git.pathOf('alice', 'proj')));
});

test('a name the recipient already uses is refused when starting and when accepting, and nothing moves', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  await build.repo(hearth, alice, { name: 'proj', autoInit: true });
  await build.repo(hearth, bob, { name: 'PROJ' });
  const clash = await hearth.call('POST', '/repos/alice/proj/transfer', { auth: alice.bearer, body: { new_owner: 'bob' } });
  t.is(clash.status, 422);
  t.deepEqual(await sql(hearth, 'SELECT * FROM repo_transfer'), []);

  await hearth.call('DELETE', '/repos/bob/PROJ', { auth: bob.bearer });
  t.is((await hearth.call('POST', '/repos/alice/proj/transfer', { auth: alice.bearer, body: { new_owner: 'bob' } })).status, 201);
  mkdirSync(hearth.deps.git.pathOf('bob', 'proj'), { recursive: true });
  const late = await hearth.call('POST', '/repos/alice/proj/transfer/accept', { auth: bob.bearer });
  t.is(late.status, 422, 'files on disk under the new name block the move');
  t.is((await hearth.call('GET', '/repos/alice/proj')).body.repo_transfer.recipient.login, 'bob', 'still pending');
  t.true(existsSync(hearth.deps.git.pathOf('alice', 'proj')));

  t.is((await hearth.call('POST', '/repos/alice/proj/transfer', { auth: alice.bearer, body: { new_owner: 'nobody' } })).status, 404);
  t.is((await hearth.call('POST', '/repos/alice/proj/transfer', { auth: bob.bearer, body: { new_owner: 'bob' } })).status, 403);
  t.is((await hearth.call('POST', '/repos/alice/proj/transfer', { auth: alice.bearer, body: {} })).status, 422);
});

test('an administrator transfers at once; the redirect and the directory follow', async (t) => {
  const hearth = await startHearth(t);
  const root = await hearth.createUser('root', { admin: true });
  const alice = await hearth.createUser('alice');
  await hearth.createUser('bob');
  await build.repo(hearth, alice, { name: 'proj', autoInit: true });
  await hearth.call('PUT', '/repos/alice/proj/collaborators/bob', { auth: alice.bearer, body: { permission: 'write' } });
  const moved = await hearth.call('POST', '/repos/alice/proj/transfer', { auth: root.bearer, body: { new_owner: 'bob' } });
  t.is(moved.status, 202, JSON.stringify(moved.body));
  t.like(moved.body, { full_name: 'bob/proj', repo_transfer: null });
  t.true(existsSync(hearth.deps.git.pathOf('bob', 'proj')));
  t.is((await hearth.call('GET', '/repos/alice/proj')).body.full_name, 'bob/proj');
  t.deepEqual(await sql(hearth, 'SELECT * FROM collaboration'), []);
  const [row] = await sql<{ owner_name: string }>(hearth, 'SELECT owner_name FROM repository');
  t.is(row.owner_name, 'bob');
});

test('transfers to organizations: direct for those who may create there, pending otherwise; teams are granted', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const guild = await build.org(hearth, alice, { name: 'guild' });
  const other = await build.org(hearth, bob, { name: 'other' });
  const team = await build.team(hearth, guild, { name: 'devs', permission: 'write', units: ['repo.code'] });
  const foreign = await build.team(hearth, other, { name: 'ops', permission: 'read', units: ['repo.code'] });
  await build.repo(hearth, alice, { name: 'app' });

  t.is((await hearth.call('POST', '/repos/alice/app/transfer', { auth: alice.bearer, body: { new_owner: 'bob', team_ids: [team.id] } })).status, 422);
  t.is((await hearth.call('POST', '/repos/alice/app/transfer', { auth: alice.bearer, body: { new_owner: 'guild', team_ids: [foreign.id] } })).status, 403);
  t.is((await hearth.call('POST', '/repos/alice/app/transfer', { auth: alice.bearer, body: { new_owner: 'guild', team_ids: [999999] } })).status, 422);

  const direct = await hearth.call('POST', '/repos/alice/app/transfer', { auth: alice.bearer, body: { new_owner: 'guild', team_ids: [team.id] } });
  t.is(direct.status, 202, JSON.stringify(direct.body));
  t.is(direct.body.full_name, 'guild/app');
  const teamRepos = await sql<{ team_id: number }>(hearth, 'SELECT team_id FROM team_repo WHERE repo_id = $1', [direct.body.id]);
  t.deepEqual(teamRepos.map((r) => r.team_id), [team.id]);

  await build.repo(hearth, bob, { name: 'gift' });
  const pending = await hearth.call('POST', '/repos/bob/gift/transfer', { auth: bob.bearer, body: { new_owner: 'guild' } });
  t.is(pending.status, 201, JSON.stringify(pending.body));
  t.is(pending.body.repo_transfer.recipient.login, 'guild');
  t.is((await hearth.call('POST', '/repos/bob/gift/transfer/accept', { auth: bob.bearer })).status, 403);
  const accepted = await hearth.call('POST', '/repos/bob/gift/transfer/accept', { auth: alice.bearer });
  t.is(accepted.status, 202, JSON.stringify(accepted.body));
  t.is(accepted.body.full_name, 'guild/gift');
  t.true(existsSync(hearth.deps.git.pathOf('guild', 'gift')));
});
