import test from 'ava';
import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import { startHearth, type TestHearth, type TestUser } from '../helpers/hearth.js';

/** A JSON value's `*_url` (and `url`) fields: each link with the answer and key it was first found under; `keys` gathers every key. */
function collectUrls(value: unknown, where: string, into: Map<string, string>, keys: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) collectUrls(item, where, into, keys);
    return;
  }
  if (!value || typeof value !== 'object') return;
  for (const [key, inner] of Object.entries(value)) {
    if (typeof inner === 'string' && /(^|_)url$/.test(key)) {
      keys.add(key);
      if (!into.has(inner)) into.set(inner, `${where} ${key}`);
    } else {
      collectUrls(inner, where, into, keys);
    }
  }
}

/**
 * The links that are not followed, each with why: exactly these, and each rule must meet at least one link (so the
 * list cannot outgrow what the answers hold). Everything else an answer links to on this instance (API resources,
 * raw files, archives, downloads, attachments, avatars, diffs and patches) must answer a GET with neither 404 nor 5xx.
 */
const excluded: Array<{ key: string; path: RegExp; why: string }> = [
  { key: 'html_url', path: /^\//, why: "a page of Gitea's web face (Gitea answers it with HTML), which Hearth does not serve yet" },
  { key: 'clone_url', path: /^\/[^/]+\/[^/]+\.git$/, why: "a GET of a clone address is the repository's HTML page in Gitea (git over HTTP is tested in tests/git)" },
  { key: 'url', path: /^\/[^/]+\/[^/]+\/commit\/[0-9a-f]{40}$/, why: "a payload commit's `url` is Gitea's commit page (HTML)" },
  { key: 'commit_url', path: /^\/api\/v1\/repos\/[^/]+\/[^/]+\/commits\/[0-9a-f]{40}$/, why: "Gitea 1.22 declares no GET /repos/{owner}/{repo}/commits/{sha} (its combined status carries no such link)" },
];

async function seed(hearth: TestHearth): Promise<{ admin: TestUser; bob: TestUser; paths: string[] }> {
  const admin = await hearth.createUser('root', { admin: true });
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const call = async (method: string, path: string, body?: unknown, who: TestUser = alice): Promise<any> => {
    const answer = await hearth.call(method, path, { auth: who.bearer, body });
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  const org = await build.org(hearth, alice, { name: 'acme' });
  const team = await build.team(hearth, org, { name: 'devs', permission: 'write', members: [bob] });
  const repo = await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  await build.repo(hearth, org, { name: 'shared', autoInit: true });
  await build.repo(hearth, alice, { name: 'secret', private: true, autoInit: true });
  const feature = await build.commit(hearth, repo, { newBranch: 'feature', files: { 'src/a.txt': 'a\n' } });
  await call('PUT', '/repos/alice/tool/collaborators/bob', { permission: 'write' });
  const label = await call('POST', '/repos/alice/tool/labels', { name: 'bug', color: '#ee0701' });
  const milestone = await call('POST', '/repos/alice/tool/milestones', { title: 'v1' });
  await call('POST', '/repos/alice/tool/issues', { title: 'broken', body: 'see #2', labels: [label.id], milestone: milestone.id, assignees: ['bob'] });
  await call('POST', '/repos/alice/tool/pulls', { head: 'feature', base: 'main', title: 'Add a', body: 'fixes #1' });
  const comment = await call('POST', '/repos/alice/tool/issues/1/comments', { body: 'confirmed' }, bob);
  await call('POST', '/repos/alice/tool/issues/1/reactions', { content: 'heart' }, bob);
  await call('POST', '/repos/alice/tool/pulls/2/reviews', { event: 'COMMENT', body: 'nice', comments: [{ path: 'src/a.txt', body: 'ok', new_position: 1 }] }, bob);
  const files = (name: string, text: string): FormData => {
    const form = new FormData();
    form.append('attachment', new Blob([text]), name);
    return form;
  };
  for (const target of ['/repos/alice/tool/issues/1/assets', `/repos/alice/tool/issues/comments/${comment.id}/assets`, '/repos/alice/tool/issues/2/assets']) {
    const answer = await fetch(`${hearth.rootUrl}api/v1${target}`, { method: 'POST', headers: { Authorization: alice.bearer }, body: files('notes.txt', 'notes\n') });
    if (answer.status !== 201) throw new Error(`${target}: ${answer.status}`);
  }
  const release = await call('POST', '/repos/alice/tool/releases', { tag_name: 'v1.0', name: 'One', body: 'notes' });
  const asset = await fetch(`${hearth.rootUrl}api/v1/repos/alice/tool/releases/${release.id}/assets`, { method: 'POST', headers: { Authorization: alice.bearer }, body: files('tool.zip', 'zip') });
  if (asset.status !== 201) throw new Error(`asset: ${asset.status}`);
  await call('POST', `/repos/alice/tool/statuses/${feature.commitId}`, { state: 'success', context: 'ci', target_url: `${hearth.rootUrl}alice/tool` });
  await call('POST', '/repos/alice/tool/hooks', { type: 'gitea', config: { url: 'http://example.com/hook', content_type: 'json' }, events: ['push'], active: true });
  await call('POST', '/orgs/acme/hooks', { type: 'gitea', config: { url: 'http://example.com/hook', content_type: 'json' }, events: ['push'], active: true });
  await call('POST', '/repos/alice/tool/wiki/new', { title: 'Home', content_base64: Buffer.from('wiki').toString('base64') });
  await call('POST', '/repos/alice/tool/forks', { name: 'tool-fork' }, bob);
  await call('PUT', '/repos/alice/tool/subscription', undefined, bob);
  const pkg = await fetch(`${hearth.rootUrl}api/packages/alice/generic/thing/1.0.0/thing.txt`, { method: 'PUT', headers: { Authorization: alice.basic }, body: 'thing' });
  if (pkg.status !== 201) throw new Error(`package: ${pkg.status}`);
  await drain(hearth);
  const head = (await call('GET', '/repos/alice/tool/branches/main')).commit.id;
  const paths = [
    '/user', '/users/alice', '/users/bob', '/orgs/acme', '/orgs/acme/teams', `/teams/${team.id}`, `/teams/${team.id}/members`, `/teams/${team.id}/repos`,
    '/repos/alice/tool', '/repos/acme/shared', '/repos/alice/secret', '/repos/search?limit=50', '/user/repos', '/admin/users', '/admin/orgs',
    '/repos/alice/tool/issues?state=all', '/repos/alice/tool/issues/1', '/repos/alice/tool/issues/1/comments', '/repos/alice/tool/issues/1/timeline',
    '/repos/alice/tool/issues/1/assets', '/repos/alice/tool/issues/1/reactions', '/repos/alice/tool/issues/comments', `/repos/alice/tool/issues/comments/${comment.id}/assets`,
    '/repos/alice/tool/pulls?state=all', '/repos/alice/tool/pulls/2', '/repos/alice/tool/pulls/2/reviews', '/repos/alice/tool/pulls/2/files', '/repos/alice/tool/pulls/2/commits',
    '/repos/alice/tool/releases', `/repos/alice/tool/releases/${release.id}/assets`, '/repos/alice/tool/releases/latest', '/repos/alice/tool/tags',
    '/repos/alice/tool/labels', '/repos/alice/tool/milestones?state=all', '/repos/alice/tool/hooks', '/orgs/acme/hooks',
    '/repos/alice/tool/branches', '/repos/alice/tool/commits', `/repos/alice/tool/git/commits/${head}`, `/repos/alice/tool/git/trees/${head}`,
    '/repos/alice/tool/git/refs', '/repos/alice/tool/contents', '/repos/alice/tool/contents/README.md', `/repos/alice/tool/statuses/${feature.commitId}`,
    `/repos/alice/tool/commits/${feature.commitId}/status`, '/repos/alice/tool/forks', '/repos/alice/tool/subscribers', '/repos/alice/tool/collaborators',
    '/repos/alice/tool/wiki/pages', '/repos/alice/tool/wiki/page/Home', '/repos/alice/tool/wiki/revisions/Home', '/packages/alice', '/packages/alice/generic/thing/1.0.0/files',
    '/notifications?all=true', '/repos/alice/tool/activities/feeds', '/users/alice/activities/feeds', '/user/orgs', '/orgs/acme/repos', '/orgs/acme/members',
    '/repos/alice/tool/stargazers', '/users/bob/subscriptions', '/repos/alice/tool/assignees', '/repos/alice/tool/teams', '/repos/acme/shared/teams',
  ];
  return { admin, bob, paths };
}

test('every *_url of the answers of a seeded instance answers a GET (none 404 or 5xx) for a caller who may read it', async (t) => {
  t.timeout(5 * 60_000);
  const hearth = await startHearth(t);
  const { admin, bob, paths } = await seed(hearth);
  const root = hearth.rootUrl;
  const found = new Map<string, string>();
  const answered = new Map<string, number>();
  // the site administrator reads everything; bob's own notifications are read as bob (and what they link to)
  const queue: Array<[string, TestUser]> = [
    ...paths.map((path): [string, TestUser] => [`${root}api/v1${path}`, admin]),
    [`${root}api/v1/notifications?all=true`, bob], [`${root}api/v1/notifications?all=true&subject-type=pull`, bob], [`${root}api/v1/user`, bob],
  ];
  const bad: string[] = [];
  const keys = new Set<string>();
  const used = new Set<(typeof excluded)[number]>();
  for (const [start] of queue) found.set(start, 'seed');
  while (queue.length) {
    const [url, caller] = queue.shift()!;
    if (answered.has(url)) continue;
    const answer = await fetch(url, { headers: { Authorization: caller.bearer }, redirect: 'manual' });
    answered.set(url, answer.status);
    if (answer.status === 404 || answer.status >= 500) bad.push(`${answer.status} ${url} (${found.get(url)})`);
    if (!(answer.headers.get('content-type') ?? '').includes('json') || !url.startsWith(`${root}api/v1/`)) {
      await answer.arrayBuffer();
      continue;
    }
    const before = new Set(found.keys());
    collectUrls(await answer.json().catch(() => null), new URL(url).pathname, found, keys);
    for (const [link, where] of found) {
      if (before.has(link) || !link || !link.startsWith(root)) continue;
      const key = where.split(' ').pop()!;
      const path = link.slice(root.length - 1);
      const rule = excluded.find((r) => r.key === key && r.path.test(path));
      if (rule) used.add(rule);
      else queue.push([link, caller]);
    }
  }
  t.log(`${answered.size} links followed`);
  t.deepEqual(bad, []);
  t.deepEqual(excluded.filter((rule) => !used.has(rule)).map((rule) => rule.key), [], 'every exclusion meets a link');
  t.true(answered.size > 90, `${answered.size}`);
  t.log([...keys].sort().join(' '));
  for (const key of ['browser_download_url', 'zipball_url', 'tarball_url', 'download_url', 'avatar_url', 'diff_url', 'patch_url', 'issue_url', 'pull_request_url', 'latest_comment_url']) {
    t.true(keys.has(key), `some answer has ${key}`);
  }
});

test("a pull request's diff_url and patch_url serve its diff and patch as text to whoever may read its pull requests", async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const stranger = await hearth.createUser('stranger');
  const repo = await build.repo(hearth, alice, { name: 'secret', private: true, autoInit: true });
  await build.commit(hearth, repo, { newBranch: 'feature', files: { 'src/a.txt': 'added line\n' }, message: 'Add a' });
  const pull = (await hearth.call('POST', '/repos/alice/secret/pulls', { auth: alice.bearer, body: { head: 'feature', base: 'main', title: 'Add a' } })).body;
  t.is(pull.diff_url, `${hearth.rootUrl}alice/secret/pulls/${pull.number}.diff`);
  const diff = await fetch(pull.diff_url, { headers: { Authorization: alice.bearer } });
  t.is(diff.status, 200);
  t.is(diff.headers.get('content-type'), 'text/plain; charset=utf-8');
  const diffText = await diff.text();
  t.regex(diffText, /^diff --git a\/src\/a.txt b\/src\/a.txt/);
  t.true(diffText.includes('+added line'));
  t.is(diffText, (await hearth.call('GET', `/repos/alice/secret/pulls/${pull.number}.diff`, { auth: alice.bearer })).body, 'the API route says the same');
  const patch = await fetch(pull.patch_url, { headers: { Authorization: alice.basic } });
  t.is(patch.status, 200);
  const patchText = await patch.text();
  t.regex(patchText, /^From [0-9a-f]{40} /);
  t.true(patchText.includes('Subject: [PATCH] Add a'));
  for (const auth of [undefined, stranger.bearer]) t.is((await fetch(pull.diff_url, { headers: auth ? { Authorization: auth } : {} })).status, 404);
  t.is((await fetch(`${hearth.rootUrl}alice/secret/pulls/${pull.number}.zip`, { headers: { Authorization: alice.bearer } })).status, 404);
  t.is((await fetch(`${hearth.rootUrl}alice/secret/pulls/99.diff`, { headers: { Authorization: alice.bearer } })).status, 404);
  t.is((await fetch(`${hearth.rootUrl}alice/secret/pulls/0x1.diff`, { headers: { Authorization: alice.bearer } })).status, 404);
});
