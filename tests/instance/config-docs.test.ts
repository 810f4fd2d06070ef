import { readFileSync } from 'node:fs';
import test from 'ava';
import { renderConfigurationDoc } from '../../db/process/config-docs.js';
import { sections } from '../../db/process/config.js';

test('docs/configuration.md is the one the configuration schema makes (run `npm run docs` after changing a setting)', (t) => {
  const committed = readFileSync('docs/configuration.md', 'utf8');
  t.is(committed, renderConfigurationDoc());
  for (const [name, { keys }] of Object.entries(sections)) {
    t.true(committed.includes(`## [${name}]`), name);
    for (const entry of Object.values(keys)) t.true(committed.includes(`| \`${entry.ini}\` |`), `${name} ${entry.ini}`);
  }
});
