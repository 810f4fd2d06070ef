import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { gitOnDisk, okOnDisk } from '../git/git-client.js';
import { build } from '../helpers/build.js';
import { startHearth, type TestHearth, type TestUser } from '../helpers/hearth.js';

const onePixelPng = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const binary = Buffer.concat([Buffer.from([0xff, 0x00, 0xfe]), Buffer.from('$REPO_NAME')]);

/** Commits files on top of `branch` of a bare repository through a scratch clone. */
async function commitFiles(dir: string, branch: string, files: Record<string, string | Buffer>): Promise<void> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'hearth-work-'));
  try {
    await okOnDisk(['clone', '--quiet', '--branch', branch, dir, work], os.tmpdir());
    for (const [name, content] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(work, name)), { recursive: true });
      writeFileSync(path.join(work, name), content);
    }
    await okOnDisk(['add', '-A'], work);
    await okOnDisk(['-c', 'user.name=Tester', '-c', 'user.email=tester@example.com', 'commit', '--quiet', '-m', 'template files'], work);
    await okOnDisk(['push', '--quiet', 'origin', `HEAD:refs/heads/${branch}`], work);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const show = async (hearth: TestHearth, owner: string, repo: string, spec: string): Promise<Buffer> =>
  (await gitOnDisk(['show', spec], hearth.deps.git.pathOf(owner, repo))).stdout;

async function makeTemplate(hearth: TestHearth, alice: TestUser): Promise<number> {
  const made = await build.repo(hearth, alice, { name: 'tpl', description: 'a template', autoInit: true, template: true });
  await commitFiles(hearth.deps.git.pathOf('alice', 'tpl'), 'main', {
    'README.md': '# $REPO_NAME by ${REPO_OWNER}, from $TEMPLATE_OWNER/$TEMPLATE_NAME: $REPO_NAME_SNAKE $REPO_NAME_PASCAL $REPO_DESCRIPTION $$ $UNKNOWN\n',
    'src/$REPO_NAME_KEBAB.go': 'package $REPO_NAME_LOWER\n',
    'keep.txt': '$REPO_NAME stays\n',
    'data/blob.dat': binary,
    '.gitea/template': '# expand these\n*.md\nsrc/**\ndata/*.dat\n',
  });
  return made.id;
}

test('generating takes the template files as one fresh commit with variables expanded, and the chosen parts', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const templateId = await makeTemplate(hearth, alice);
  const templateDir = hearth.deps.git.pathOf('alice', 'tpl');
  await hearth.call('PUT', '/repos/alice/tpl/topics', { auth: alice.bearer, body: { topics: ['go', 'cli'] } });
  await hearth.call('POST', '/repos/alice/tpl/avatar', { auth: alice.bearer, body: { image: onePixelPng } });
  await hearth.store.db.query(`INSERT INTO label (repo_id, name, color, description, exclusive) VALUES ($1, 'kind/bug', '#ee0701', 'broken', true)`, [templateId]);
  await hearth.store.db.query(`INSERT INTO protected_branch (repo_id, rule_name, required_approvals) VALUES ($1, 'main', 2)`, [templateId]);
  mkdirSync(path.join(templateDir, 'hooks', 'pre-receive.d'), { recursive: true });
  writeFileSync(path.join(templateDir, 'hooks', 'pre-receive.d', 'pre-receive'), '#!/bin/sh\nexit 0\n');
  chmodSync(path.join(templateDir, 'hooks', 'pre-receive.d', 'pre-receive'), 0o755);

  const answer = await hearth.call('POST', '/repos/alice/tpl/generate', {
    auth: bob.bearer,
    body: {
      owner: 'bob', name: 'my-tool', description: 'made from tpl', private: true,
      git_content: true, topics: true, labels: true, protected_branch: true, avatar: true, git_hooks: true, webhooks: true,
    },
  });
  t.is(answer.status, 201, JSON.stringify(answer.body));
  t.like(answer.body, { full_name: 'bob/my-tool', private: true, template: false, empty: false, fork: false, default_branch: 'main', description: 'made from tpl' });
  t.not(answer.body.avatar_url, '');

  const log = await okOnDisk(['log', '--format=%H %P|%an|%s', 'main'], hearth.deps.git.pathOf('bob', 'my-tool'));
  const [commit, author, subject] = log.split('|');
  t.is(log.split('\n').length, 1, 'one commit');
  t.is(commit.trim().split(' ').length, 1, 'with no parent');
  t.is(author, 'bob');
  t.is(subject, 'Initial commit');
  const templateHead = await okOnDisk(['rev-parse', 'refs/heads/main'], templateDir);
  const leaked = await gitOnDisk(['cat-file', '-e', templateHead], hearth.deps.git.pathOf('bob', 'my-tool'));
  t.not(leaked.code, 0, "the template's history is not copied");

  t.is(
    (await show(hearth, 'bob', 'my-tool', 'main:README.md')).toString(),
    '# my-tool by bob, from alice/tpl: my_tool MyTool made from tpl $ UNKNOWN\n',
  );
  t.is((await show(hearth, 'bob', 'my-tool', 'main:src/my-tool.go')).toString(), 'package my-tool\n');
  t.is((await show(hearth, 'bob', 'my-tool', 'main:keep.txt')).toString(), '$REPO_NAME stays\n');
  t.deepEqual(await show(hearth, 'bob', 'my-tool', 'main:data/blob.dat'), Buffer.concat([Buffer.from([0xff, 0x00, 0xfe]), Buffer.from('my-tool')]));
  const files = await okOnDisk(['ls-tree', '-r', '--name-only', 'main'], hearth.deps.git.pathOf('bob', 'my-tool'));
  t.deepEqual(files.split('\n').sort(), ['README.md', 'data/blob.dat', 'keep.txt', 'src/my-tool.go']);

  const [row] = await hearth.store.db.query<{ template_id: number; avatar: string }>('SELECT template_id, avatar FROM repository WHERE id = $1', [answer.body.id]);
  t.is(row.template_id, templateId);
  t.true(existsSync(path.join(hearth.config.dataDir, 'repo-avatars', row.avatar)));
  const branches = await hearth.store.db.query<{ name: string }>('SELECT name FROM branch WHERE repo_id = $1', [answer.body.id]);
  t.deepEqual(branches.map((b) => b.name), ['main']);
  t.deepEqual((await hearth.call('GET', '/repos/bob/my-tool/topics', { auth: bob.bearer })).body.topics, ['cli', 'go']);
  const labels = await hearth.store.db.query('SELECT name, color, description, exclusive FROM label WHERE repo_id = $1', [answer.body.id]);
  t.deepEqual(labels, [{ name: 'kind/bug', color: '#ee0701', description: 'broken', exclusive: true }]);
  const rules = await hearth.store.db.query('SELECT rule_name, required_approvals FROM protected_branch WHERE repo_id = $1', [answer.body.id]);
  t.deepEqual(rules, [{ rule_name: 'main', required_approvals: 2 }]);
  t.is(readFileSync(path.join(hearth.deps.git.pathOf('bob', 'my-tool'), 'hooks', 'pre-receive.d', 'pre-receive'), 'utf8'), '#!/bin/sh\nexit 0\n');
});

