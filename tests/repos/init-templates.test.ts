import { existsSync } from 'node:fs';
import test from 'ava';
import { okOnDisk } from '../git/git-client.js';
import { startHearth } from '../helpers/hearth.js';

test('gitignore, license and label templates are listed and shown', async (t) => {
  const hearth = await startHearth(t);
  const gitignores = await hearth.call('GET', '/gitignore/templates');
  t.is(gitignores.status, 200);
  t.true(gitignores.body.includes('Go') && gitignores.body.includes('Node') && gitignores.body.includes('Python'));
  t.deepEqual(gitignores.body, [...gitignores.body].sort((a: string, b: string) => a.toLowerCase().localeCompare(b.toLowerCase())));
  const go = await hearth.call('GET', '/gitignore/templates/Go');
  t.is(go.body.name, 'Go');
  t.regex(go.body.source, /^\*\.exe$/m);
  t.is((await hearth.call('GET', '/gitignore/templates/Cobol')).status, 404);
  t.is((await hearth.call('GET', '/gitignore/templates/toString')).status, 404);

  const licenses = await hearth.call('GET', '/licenses');
  const mit = licenses.body.find((l: { key: string }) => l.key === 'MIT');
  t.deepEqual(mit, { key: 'MIT', name: 'MIT', url: `${hearth.rootUrl}api/v1/licenses/MIT` });
  t.truthy(licenses.body.find((l: { key: string }) => l.key === 'Apache-2.0'));
  t.truthy(licenses.body.find((l: { key: string }) => l.key === 'GPL-3.0-only'));
  const text = await hearth.call('GET', '/licenses/MIT');
  t.like(text.body, { key: 'MIT', name: 'MIT', url: `${hearth.rootUrl}api/v1/licenses/MIT` });
  t.regex(text.body.body, /^MIT License\n\nCopyright \(c\) <year> <copyright holders>/);
  t.regex(text.body.implementation, /LICENSE/);
  t.is((await hearth.call('GET', '/licenses/WTFPL')).status, 404);

  t.deepEqual((await hearth.call('GET', '/label/templates')).body, ['Advanced', 'Default']);
  const labels = await hearth.call('GET', '/label/templates/Default');
  t.deepEqual(labels.body[0], { name: 'bug', exclusive: false, color: 'ee0701', description: 'Something is not working' });
  const advanced = await hearth.call('GET', '/label/templates/Advanced');
  t.true(advanced.body.some((l: { name: string; exclusive: boolean }) => l.name === 'Priority/High' && l.exclusive));
  t.is((await hearth.call('GET', '/label/templates/Nope')).status, 404);
});

test('auto_init writes README.md, the combined .gitignore and the filled-in LICENSE; issue_labels creates labels', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const made = await hearth.call('POST', '/user/repos', {
    auth: alice.bearer,
    body: { name: 'tool', description: 'does things', auto_init: true, readme: 'Default', gitignores: 'Go,Node', license: 'MIT', issue_labels: 'Default' },
  });
  t.is(made.status, 201, JSON.stringify(made.body));
  const dir = hearth.deps.git.pathOf('alice', 'tool');
  t.deepEqual((await okOnDisk(['ls-tree', '--name-only', 'main'], dir)).split('\n'), ['.gitignore', 'LICENSE', 'README.md']);
  t.is(await okOnDisk(['show', 'main:README.md'], dir), '# tool\n\ndoes things');
  const gitignore = await okOnDisk(['show', 'main:.gitignore'], dir);
  t.true(gitignore.startsWith('# ---> Go\n'));
  t.regex(gitignore, /\n# ---> Node\n# Logs\n/);
  const license = await okOnDisk(['show', 'main:LICENSE'], dir);
  t.regex(license, new RegExp(`^MIT License\\n\\nCopyright \\(c\\) ${new Date().getFullYear()} alice\\n`));
  const labels = await hearth.store.db.query<{ name: string; color: string }>('SELECT name, color FROM label WHERE repo_id = $1 ORDER BY name', [made.body.id]);
  t.is(labels.length, 7);
  t.deepEqual(labels[0], { name: 'bug', color: '#ee0701' });

  const readmeOnly = await hearth.call('POST', '/user/repos', { auth: alice.bearer, body: { name: 'plain', auto_init: true } });
  t.deepEqual((await okOnDisk(['ls-tree', '--name-only', 'main'], hearth.deps.git.pathOf('alice', 'plain'))).split('\n'), ['README.md']);
  t.false(readmeOnly.body.empty);
  const notInitialised = await hearth.call('POST', '/user/repos', { auth: alice.bearer, body: { name: 'bare', gitignores: 'Go', license: 'MIT' } });
  t.is(notInitialised.status, 201);
  t.true(notInitialised.body.empty, 'templates only apply with auto_init');
});

test('unknown templates are refused before anything is created', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const cases: Array<[Record<string, unknown>, number]> = [
    [{ name: 'a', auto_init: true, gitignores: 'Go,Cobol' }, 422],
    [{ name: 'b', auto_init: true, license: 'WTFPL' }, 422],
    [{ name: 'c', auto_init: true, readme: 'Fancy' }, 400],
    [{ name: 'd', issue_labels: 'Nope' }, 422],
  ];
  for (const [body, status] of cases) {
    const answer = await hearth.call('POST', '/user/repos', { auth: alice.bearer, body });
    t.is(answer.status, status, JSON.stringify(answer.body));
    t.truthy(answer.body.message);
    t.false(existsSync(hearth.deps.git.pathOf('alice', body.name as string)));
  }
  t.deepEqual(await hearth.store.db.query('SELECT 1 FROM repository'), []);
  t.deepEqual(await hearth.store.db.query('SELECT 1 FROM label'), []);
});
