import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth, type TestHearth, type TestUser } from '../helpers/hearth.js';

async function write(hearth: TestHearth, user: TestUser, path: string, text: string): Promise<void> {
  const answer = await hearth.call('POST', `/repos/alice/tool/contents/${path}`, {
    auth: user.bearer, body: { content: Buffer.from(text).toString('base64'), message: `add ${path}` },
  });
  if (answer.status !== 201) throw new Error(JSON.stringify(answer.body));
}

test('issue templates: markdown and YAML forms from the default branch; a broken one is left out, never a 500', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  t.deepEqual((await hearth.call('GET', '/repos/alice/tool/issue_templates')).body, []);
  await write(hearth, alice, '.gitea/ISSUE_TEMPLATE/bug.md', '---\nname: Bug\nabout: Report a bug\ntitle: "[bug] "\nlabels: bug, triage\nref: main\n---\nWhat happened?\n');
  await write(hearth, alice, '.gitea/ISSUE_TEMPLATE/feature.yaml', [
    'name: Feature', 'about: Ask for a feature', 'labels: [enhancement]', 'body:',
    '  - type: markdown', '    attributes:', '      value: Thanks!',
    '  - type: input', '    id: summary', '    attributes:', '      label: Summary', '    validations:', '      required: true',
  ].join('\n'));
  await write(hearth, alice, '.gitea/ISSUE_TEMPLATE/broken.yaml', 'name: [unclosed\n');
  await write(hearth, alice, '.gitea/ISSUE_TEMPLATE/nameless.md', '---\nabout: x\n---\nbody');
  const answer = await hearth.call('GET', '/repos/alice/tool/issue_templates');
  t.is(answer.status, 200);
  t.deepEqual(answer.body.map((tpl: { file_name: string }) => tpl.file_name), ['bug.md', 'feature.yaml']);
  t.like(answer.body[0], { name: 'Bug', about: 'Report a bug', title: '[bug] ', labels: ['bug', 'triage'], ref: 'main', content: 'What happened?\n', body: null });
  t.like(answer.body[1], { name: 'Feature', labels: ['enhancement'], content: '' });
  t.deepEqual(answer.body[1].body.map((f: { type: string; id: string }) => [f.type, f.id]), [['markdown', ''], ['input', 'summary']]);
  t.truthy(answer.headers.get('x-gitea-warning'));
});

test('issue config: the default without a file, the file when valid, validation messages when not', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  t.deepEqual((await hearth.call('GET', '/repos/alice/tool/issue_config')).body, { blank_issues_enabled: true, contact_links: [] });
  t.deepEqual((await hearth.call('GET', '/repos/alice/tool/issue_config/validate')).body, { valid: true, message: '' });
  await write(hearth, alice, '.gitea/ISSUE_TEMPLATE/config.yml', 'blank_issues_enabled: false\ncontact_links:\n  - name: Forum\n    url: https://forum.example.com\n    about: Ask there\n');
  t.deepEqual((await hearth.call('GET', '/repos/alice/tool/issue_config')).body, {
    blank_issues_enabled: false, contact_links: [{ name: 'Forum', url: 'https://forum.example.com', about: 'Ask there' }],
  });
  await write(hearth, alice, '.github/ISSUE_TEMPLATE/config.yml', 'x');
  const answer = await hearth.call('PUT', '/repos/alice/tool/contents/.gitea/ISSUE_TEMPLATE/config.yml', {
    auth: alice.bearer,
    body: {
      content: Buffer.from('contact_links:\n  - name: Bad\n    url: ftp://x\n').toString('base64'), message: 'bad',
      sha: (await hearth.call('GET', '/repos/alice/tool/contents/.gitea/ISSUE_TEMPLATE/config.yml')).body.sha,
    },
  });
  t.is(answer.status, 200, JSON.stringify(answer.body));
  const validation = await hearth.call('GET', '/repos/alice/tool/issue_config/validate');
  t.false(validation.body.valid);
  t.regex(validation.body.message, /not a valid URL in contact link #1/);
  t.deepEqual((await hearth.call('GET', '/repos/alice/tool/issue_config')).body, { blank_issues_enabled: true, contact_links: [] });
});
