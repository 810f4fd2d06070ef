import { execFileSync } from 'node:child_process';
import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';
import { editPublishedRelease, editRelease, type ReleaseEdit, type ReleaseRow } from '../../db/models/releases/releases.js';
import { inTx, type Tx } from '../../db/data-source.js';
import { findReleaseView } from '../../db/views/releases.js';
import { findRepoById } from '../../db/models/repos/repos.js';

const git = (dir: string, ...args: string[]): string => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8' }).trim();
const tagsOf = (dir: string): string[] => git(dir, 'tag', '--list').split('\n').filter(Boolean);

async function releaseCounter(hearth: TestHearth, repoId: number): Promise<number> {
  const [{ num_releases }] = await hearth.store.db.query<{ num_releases: number }>('SELECT num_releases FROM repository WHERE id = $1', [repoId]);
  return num_releases;
}

async function eventKinds(hearth: TestHearth, repoId: number): Promise<string[]> {
  const rows = await hearth.store.db.query<{ kind: string }>(
    `SELECT kind FROM domain_event WHERE repo_id = $1 AND kind LIKE 'release.%' ORDER BY id`,
    [repoId],
  );
  return rows.map((r) => r.kind);
}

async function setUp(t: Parameters<typeof startHearth>[0]) {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const made = await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  const dir = hearth.deps.git.pathOf('alice', 'tool');
  return { hearth, alice, repoId: made.id, dir, head: git(dir, 'rev-parse', 'main') };
}

