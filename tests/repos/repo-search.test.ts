import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth, type TestHearth, type TestUser } from '../helpers/hearth.js';

interface World {
  hearth: TestHearth;
  alice: TestUser;
  bob: TestUser;
  carol: TestUser;
  root: TestUser;
}

async function world(t: Parameters<typeof startHearth>[0]): Promise<World> {
  const hearth = await startHearth(t);
  const [alice, bob, carol, root] = [
    await hearth.createUser('alice'), await hearth.createUser('bob'), await hearth.createUser('carol'), await hearth.createUser('root', { admin: true }),
  ];
  await build.repo(hearth, alice, { name: 'alpha-tool', description: 'A handy thing' });
  await build.repo(hearth, alice, { name: 'secret', private: true });
  await build.repo(hearth, alice, { name: 'tmpl', template: true });
  await build.repo(hearth, alice, { name: 'old' });
  await build.repo(hearth, bob, { name: 'beta' });
  await hearth.call('PATCH', '/repos/alice/old', { auth: alice.bearer, body: { archived: true } });
  await hearth.call('PUT', '/repos/alice/alpha-tool/topics', { auth: alice.bearer, body: { topics: ['cli'] } });
  await hearth.call('PUT', '/repos/alice/secret/collaborators/bob', { auth: alice.bearer, body: { permission: 'read' } });
  return { hearth, alice, bob, carol, root };
}

async function names(w: World, query: string, user?: TestUser): Promise<string[]> {
  const answer = await w.hearth.call('GET', `/repos/search${query}`, { auth: user?.bearer });
  if (answer.status !== 200) throw new Error(`${query}: ${answer.status} ${JSON.stringify(answer.body)}`);
  if (answer.body.ok !== true) throw new Error('ok is not true');
  return answer.body.data.map((r: { full_name: string }) => r.full_name);
}

test('visibility: private repositories only for those who may read them', async (t) => {
  const w = await world(t);
  const everyone = ['alice/alpha-tool', 'alice/old', 'alice/tmpl', 'bob/beta'];
  t.deepEqual((await names(w, '')).sort(), everyone);
  t.deepEqual((await names(w, '', w.carol)).sort(), everyone);
  t.deepEqual((await names(w, '', w.bob)).sort(), [...everyone, 'alice/secret'].sort());
  t.deepEqual((await names(w, '?private=false', w.bob)).sort(), everyone);
  t.deepEqual((await names(w, '', w.root)).sort(), [...everyone, 'alice/secret'].sort());
  t.deepEqual(await names(w, '?is_private=true', w.bob), ['alice/secret']);
  t.deepEqual(await names(w, '?is_private=true', w.carol), []);

  const answer = await w.hearth.call('GET', '/repos/search?limit=2', { auth: w.bob.bearer });
  t.is(answer.headers.get('x-total-count'), '5');
  t.regex(answer.headers.get('link') ?? '', /rel="next"/);
  t.is(answer.body.data.length, 2);
  const secret = (await w.hearth.call('GET', '/repos/search?q=secret', { auth: w.bob.bearer })).body.data[0];
  t.deepEqual(secret.permissions, { admin: false, push: false, pull: true });

  // public repositories of a limited user: signed-in callers only, and not with private=false (Gitea's rule)
  await build.repo(w.hearth, w.carol, { name: 'shy' });
  await w.hearth.store.db.query(`UPDATE "user" SET visibility = 1 WHERE id = $1`, [w.carol.user.id]);
  t.false((await names(w, '')).includes('carol/shy'));
  t.true((await names(w, '', w.bob)).includes('carol/shy'));
  t.false((await names(w, '?private=false', w.bob)).includes('carol/shy'));

  // the owner's repository list uses the same rule
  t.deepEqual((await w.hearth.call('GET', '/users/alice/repos', { auth: w.bob.bearer })).body.map((r: { name: string }) => r.name).sort(), ['alpha-tool', 'old', 'secret', 'tmpl']);
  t.deepEqual((await w.hearth.call('GET', '/users/alice/repos', { auth: w.carol.bearer })).body.map((r: { name: string }) => r.name).sort(), ['alpha-tool', 'old', 'tmpl']);
});

