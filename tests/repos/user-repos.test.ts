import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth } from '../helpers/hearth.js';

const names = (body: Array<{ full_name: string }>) => body.map((r) => r.full_name).sort();

test('GET /user/repos lists own repositories and those reached as collaborator, through a team or as an organization owner', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const carol = await hearth.createUser('carol');
  await build.repo(hearth, alice, { name: 'own', private: true });
  const shared = await build.repo(hearth, bob, { name: 'shared', private: true });
  await build.repo(hearth, bob, { name: 'bobs-public' });
  t.is((await hearth.call('PUT', `/repos/bob/${shared.name}/collaborators/alice`, { auth: bob.bearer, body: { permission: 'read' } })).status, 204);

  const team = await build.org(hearth, carol, { name: 'teamed' });
  const viaTeam = await build.repo(hearth, team, { name: 'via-team', private: true });
  await build.repo(hearth, team, { name: 'not-in-team', private: true });
  await build.team(hearth, team, { members: [alice], repos: [viaTeam] });

  const owned = await build.org(hearth, alice, { name: 'owned' });
  await build.repo(hearth, owned, { name: 'anything', private: true });

  const hidden = await build.org(hearth, carol, { name: 'hidden', visibility: 'private' });
  await build.repo(hearth, hidden, { name: 'open-inside' });
  await build.team(hearth, hidden, { members: [alice] });

  const mine = await hearth.call('GET', '/user/repos', { auth: alice.bearer });
  t.is(mine.status, 200);
  t.deepEqual(names(mine.body), ['alice/own', 'bob/shared', 'hidden/open-inside', 'owned/anything', 'teamed/via-team']);
  t.is(mine.headers.get('x-total-count'), '5');
  const paged = await hearth.call('GET', '/user/repos?limit=2&page=3', { auth: alice.bearer });
  t.deepEqual(names(paged.body), ['teamed/via-team']);
});

test('routes naming {username} accept an organization, as Gitea does', async (t) => {
  const hearth = await startHearth(t);
  const root = await hearth.createUser('root', { admin: true });
  const alice = await hearth.createUser('alice');
  const stranger = await hearth.createUser('stranger');
  const org = await build.org(hearth, alice, { name: 'acme' });
  await build.repo(hearth, org, { name: 'public-one' });
  await build.repo(hearth, org, { name: 'secret', private: true });

  const made = await hearth.call('POST', '/admin/users/acme/repos', { auth: root.bearer, body: { name: 'by-admin' } });
  t.is(made.status, 201, JSON.stringify(made.body));
  t.is(made.body.owner.login, 'acme');
  t.is((await hearth.call('GET', '/repos/acme/by-admin', { auth: alice.bearer })).status, 200);

  const info = await hearth.call('GET', '/users/acme');
  t.is(info.status, 200);
  t.is(info.body.login, 'acme');
  t.is(info.body.username, 'acme');

  t.deepEqual(names((await hearth.call('GET', '/users/acme/repos', { auth: stranger.bearer })).body), ['acme/by-admin', 'acme/public-one']);
  t.deepEqual(names((await hearth.call('GET', '/users/acme/repos', { auth: alice.bearer })).body), ['acme/by-admin', 'acme/public-one', 'acme/secret']);

  await hearth.call('PATCH', '/repos/acme/public-one', { auth: alice.bearer, body: { description: 'counted' } });
  const heatmap = await hearth.call('GET', '/users/acme/heatmap');
  t.is(heatmap.status, 200);
  t.true(heatmap.body.reduce((sum: number, p: { contributions: number }) => sum + p.contributions, 0) > 0);

  const privateOrg = await build.org(hearth, alice, { name: 'closed', visibility: 'private' });
  t.truthy(privateOrg);
  t.is((await hearth.call('GET', '/users/closed', { auth: stranger.bearer })).status, 404);
  t.is((await hearth.call('GET', '/users/closed', { auth: alice.bearer })).status, 200);
  t.is((await hearth.call('POST', '/admin/users/nobody/repos', { auth: root.bearer, body: { name: 'x' } })).status, 404);
});