test('only the selected parts are taken; a custom default branch names the fresh commit', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  await makeTemplate(hearth, alice);
  await hearth.call('PUT', '/repos/alice/tpl/topics', { auth: alice.bearer, body: { topics: ['go'] } });
  const answer = await hearth.call('POST', '/repos/alice/tpl/generate', {
    auth: alice.bearer, body: { owner: 'alice', name: 'copy', git_content: true, default_branch: 'trunk' },
  });
  t.is(answer.status, 201, JSON.stringify(answer.body));
  t.is(answer.body.default_branch, 'trunk');
  t.is(readFileSync(path.join(hearth.deps.git.pathOf('alice', 'copy'), 'HEAD'), 'utf8').trim(), 'ref: refs/heads/trunk');
  t.truthy((await show(hearth, 'alice', 'copy', 'trunk:keep.txt')).length);
  t.deepEqual((await hearth.call('GET', '/repos/alice/copy/topics')).body.topics, []);

  const topicsOnly = await hearth.call('POST', '/repos/alice/tpl/generate', { auth: alice.bearer, body: { owner: 'alice', name: 'tags', topics: true } });
  t.is(topicsOnly.status, 201);
  t.true(topicsOnly.body.empty);
  t.deepEqual((await hearth.call('GET', '/repos/alice/tags/topics')).body.topics, ['go']);
});

test('refusals: not a template, nothing selected, someone else as owner, a taken name, an invisible template', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  await makeTemplate(hearth, alice);
  await build.repo(hearth, alice, { name: 'plain', autoInit: true });
  await build.repo(hearth, alice, { name: 'hidden', autoInit: true, template: true, private: true });

  const cases: Array<[string, Record<string, unknown>, number, RegExp?]> = [
    ['/repos/alice/plain/generate', { owner: 'bob', name: 'x', git_content: true }, 422, /not a template/],
    ['/repos/alice/tpl/generate', { owner: 'bob', name: 'x' }, 422, /at least one template item/],
    ['/repos/alice/tpl/generate', { owner: 'alice', name: 'x', git_content: true }, 403],
    ['/repos/alice/tpl/generate', { owner: 'ghost', name: 'x', git_content: true }, 404],
    ['/repos/alice/tpl/generate', { name: 'x', git_content: true }, 422],
    ['/repos/alice/tpl/generate', { owner: 'bob', name: 'bad name', git_content: true }, 422],
    ['/repos/alice/hidden/generate', { owner: 'bob', name: 'x', git_content: true }, 404],
  ];
  for (const [url, body, status, message] of cases) {
    const answer = await hearth.call('POST', url, { auth: bob.bearer, body });
    t.is(answer.status, status, `${url} ${JSON.stringify(body)}: ${JSON.stringify(answer.body)}`);
    if (message) t.regex(answer.body.message, message);
  }
  t.is((await hearth.call('POST', '/repos/alice/tpl/generate', { auth: bob.bearer, body: { owner: 'bob', name: 'x', git_content: true } })).status, 201);
  const taken = await hearth.call('POST', '/repos/alice/tpl/generate', { auth: bob.bearer, body: { owner: 'bob', name: 'X', git_content: true } });
  t.is(taken.status, 409);
  const rows = await hearth.store.db.query(`SELECT 1 FROM repository WHERE owner_name = 'bob'`);
  t.is(rows.length, 1);
  t.false(existsSync(hearth.deps.git.pathOf('bob', 'bad name')));
});

test('an organization may be the owner for those who may create repositories in it', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  await makeTemplate(hearth, alice);
  await build.org(hearth, alice, { name: 'guild' });
  const refused = await hearth.call('POST', '/repos/alice/tpl/generate', { auth: bob.bearer, body: { owner: 'guild', name: 'g', git_content: true } });
  t.is(refused.status, 403);
  const made = await hearth.call('POST', '/repos/alice/tpl/generate', { auth: alice.bearer, body: { owner: 'guild', name: 'g', git_content: true } });
  t.is(made.status, 201, JSON.stringify(made.body));
  t.is(made.body.full_name, 'guild/g');
  t.is((await show(hearth, 'guild', 'g', 'main:src/g.go')).toString(), 'package g\n');
});
