import test from 'ava';
import { inTx } from '../../db/data-source.js';
import { build } from '../helpers/build.js';
import { basicAuth, startHearth, type TestHearth } from '../helpers/hearth.js';

async function setUp(t: Parameters<typeof startHearth>[0]) {
  const hearth = await startHearth(t);
  const root = await hearth.createUser('root', { admin: true });
  const alice = await hearth.createUser('alice');
  const repo = await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  const release = await build.release(hearth, repo, { tag: 'v1' });
  return { hearth, root, alice, repo, release };
}

const refsOf = async (hearth: TestHearth, repoId: number): Promise<unknown[]> =>
  hearth.store.db.query('SELECT name, commit_id FROM branch WHERE repo_id = $1 ORDER BY name', [repoId]);

test('a sha, branch, tag or ref of 256 bytes or more, with NUL or with `..`, names nothing: a 404 before git or the file system', async (t) => {
  const { hearth, alice, repo } = await setUp(t);
  const long = 'a'.repeat(300);
  const paths = [
    `/repos/alice/tool/git/commits/${long}`, `/repos/alice/tool/git/notes/${long}`, `/repos/alice/tool/git/trees/${long}`,
    `/repos/alice/tool/branches/${long}`, `/repos/alice/tool/tags/${long}`, `/repos/alice/tool/git/refs/heads/${long}`,
    `/repos/alice/tool/compare/main...${long}`, `/repos/alice/tool/commits/${long}/status`,
    '/repos/alice/tool/git/commits/main%00x', '/repos/alice/tool/branches/a%2F..%2F..%2Fconfig', '/repos/alice/tool/git/refs/heads/..%2F..%2Fconfig',
  ];
  for (const path of paths) t.is((await hearth.call('GET', path, { auth: alice.bearer })).status, 404, path);
  const before = await refsOf(hearth, repo.id);
  t.is((await hearth.call('DELETE', `/repos/alice/tool/tags/${long}`, { auth: alice.bearer })).status, 404);
  t.is((await hearth.call('DELETE', `/repos/alice/tool/branches/${long}`, { auth: alice.bearer })).status, 404);
  t.deepEqual(await refsOf(hearth, repo.id), before);
});

test('a NUL in Sudo or in a repository name on the git route is a 404 or 401, never a database error', async (t) => {
  const { hearth, root, alice } = await setUp(t);
  for (const sudo of ['%00alice', 'al%00ice', 's'.repeat(300)]) {
    const answer = await hearth.call('GET', `/user?sudo=${sudo}`, { auth: root.bearer });
    t.is(answer.status, 404, sudo);
  }
  t.is((await hearth.call('GET', '/user?sudo=alice', { auth: root.bearer })).body.login, 'alice');
  for (const name of ['to%00ol', 'tool%00.git', 'x'.repeat(300)]) {
    const answer = await fetch(`${hearth.rootUrl}alice/${name}/info/refs?service=git-upload-pack`, { headers: { Authorization: basicAuth('alice', alice.password) } });
    t.is(answer.status, 404, name);
  }
});

test('PATCH release target_commitish of 140 KB is a 422 and nothing is stored; the release keeps working', async (t) => {
  const { hearth, alice, release } = await setUp(t);
  const huge = 'm'.repeat(140 * 1024);
  const patch = await hearth.call('PATCH', `/repos/alice/tool/releases/${release.id}`, { auth: alice.bearer, body: { target_commitish: huge } });
  t.is(patch.status, 422);
  t.regex(patch.body.message, /target_commitish/);
  const [row] = await hearth.store.db.query<{ target: string }>('SELECT target FROM release WHERE id = $1', [release.id]);
  t.true(row.target.length < 256);
  for (const body of [{ name: 'n'.repeat(256) }, { tag_name: 't'.repeat(256) }, { tag_name: 'a..b' }]) {
    t.is((await hearth.call('POST', '/repos/alice/tool/releases', { auth: alice.bearer, body })).status, 422, Object.keys(body)[0]);
  }
  const edited = await hearth.call('PATCH', `/repos/alice/tool/releases/${release.id}`, { auth: alice.bearer, body: { tag_name: 'v2', target_commitish: 'main' } });
  t.is(edited.status, 200);
  t.is(edited.body.tag_name, 'v2');
});

test('integers past int32 and negative counts are 422 from the schema, and the document states the formats', async (t) => {
  const { hearth, root, alice } = await setUp(t);
  for (const value of [2 ** 31, -1, 1.5]) {
    const answer = await hearth.call('POST', '/repos/alice/tool/branch_protections', { auth: alice.bearer, body: { rule_name: 'main', required_approvals: value } });
    t.is(answer.status, 422, String(value));
    t.regex(answer.body.message, /required_approvals/);
  }
  t.deepEqual(await hearth.store.db.query('SELECT id FROM protected_branch'), []);
  const admin = await hearth.call('PATCH', '/admin/users/alice', { auth: root.bearer, body: { max_repo_creation: 2 ** 31 } });
  t.is(admin.status, 422);
  const swagger = await hearth.call('GET', '/swagger.v1.json');
  const schema = swagger.body.paths['/repos/{owner}/{repo}/branch_protections'].post.parameters.find((p: { in: string }) => p.in === 'body').schema;
  t.like(schema.properties.required_approvals, { type: 'integer', format: 'int32', minimum: 0 });
  t.like(schema.properties.rule_name, { type: 'string', maxLength: 255 });
});

test('concurrent PUT /user/blocks/{user}: one blocks, the others answer what a second request gets, never a 500', async (t) => {
  const { hearth, alice } = await setUp(t);
  await hearth.createUser('bob');
  const answers = await Promise.all(Array.from({ length: 8 }, () => hearth.call('PUT', '/user/blocks/bob', { auth: alice.bearer })));
  const statuses = answers.map((a) => a.status).sort();
  t.is(statuses.filter((s) => s === 204).length, 1, statuses.join(','));
  t.true(statuses.every((s) => s === 204 || s === 422), statuses.join(','));
  t.deepEqual(await hearth.store.db.query('SELECT count(*)::int AS n FROM user_blocking'), [{ n: 1 }]);
});

test('a transaction that deadlocks with another is retried once, so both commit', async (t) => {
  const { hearth, alice } = await setUp(t);
  const bob = await hearth.createUser('bob');
  let holding = 0;
  let release!: () => void;
  const bothHold = new Promise<void>((resolve) => (release = resolve));
  let attempts = 0;
  const lockInOrder = (first: number, second: number, name: string) => inTx(hearth.deps, async (tx) => {
    attempts++;
    await tx.query('SELECT id FROM "user" WHERE id = $1 FOR UPDATE', [first]);
    if (++holding === 2) release();
    await Promise.race([bothHold, new Promise((resolve) => setTimeout(resolve, 2_000))]);
    await tx.query('SELECT id FROM "user" WHERE id = $1 FOR UPDATE', [second]);
    await tx.query('UPDATE "user" SET full_name = $2 WHERE id = $1', [first, name]);
  });
  await Promise.all([lockInOrder(alice.user.id, bob.user.id, 'first'), lockInOrder(bob.user.id, alice.user.id, 'second')]);
  t.is(attempts, 3);
  const names = await hearth.store.db.query<{ full_name: string }>('SELECT full_name FROM "user" WHERE id = ANY($1) ORDER BY full_name', [[alice.user.id, bob.user.id]]);
  t.deepEqual(names.map((row) => row.full_name), ['first', 'second']);
});
