import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { commitFile, git, ok, okOnDisk, remote, scratch } from '../git/git-client.js';
import { build } from '../helpers/build.js';
import { startHearth } from '../helpers/hearth.js';

const b64 = (text: string): string => Buffer.from(text).toString('base64');

test('a wiki is cloned and pushed with git over HTTP; pushed pages are served by the API; access follows the wiki unit', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  await build.repo(hearth, alice, { name: 'blank', autoInit: true });
  const home = scratch(t);

  const made = await hearth.call('POST', '/repos/alice/tool/wiki/new', { auth: alice.bearer, body: { title: 'Home', content_base64: b64('# Home\n') } });
  t.is(made.status, 201);

  // Anyone who may read the wiki clones it.
  await ok(git(home, ['clone', '--quiet', remote(hearth, 'alice', 'tool.wiki'), 'wiki']));
  const clone = path.join(home, 'wiki');
  t.is(readFileSync(path.join(clone, 'Home.md'), 'utf8'), '# Home\n');
  t.is((await ok(git(home, ['rev-parse', 'HEAD'], clone))).trim(), made.body.last_commit.sha);
  t.is((await ok(git(home, ['rev-parse', '--abbrev-ref', 'HEAD'], clone))).trim(), 'master');

  // Pushing needs write access to the wiki.
  const pushed = await commitFile(home, clone, 'Pushed-Page.md', 'from git\n', 'a page from git');
  const asBob = await git(home, ['push', remote(hearth, 'alice', 'tool.wiki', { user: 'bob', secret: bob.token }), 'master'], clone);
  t.not(asBob.code, 0);
  const anonymous = await git(home, ['push', 'origin', 'master'], clone);
  t.not(anonymous.code, 0);
  const wikiDir = hearth.deps.git.pathOf('alice', 'tool.wiki');
  t.is(await okOnDisk(['rev-parse', 'master'], wikiDir), made.body.last_commit.sha);
  await ok(git(home, ['push', remote(hearth, 'alice', 'tool.wiki', { user: 'alice', secret: alice.token }), 'master'], clone));
  t.is(await okOnDisk(['rev-parse', 'master'], wikiDir), pushed);
  t.is(await okOnDisk(['rev-parse', 'refs/heads/master'], hearth.deps.git.pathOf('alice', 'tool')).catch(() => 'none'), 'none', 'the repository itself is untouched');

  const page = await hearth.call('GET', '/repos/alice/tool/wiki/page/Pushed-Page');
  t.is(page.status, 200);
  t.like(page.body, { title: 'Pushed Page', sub_url: 'Pushed-Page', content_base64: b64('from git\n'), last_commit: { sha: pushed, message: 'a page from git\n' } });
  t.like(page.body.last_commit.author, { name: 'Tester', email: 'tester@example.com' });

  // A page written through the API is there at the next fetch.
  const edited = await hearth.call('PATCH', '/repos/alice/tool/wiki/page/Pushed-Page', { auth: alice.bearer, body: { content_base64: b64('edited\n') } });
  t.is(edited.status, 200);
  await ok(git(home, ['pull', '--quiet', '--ff-only', 'origin', 'master'], clone));
  t.is(readFileSync(path.join(clone, 'Pushed-Page.md'), 'utf8'), 'edited\n');
  t.is((await ok(git(home, ['rev-parse', 'HEAD'], clone))).trim(), edited.body.last_commit.sha);

  // The first push creates a wiki that was never written.
  t.false(existsSync(hearth.deps.git.pathOf('alice', 'blank.wiki')));
  t.not((await git(home, ['clone', remote(hearth, 'alice', 'blank.wiki'), 'none'])).code, 0);
  await ok(git(home, ['init', '--quiet', '--initial-branch=master', 'fresh']));
  const fresh = path.join(home, 'fresh');
  await commitFile(home, fresh, 'Home.md', 'fresh\n');
  await ok(git(home, ['push', remote(hearth, 'alice', 'blank.wiki', { user: 'alice', secret: alice.token }), 'master'], fresh));
  t.like((await hearth.call('GET', '/repos/alice/blank/wiki/page/Home')).body, { content_base64: b64('fresh\n'), commit_count: 1 });

  // No wiki unit, no wiki over git.
  await hearth.call('PATCH', '/repos/alice/tool', { auth: alice.bearer, body: { has_wiki: false } });
  const off = await git(home, ['clone', remote(hearth, 'alice', 'tool.wiki', { user: 'alice', secret: alice.token }), 'off']);
  t.not(off.code, 0);
  t.false(existsSync(path.join(home, 'off', 'Home.md')));
});