test('creating a release tags the default branch, counts it and is readable by id, tag, latest and list', async (t) => {
  const { hearth, alice, repoId, dir, head } = await setUp(t);
  const answer = await hearth.call('POST', '/repos/alice/tool/releases', {
    auth: alice.bearer,
    body: { tag_name: 'v1.0.0', name: 'First', body: 'notes' },
  });
  t.is(answer.status, 201, JSON.stringify(answer.body));
  const release = answer.body;
  t.like(release, { tag_name: 'v1.0.0', target_commitish: 'main', name: 'First', body: 'notes', draft: false, prerelease: false, assets: [] });
  t.is(release.author.login, 'alice');
  t.is(release.url, `${hearth.rootUrl}api/v1/repos/alice/tool/releases/${release.id}`);
  t.is(release.upload_url, `${release.url}/assets`);
  t.is(release.html_url, `${hearth.rootUrl}alice/tool/releases/tag/v1.0.0`);
  t.is(release.tarball_url, `${hearth.rootUrl}alice/tool/archive/v1.0.0.tar.gz`);
  t.regex(release.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

  t.deepEqual(tagsOf(dir), ['v1.0.0']);
  t.is(git(dir, 'rev-parse', 'v1.0.0^{commit}'), head);
  const [row] = await hearth.store.db.query<{ sha1: string; num_commits: number; is_tag: boolean }>('SELECT sha1, num_commits, is_tag FROM release WHERE id = $1', [release.id]);
  t.deepEqual(row, { sha1: head, num_commits: 1, is_tag: false });
  t.is(await releaseCounter(hearth, repoId), 1);
  t.is((await hearth.call('GET', '/repos/alice/tool')).body.release_counter, 1);
  t.deepEqual(await eventKinds(hearth, repoId), ['release.published']);

  t.is((await hearth.call('GET', `/repos/alice/tool/releases/${release.id}`)).body.tag_name, 'v1.0.0');
  t.is((await hearth.call('GET', '/repos/alice/tool/releases/tags/v1.0.0')).body.id, release.id);
  t.is((await hearth.call('GET', '/repos/alice/tool/releases/latest')).body.id, release.id);
  const list = await hearth.call('GET', '/repos/alice/tool/releases');
  t.is(list.status, 200);
  t.deepEqual(list.body.map((r: { id: number }) => r.id), [release.id]);
  t.is(list.headers.get('x-total-count'), '1');

  const duplicate = await hearth.call('POST', '/repos/alice/tool/releases', { auth: alice.bearer, body: { tag_name: 'V1.0.0' } });
  t.is(duplicate.status, 409);
  t.truthy(duplicate.body.message);
  t.is(await releaseCounter(hearth, repoId), 1);

  t.is((await hearth.call('GET', '/repos/alice/tool/releases/999999')).status, 404);
  t.is((await hearth.call('GET', '/repos/alice/tool/releases/not-a-number')).status, 404);
  t.is((await hearth.call('GET', '/repos/alice/tool/releases/tags/v9')).status, 404);
});

test('drafts make no tag, are hidden from readers, and publishing one tags it', async (t) => {
  const { hearth, alice, repoId, dir } = await setUp(t);
  const bob = await hearth.createUser('bob');
  const draft = await hearth.call('POST', '/repos/alice/tool/releases', { auth: alice.bearer, body: { tag_name: 'v2', draft: true } });
  t.is(draft.status, 201, JSON.stringify(draft.body));
  t.true(draft.body.draft);
  t.deepEqual(tagsOf(dir), []);
  t.is(await releaseCounter(hearth, repoId), 0);
  t.deepEqual(await eventKinds(hearth, repoId), []);

  t.deepEqual((await hearth.call('GET', '/repos/alice/tool/releases')).body, []);
  t.deepEqual((await hearth.call('GET', '/repos/alice/tool/releases', { auth: bob.bearer })).body, []);
  t.is((await hearth.call('GET', `/repos/alice/tool/releases/${draft.body.id}`, { auth: bob.bearer })).status, 404);
  t.is((await hearth.call('GET', '/repos/alice/tool/releases/tags/v2')).status, 404);
  t.is((await hearth.call('GET', '/repos/alice/tool/releases/latest')).status, 404);
  const own = await hearth.call('GET', '/repos/alice/tool/releases?draft=true', { auth: alice.bearer });
  t.deepEqual(own.body.map((r: { id: number }) => r.id), [draft.body.id]);
  t.deepEqual((await hearth.call('GET', '/repos/alice/tool/releases?draft=false', { auth: alice.bearer })).body, []);

  const published = await hearth.call('PATCH', `/repos/alice/tool/releases/${draft.body.id}`, { auth: alice.bearer, body: { draft: false, name: 'Two' } });
  t.is(published.status, 200, JSON.stringify(published.body));
  t.false(published.body.draft);
  t.is(published.body.name, 'Two');
  t.deepEqual(tagsOf(dir), ['v2']);
  t.is(await releaseCounter(hearth, repoId), 1);
  t.deepEqual(await eventKinds(hearth, repoId), ['release.published']);
  t.is((await hearth.call('GET', '/repos/alice/tool/releases/latest')).body.id, draft.body.id);

  const edited = await hearth.call('PATCH', `/repos/alice/tool/releases/${draft.body.id}`, { auth: alice.bearer, body: { body: 'more', prerelease: true } });
  t.is(edited.status, 200);
  t.like(edited.body, { body: 'more', prerelease: true, name: 'Two' });
  t.deepEqual(await eventKinds(hearth, repoId), ['release.published', 'release.updated']);
  t.is((await hearth.call('GET', '/repos/alice/tool/releases/latest')).status, 404, 'a pre-release is never the latest');
  t.is((await hearth.call('GET', '/repos/alice/tool/releases?pre-release=true')).body.length, 1);
  t.is((await hearth.call('GET', '/repos/alice/tool/releases?pre-release=false')).body.length, 0);
});

test('latest is the newest stable release; lists page newest first', async (t) => {
  const { hearth, alice } = await setUp(t);
  const ids: number[] = [];
  for (const tag of ['a1', 'a2', 'a3']) {
    ids.push((await hearth.call('POST', '/repos/alice/tool/releases', { auth: alice.bearer, body: { tag_name: tag } })).body.id);
  }
  await hearth.call('POST', '/repos/alice/tool/releases', { auth: alice.bearer, body: { tag_name: 'a4-rc', prerelease: true } });
  t.is((await hearth.call('GET', '/repos/alice/tool/releases/latest')).body.tag_name, 'a3');
  const page = await hearth.call('GET', '/repos/alice/tool/releases?limit=2&page=2');
  t.deepEqual(page.body.map((r: { tag_name: string }) => r.tag_name), ['a2', 'a1']);
  t.is(page.headers.get('x-total-count'), '4');
  t.regex(page.headers.get('link') ?? '', /rel="prev"/);
});

test('deleting a release keeps its tag; the tag row becomes a release again when one is created for it', async (t) => {
  const { hearth, alice, repoId, dir, head } = await setUp(t);
  const first = await hearth.call('POST', '/repos/alice/tool/releases', { auth: alice.bearer, body: { tag_name: 'v1', name: 'One' } });
  const removed = await hearth.call('DELETE', `/repos/alice/tool/releases/${first.body.id}`, { auth: alice.bearer });
  t.is(removed.status, 204);
  t.deepEqual(tagsOf(dir), ['v1']);
  const [row] = await hearth.store.db.query<{ is_tag: boolean; sha1: string }>('SELECT is_tag, sha1 FROM release WHERE id = $1', [first.body.id]);
  t.deepEqual(row, { is_tag: true, sha1: head });
  t.is((await hearth.call('GET', `/repos/alice/tool/releases/${first.body.id}`)).status, 404);
  t.deepEqual((await hearth.call('GET', '/repos/alice/tool/releases')).body, []);
  t.is(await releaseCounter(hearth, repoId), 0);
  t.deepEqual(await eventKinds(hearth, repoId), ['release.published', 'release.deleted']);
  t.is((await hearth.call('DELETE', `/repos/alice/tool/releases/${first.body.id}`, { auth: alice.bearer })).status, 404);

  const again = await hearth.call('POST', '/repos/alice/tool/releases', { auth: alice.bearer, body: { tag_name: 'v1', name: 'Again' } });
  t.is(again.status, 201, JSON.stringify(again.body));
  t.is(again.body.id, first.body.id, 'the tag row is converted, not duplicated');
  t.is(again.body.name, 'Again');
  t.is(await releaseCounter(hearth, repoId), 1);

  const byTag = await hearth.call('DELETE', '/repos/alice/tool/releases/tags/v1', { auth: alice.bearer });
  t.is(byTag.status, 204);
  t.deepEqual(tagsOf(dir), ['v1']);
  t.is(await releaseCounter(hearth, repoId), 0);
  t.is((await hearth.call('DELETE', '/repos/alice/tool/releases/tags/v1', { auth: alice.bearer })).status, 404);

  const draft = await hearth.call('POST', '/repos/alice/tool/releases', { auth: alice.bearer, body: { tag_name: 'never-tagged', draft: true } });
  t.is((await hearth.call('DELETE', `/repos/alice/tool/releases/${draft.body.id}`, { auth: alice.bearer })).status, 204);
  t.deepEqual(await hearth.store.db.query('SELECT 1 FROM release WHERE id = $1', [draft.body.id]), [], 'an untagged draft leaves nothing behind');
});

test('a tag pushed before (a tag row) becomes a full release at its own commit', async (t) => {
  const { hearth, alice, repoId, dir, head } = await setUp(t);
  git(dir, 'tag', 'pushed', head);
  const [tagRow] = await hearth.store.db.query<{ id: number }>(
    `INSERT INTO release (repo_id, tag_name, lower_tag_name, sha1, num_commits, is_tag) VALUES ($1, 'pushed', 'pushed', $2, 1, true) RETURNING id`,
    [repoId, head],
  );
  t.deepEqual((await hearth.call('GET', '/repos/alice/tool/releases')).body, [], 'tag rows are not releases');
  const made = await hearth.call('POST', '/repos/alice/tool/releases', { auth: alice.bearer, body: { tag_name: 'pushed', name: 'From a tag' } });
  t.is(made.status, 201, JSON.stringify(made.body));
  t.is(made.body.id, tagRow.id);
  t.is(made.body.name, 'From a tag');
  t.deepEqual(tagsOf(dir), ['pushed']);
  t.is(await releaseCounter(hearth, repoId), 1);
});

test('targets and tag names are checked; a bad target leaves neither a tag nor a row', async (t) => {
  const { hearth, alice, repoId, dir, head } = await setUp(t);
  const missing = await hearth.call('POST', '/repos/alice/tool/releases', { auth: alice.bearer, body: { tag_name: 'v1', target_commitish: 'no-such-branch' } });
  t.is(missing.status, 404, JSON.stringify(missing.body));
  for (const tag of ['bad..name', 'has space', '-dash', 'x.lock']) {
    const bad = await hearth.call('POST', '/repos/alice/tool/releases', { auth: alice.bearer, body: { tag_name: tag } });
    t.is(bad.status, 422, `${tag}: ${JSON.stringify(bad.body)}`);
  }
  t.is((await hearth.call('POST', '/repos/alice/tool/releases', { auth: alice.bearer, body: { name: 'no tag' } })).status, 422);
  t.deepEqual(tagsOf(dir), []);
  t.deepEqual(await hearth.store.db.query('SELECT 1 FROM release WHERE repo_id = $1', [repoId]), []);

  const bySha = await hearth.call('POST', '/repos/alice/tool/releases', { auth: alice.bearer, body: { tag_name: 'by-sha', target_commitish: head } });
  t.is(bySha.status, 201);
  t.is(git(dir, 'rev-parse', 'by-sha^{commit}'), head);

  const renamed = await hearth.call('PATCH', `/repos/alice/tool/releases/${bySha.body.id}`, { auth: alice.bearer, body: { tag_name: 'renamed' } });
  t.is(renamed.status, 200);
  t.is(renamed.body.tag_name, 'renamed');
  t.deepEqual(tagsOf(dir).sort(), ['by-sha', 'renamed']);
});

test('a failed transaction removes the tag it created', async (t) => {
  const { hearth, alice, repoId, dir } = await setUp(t);
  await hearth.store.db.query(`
    CREATE FUNCTION refuse_release_event() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN IF NEW.kind = 'release.published' THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$`);
  await hearth.store.db.query('CREATE TRIGGER refuse BEFORE INSERT ON domain_event FOR EACH ROW EXECUTE FUNCTION refuse_release_event()');
  const failed = await hearth.call('POST', '/repos/alice/tool/releases', { auth: alice.bearer, body: { tag_name: 'doomed' } });
  t.is(failed.status, 500, 'the injected database failure');
  t.deepEqual(tagsOf(dir), [], 'the tag created in git was undone');
  t.deepEqual(await hearth.store.db.query('SELECT 1 FROM release WHERE repo_id = $1', [repoId]), []);
  t.is(await releaseCounter(hearth, repoId), 0);
});

test('an empty repository answers 422, never 500', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const made = await hearth.call('POST', '/user/repos', { auth: alice.bearer, body: { name: 'bare' } });
  t.true(made.body.empty);
  for (const body of [{ tag_name: 'v1' }, { tag_name: 'v1', draft: true }]) {
    const answer = await hearth.call('POST', '/repos/alice/bare/releases', { auth: alice.bearer, body });
    t.is(answer.status, 422);
    t.regex(answer.body.message, /empty/);
  }
  t.deepEqual(await hearth.store.db.query('SELECT 1 FROM release'), []);
  t.deepEqual((await hearth.call('GET', '/repos/alice/bare/releases')).body, []);
  t.is((await hearth.call('GET', '/repos/alice/bare/releases/latest')).status, 404);
});