test('keywords: names, owner/name, descriptions and topics', async (t) => {
  const w = await world(t);
  t.deepEqual(await names(w, '?q=TOOL'), ['alice/alpha-tool']);
  t.deepEqual(await names(w, '?q=handy'), []);
  t.deepEqual(await names(w, '?q=handy&includeDesc=true'), ['alice/alpha-tool']);
  t.deepEqual(await names(w, '?q=cli&topic=true'), ['alice/alpha-tool']);
  t.deepEqual(await names(w, '?q=cl&topic=true'), [], 'with topic the keyword names a topic exactly');
  t.deepEqual(await names(w, '?q=cl'), ['alice/alpha-tool'], 'without topic, topics match partly');
  t.deepEqual(await names(w, '?q=alice/alp'), ['alice/alpha-tool']);
  t.deepEqual((await names(w, '?q=beta,tmpl')).sort(), ['alice/tmpl', 'bob/beta']);
  t.deepEqual(await names(w, '?q=%25'), [], 'LIKE wildcards are literal');
});

test('owner, collaboration, template, archived, starred and priority filters', async (t) => {
  const w = await world(t);
  const { bob, carol, alice } = w;
  t.deepEqual((await names(w, `?uid=${bob.user.id}`, bob)).sort(), ['alice/secret', 'bob/beta']);
  t.deepEqual(await names(w, `?uid=${bob.user.id}&exclusive=true`, bob), ['bob/beta']);
  t.deepEqual(await names(w, `?uid=${bob.user.id}&mode=collaborative`, bob), ['alice/secret']);
  t.deepEqual(await names(w, `?uid=${bob.user.id}`, carol), ['bob/beta'], 'a private collaboration stays hidden from others');
  t.deepEqual(await names(w, '?template=true'), ['alice/tmpl']);
  t.false((await names(w, '?template=false')).includes('alice/tmpl'));
  t.deepEqual(await names(w, '?archived=true'), ['alice/old']);
  t.false((await names(w, '?archived=false')).includes('alice/old'));
  t.deepEqual(await names(w, '?mode=fork'), []);
  t.is((await names(w, '?mode=source')).length, 4);

  await w.hearth.call('PUT', '/user/starred/bob/beta', { auth: carol.bearer });
  t.deepEqual(await names(w, `?starredBy=${carol.user.id}`), ['bob/beta']);
  const prioritized = await names(w, `?priority_owner_id=${bob.user.id}`);
  t.is(prioritized[0], 'bob/beta');
  t.is(prioritized.length, 4);
  t.is((await names(w, `?priority_owner_id=${alice.user.id}`))[3], 'bob/beta');
});

test('sorting and refusals', async (t) => {
  const w = await world(t);
  t.deepEqual(await names(w, '?sort=id'), ['alice/alpha-tool', 'alice/tmpl', 'alice/old', 'bob/beta']);
  t.deepEqual(await names(w, '?sort=id&order=desc'), ['bob/beta', 'alice/old', 'alice/tmpl', 'alice/alpha-tool']);
  t.deepEqual(await names(w, '?sort=alpha&order=desc'), ['bob/beta', 'alice/tmpl', 'alice/old', 'alice/alpha-tool']);
  t.deepEqual(await names(w, '?sort=created'), ['alice/alpha-tool', 'alice/tmpl', 'alice/old', 'bob/beta']);
  for (const query of ['?sort=bogus', '?sort=id&order=sideways', '?mode=bogus', '?topic=maybe', '?uid=x']) {
    const answer = await w.hearth.call('GET', `/repos/search${query}`);
    t.is(answer.status, 422, query);
    t.truthy(answer.body.message);
  }
});

test('team_id keeps the repositories a team was given', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const acme = await build.org(hearth, alice, { name: 'acme' });
  for (const name of ['one', 'two']) await build.repo(hearth, acme, { name });
  const team = await build.team(hearth, acme, { name: 'devs', permission: 'read', units: ['repo.code'] });
  t.is((await hearth.call('PUT', `/teams/${team.id}/repos/acme/one`, { auth: alice.bearer })).status, 204);
  const answer = await hearth.call('GET', `/repos/search?team_id=${team.id}`, { auth: alice.bearer });
  t.deepEqual(answer.body.data.map((r: { full_name: string }) => r.full_name), ['acme/one']);
  t.is(answer.headers.get('x-total-count'), '1');
});
