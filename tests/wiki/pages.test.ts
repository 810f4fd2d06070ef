import { existsSync } from 'node:fs';
import test from 'ava';
import { okOnDisk } from '../git/git-client.js';
import { build } from '../helpers/build.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';

const b64 = (text: string): string => Buffer.from(text).toString('base64');
const wikiDir = (hearth: TestHearth, owner: string, repo: string): string => hearth.deps.git.pathOf(owner, `${repo}.wiki`);
const filesOf = async (hearth: TestHearth, owner: string, repo: string): Promise<string[]> =>
  (await okOnDisk(['ls-tree', '--name-only', 'master'], wikiDir(hearth, owner, repo))).split('\n').filter(Boolean);

test('pages are created, read, renamed, listed, revised and deleted as Gitea does, in commits of the wiki repository', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  await hearth.deps.db.query(`UPDATE "user" SET full_name = 'Alice Liddell' WHERE id = $1`, [alice.user.id]);
  await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  const api = '/repos/alice/tool/wiki';

  t.is((await hearth.call('GET', `${api}/pages`)).status, 404, 'no wiki yet');
  t.is((await hearth.call('GET', `${api}/page/Home`)).status, 404);
  t.false(existsSync(wikiDir(hearth, 'alice', 'tool')));

  const home = await hearth.call('POST', `${api}/new`, { auth: alice.bearer, body: { title: 'Home', content_base64: b64('# Home\n') } });
  t.is(home.status, 201, JSON.stringify(home.body));
  t.true(existsSync(wikiDir(hearth, 'alice', 'tool')), 'the first page creates the wiki repository');
  t.deepEqual(Object.keys(home.body), ['title', 'html_url', 'sub_url', 'last_commit', 'content_base64', 'commit_count', 'sidebar', 'footer']);
  t.like(home.body, {
    title: 'Home', sub_url: 'Home', html_url: `${hearth.rootUrl}alice/tool/wiki/Home`, content_base64: b64('# Home\n'),
    commit_count: 1, sidebar: '', footer: '',
  });
  t.deepEqual(Object.keys(home.body.last_commit), ['sha', 'author', 'commiter', 'message']);
  t.like(home.body.last_commit, { message: 'Add "Home"\n', author: { name: 'Alice Liddell', email: alice.user.email }, commiter: { name: 'Alice Liddell' } });
  t.regex(home.body.last_commit.author.date, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  t.is(await okOnDisk(['rev-parse', 'master'], wikiDir(hearth, 'alice', 'tool')), home.body.last_commit.sha);
  t.is(await okOnDisk(['symbolic-ref', 'HEAD'], wikiDir(hearth, 'alice', 'tool')), 'refs/heads/master');
  t.is(await okOnDisk(['log', '-1', '--format=%an <%ae>|%cn <%ce>', 'master'], wikiDir(hearth, 'alice', 'tool')),
    `Alice Liddell <${alice.user.email}>|Alice Liddell <${alice.user.email}>`);

  // Spaces become dashes; a title with dashes keeps them and takes the `.-` marker; slashes are escaped.
  const spaced = await hearth.call('POST', `${api}/new`, { auth: alice.bearer, body: { title: 'Getting Started', content_base64: b64('start'), message: 'first steps' } });
  t.like(spaced.body, { title: 'Getting Started', sub_url: 'Getting-Started', last_commit: { message: 'first steps\n' } });
  const dashed = await hearth.call('POST', `${api}/new`, { auth: alice.bearer, body: { title: 'road-map 2025', content_base64: b64('plan') } });
  t.like(dashed.body, { title: 'road-map 2025', sub_url: 'road-map+2025.-' });
  const slashed = await hearth.call('POST', `${api}/new`, { auth: alice.bearer, body: { title: 'API/v1 notes', content_base64: b64('api') } });
  t.like(slashed.body, { title: 'API/v1 notes', sub_url: 'API%2Fv1-notes' });
  t.deepEqual((await filesOf(hearth, 'alice', 'tool')).sort(), ['API%2Fv1-notes.md', 'Getting-Started.md', 'Home.md', 'road-map 2025.-.md'].sort());
  t.like((await hearth.call('GET', `${api}/page/API%2Fv1-notes`)).body, { title: 'API/v1 notes', content_base64: b64('api') });
  t.like((await hearth.call('GET', `${api}/page/road-map+2025.-`)).body, { title: 'road-map 2025', content_base64: b64('plan') });

  // Refusals: nothing is written.
  const head = await okOnDisk(['rev-parse', 'master'], wikiDir(hearth, 'alice', 'tool'));
  for (const [body, message] of [
    [{ title: 'Home', content_base64: b64('again') }, 'wiki page already exists [title: Home.md]'],
    [{ title: '_pages', content_base64: b64('x') }, 'wiki title is reserved: _pages'],
    [{ title: '   ', content_base64: b64('x') }, 'emptyTitle'],
    [{ title: 'Fine', content_base64: 'not base64!' }, 'invalid base64 encoding of content'],
  ] as const) {
    const refused = await hearth.call('POST', `${api}/new`, { auth: alice.bearer, body });
    t.is(refused.status, 400, JSON.stringify(body));
    t.is(refused.body.message, message);
  }
  // A page name that is no file git takes names no page: 404, never a server error.
  t.is((await hearth.call('PATCH', `${api}/page/.git%2Fconfig.md`, { auth: alice.bearer, body: { content_base64: b64('x') } })).status, 404);
  t.is((await hearth.call('DELETE', `${api}/page/.git%2Fconfig.md`, { auth: alice.bearer })).status, 404);
  t.is(await okOnDisk(['rev-parse', 'master'], wikiDir(hearth, 'alice', 'tool')), head);

  // Sidebar and footer come with every page.
  await hearth.call('POST', `${api}/new`, { auth: alice.bearer, body: { title: '_Sidebar', content_base64: b64('side') } });
  await hearth.call('POST', `${api}/new`, { auth: alice.bearer, body: { title: '_Footer', content_base64: b64('foot') } });
  t.like((await hearth.call('GET', `${api}/page/Home`)).body, { sidebar: b64('side'), footer: b64('foot') });

  // An edit with a new title moves the file; its history stays with the commits that touched the new name.
  const edited = await hearth.call('PATCH', `${api}/page/Getting-Started`, { auth: alice.bearer, body: { title: 'Quick Start', content_base64: b64('quick') } });
  t.is(edited.status, 200, JSON.stringify(edited.body));
  t.like(edited.body, { title: 'Quick Start', sub_url: 'Quick-Start', content_base64: b64('quick'), last_commit: { message: 'Update "Quick-Start"\n' } });
  const files = await filesOf(hearth, 'alice', 'tool');
  t.true(files.includes('Quick-Start.md'));
  t.false(files.includes('Getting-Started.md'));
  t.is((await hearth.call('GET', `${api}/page/Getting-Started`)).status, 404);
  // Without a title the name stays.
  const kept = await hearth.call('PATCH', `${api}/page/Home`, { auth: alice.bearer, body: { content_base64: b64('# Home v2\n'), message: 'second' } });
  t.like(kept.body, { sub_url: 'Home', content_base64: b64('# Home v2\n'), commit_count: 2 });

  const revisions = await hearth.call('GET', `${api}/revisions/Home`);
  t.is(revisions.status, 200);
  t.is(revisions.headers.get('x-total-count'), '2');
  t.is(revisions.body.count, 2);
  t.deepEqual(revisions.body.commits.map((c: { message: string }) => c.message), ['second\n', 'Add "Home"\n']);
  t.deepEqual((await hearth.call('GET', `${api}/revisions/Home?page=2`)).body.commits, []);

  const listed = await hearth.call('GET', `${api}/pages`);
  t.is(listed.status, 200);
  t.is(listed.headers.get('x-total-count'), '6');
  t.deepEqual(listed.body.map((p: { sub_url: string }) => p.sub_url), ['API%2Fv1-notes', 'Home', 'Quick-Start', '_Footer', '_Sidebar', 'road-map+2025.-']);
  t.is(listed.body[1].last_commit.sha, kept.body.last_commit.sha);
  const second = await hearth.call('GET', `${api}/pages?page=2&limit=4`);
  t.deepEqual(second.body.map((p: { sub_url: string }) => p.sub_url), ['_Sidebar', 'road-map+2025.-']);

  t.is((await hearth.call('DELETE', `${api}/page/Quick-Start`, { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('GET', `${api}/page/Quick-Start`)).status, 404);
  t.false((await filesOf(hearth, 'alice', 'tool')).includes('Quick-Start.md'));
  t.is(await okOnDisk(['log', '-1', '--format=%s', 'master'], wikiDir(hearth, 'alice', 'tool')), 'Delete page "Quick-Start"');
  t.is((await hearth.call('DELETE', `${api}/page/Quick-Start`, { auth: alice.bearer })).status, 404);

  const kinds = await hearth.deps.db.query<{ kind: string; payload: { page: string } }>(
    "SELECT kind, payload FROM domain_event WHERE kind LIKE 'wiki.%' ORDER BY id",
  );
  t.deepEqual(kinds.map((e) => `${e.kind} ${e.payload.page}`), [
    'wiki.created Home', 'wiki.created Getting-Started', 'wiki.created road-map+2025.-', 'wiki.created API%2Fv1-notes',
    'wiki.created _Sidebar', 'wiki.created _Footer', 'wiki.edited Quick-Start', 'wiki.edited Home', 'wiki.deleted Quick-Start',
  ]);
});