test('writing needs write access and the write:repository scope; private repositories stay hidden', async (t) => {
  const { hearth, alice, repoId } = await setUp(t);
  const bob = await hearth.createUser('bob');
  const carol = await hearth.createUser('carol');
  const reader = await hearth.createUser('reader', { scopes: ['read:repository'] });
  await hearth.store.db.query('INSERT INTO collaboration (repo_id, user_id, mode) VALUES ($1, $2, 2), ($1, $3, 1)', [repoId, bob.user.id, carol.user.id]);

  t.is((await hearth.call('POST', '/repos/alice/tool/releases', { body: { tag_name: 'x' } })).status, 401);
  t.is((await hearth.call('POST', '/repos/alice/tool/releases', { auth: carol.bearer, body: { tag_name: 'x' } })).status, 403);
  t.is((await hearth.call('POST', '/repos/alice/tool/releases', { auth: reader.bearer, body: { tag_name: 'x' } })).status, 403);
  const byBob = await hearth.call('POST', '/repos/alice/tool/releases', { auth: bob.bearer, body: { tag_name: 'x' } });
  t.is(byBob.status, 201);
  t.is(byBob.body.author.login, 'bob');
  t.is((await hearth.call('PATCH', `/repos/alice/tool/releases/${byBob.body.id}`, { auth: carol.bearer, body: { name: 'n' } })).status, 403);
  t.is((await hearth.call('DELETE', `/repos/alice/tool/releases/${byBob.body.id}`, { auth: carol.bearer })).status, 403);
  t.is((await hearth.call('GET', `/repos/alice/tool/releases/${byBob.body.id}`, { auth: reader.bearer })).status, 200);

  const secret = await build.repo(hearth, alice, { name: 'secret', private: true, autoInit: true });
  await build.release(hearth, secret, { tag: 's1' });
  t.is((await hearth.call('GET', '/repos/alice/secret/releases')).status, 404);
  t.is((await hearth.call('GET', '/repos/alice/secret/releases', { auth: bob.bearer })).status, 404);
  t.is((await hearth.call('GET', '/repos/alice/secret/releases', { auth: alice.bearer })).body.length, 1);

  await hearth.call('PATCH', '/repos/alice/tool', { auth: alice.bearer, body: { has_releases: false } });
  t.is((await hearth.call('GET', '/repos/alice/tool/releases', { auth: carol.bearer })).status, 403);
  t.is((await hearth.call('GET', '/repos/alice/tool/releases', { auth: alice.bearer })).status, 200);
});

test('a tag name with slashes is found by /releases/tags/{tag}', async (t) => {
  const { hearth, alice, dir } = await setUp(t);
  const made = await hearth.call('POST', '/repos/alice/tool/releases', { auth: alice.bearer, body: { tag_name: 'release/1.0' } });
  t.is(made.status, 201, JSON.stringify(made.body));
  t.is(made.body.html_url, `${hearth.rootUrl}alice/tool/releases/tag/release/1.0`);
  t.deepEqual(tagsOf(dir), ['release/1.0']);
  t.is((await hearth.call('GET', '/repos/alice/tool/releases/tags/release/1.0')).body.id, made.body.id);
  t.is((await hearth.call('DELETE', '/repos/alice/tool/releases/tags/release/1.0', { auth: alice.bearer })).status, 204);
  t.deepEqual(tagsOf(dir), ['release/1.0']);
});

test("a team's mode for the releases unit decides, not its mode for the code", async (t) => {
  const hearth = await startHearth(t);
  const owner = await hearth.createUser('owner');
  const dev = await hearth.createUser('dev');
  const acme = await build.org(hearth, owner, { name: 'acme' });
  await build.repo(hearth, acme, { name: 'app', autoInit: true });
  await build.team(hearth, acme, { name: 'devs', includesAllRepositories: true, unitsMap: { 'repo.code': 'write', 'repo.releases': 'read' }, members: [dev] });

  const sha = git(hearth.deps.git.pathOf('acme', 'app'), 'rev-parse', 'main');
  const status = await hearth.call('POST', `/repos/acme/app/statuses/${sha}`, { auth: dev.bearer, body: { state: 'success' } });
  t.is(status.status, 201, 'code: write');
  const refused = await hearth.call('POST', '/repos/acme/app/releases', { auth: dev.bearer, body: { tag_name: 'v1' } });
  t.is(refused.status, 403, 'releases: read');
  t.is((await hearth.call('GET', '/repos/acme/app/releases', { auth: dev.bearer })).status, 200);
  t.is((await hearth.call('POST', '/repos/acme/app/releases', { auth: owner.bearer, body: { tag_name: 'v1' } })).status, 201);
});

/** A published release v1 ("One", "notes") of alice/tool, its row as read and its repository. */
async function withPublishedRelease(t: Parameters<typeof setUp>[0]) {
  const { hearth, alice, repoId } = await setUp(t);
  const made = await hearth.call('POST', '/repos/alice/tool/releases', { auth: alice.bearer, body: { tag_name: 'v1', name: 'One', body: 'notes' } });
  t.is(made.status, 201, JSON.stringify(made.body));
  const { db } = hearth.store;
  const [seen] = await db.query<ReleaseRow>('SELECT * FROM release WHERE id = $1', [made.body.id]);
  const repo = (await findRepoById(db, repoId))!;
  return { hearth, alice, repoId, db, seen, repo };
}

test('an edit that keeps a release published under its tag is one statement, made only while the row is as it was read', async (t) => {
  const { hearth, alice, repoId, db, seen, repo } = await withPublishedRelease(t);
  const titleNow = async (): Promise<string> => (await db.query<{ title: string }>('SELECT title FROM release WHERE id = $1', [seen.id]))[0].title;

  // a change made after the read (here: back to draft) turns the statement into a no-op, left to the full edit
  await db.query('UPDATE release SET is_draft = true WHERE id = $1', [seen.id]);
  t.is(await editPublishedRelease(db, hearth.deps, repo, seen, alice.user, { name: 'Stale' }), null);
  t.is(await titleNow(), 'One');
  t.deepEqual(await eventKinds(hearth, repoId), ['release.published'], 'no event for an edit not made');
  await db.query('UPDATE release SET is_draft = false WHERE id = $1', [seen.id]);
  t.is(await editPublishedRelease(db, hearth.deps, repo, seen, alice.user, { tag_name: 'v2' }), null, 'a new tag needs the full edit');

  const view = await editPublishedRelease(db, hearth.deps, repo, seen, alice.user, { name: 'Fresh', body: '', prerelease: true });
  t.like(view?.release, { title: 'Fresh', note: 'notes', is_prerelease: true, tag_name: 'v1', sha1: seen.sha1 });
  t.is(view?.publisher?.id, alice.user.id);
  t.is(await titleNow(), 'Fresh');
  t.deepEqual(await eventKinds(hearth, repoId), ['release.published', 'release.updated']);
  const jobs = await db.query(
    `SELECT 1 FROM pgboss.job j JOIN domain_event e ON e.id = (j.data->>'eventId')::bigint WHERE j.name = 'notify' AND e.kind = 'release.updated'`,
  );
  t.is(jobs.length, 1, 'the event has its notify job');

  // through the API: the answer is the release as it reads afterwards
  const patched = await hearth.call('PATCH', `/repos/alice/tool/releases/${seen.id}`, { auth: alice.bearer, body: { name: 'Final' } });
  t.is(patched.status, 200, JSON.stringify(patched.body));
  t.deepEqual(patched.body, (await hearth.call('GET', `/repos/alice/tool/releases/${seen.id}`, { auth: alice.bearer })).body);
  t.like(patched.body, { name: 'Final', body: 'notes', prerelease: true, tag_name: 'v1' });
  t.deepEqual(await eventKinds(hearth, repoId), ['release.published', 'release.updated', 'release.updated']);
});

/** What an edit leaves: the release row, the repository's release count, the event it emitted and the view it answers. */
interface EditOutcome { row: unknown; numReleases: number; event: unknown; view: unknown }
class RolledBack extends Error { constructor(readonly outcome: EditOutcome) { super('rolled back'); } }

/** Runs an edit in a transaction that is rolled back afterwards, so its twin starts from the same rows. */
async function editThenRollBack(hearth: TestHearth, releaseId: number, edit: (tx: Tx) => Promise<unknown>): Promise<EditOutcome> {
  try {
    await inTx(hearth.store, async (tx) => {
      const answered = await edit(tx);
      const [row] = await tx.query('SELECT * FROM release WHERE id = $1', [releaseId]);
      const [{ num_releases }] = await tx.query<{ num_releases: number }>('SELECT num_releases FROM repository r JOIN release x ON x.repo_id = r.id WHERE x.id = $1', [releaseId]);
      const [event] = await tx.query('SELECT kind, payload, repo_id, doer_id FROM domain_event ORDER BY id DESC LIMIT 1');
      throw new RolledBack({ row, numReleases: num_releases, event, view: answered });
    });
  } catch (error) {
    if (error instanceof RolledBack) return error.outcome;
    throw error;
  }
  throw new Error('the edit was not rolled back');
}

test('twin: the one-statement release edit leaves the same row, event and answer as the general edit', async (t) => {
  const { hearth, alice, repoId, db, seen, repo } = await withPublishedRelease(t);
  const edits: ReleaseEdit[] = [
    { name: 'Fresh' },
    { body: 'new notes', prerelease: true },
    { name: '', body: '', target_commitish: 'main', prerelease: false },
    { tag_name: 'v1', draft: false, name: 'x'.repeat(300) },
  ];
  for (const edit of edits) {
    const fast = await editThenRollBack(hearth, seen.id, (tx) => editPublishedRelease(tx, hearth.deps, repo, seen, alice.user, edit));
    t.truthy(fast.view, `the fast path takes ${JSON.stringify(edit)}`);
    const general = await editThenRollBack(hearth, seen.id, async (tx) => {
      await editRelease(tx, hearth.deps, repo, seen.id, alice.user, edit);
      return findReleaseView(tx, seen.id);
    });
    t.deepEqual(fast, general, JSON.stringify(edit));
  }
  t.deepEqual(await eventKinds(hearth, repoId), ['release.published'], 'both rolled back');
});
