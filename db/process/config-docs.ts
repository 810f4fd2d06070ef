import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { environment, sections } from './config.js';

/**
 * docs/configuration.md, made from the configuration schema itself (`npm run docs` writes it; a test fails when the
 * committed page differs): every section and key with its default, and the doc comment written above it in config.ts.
 */

const kinds: Array<[RegExp, string]> = [
  [/^setting\.flag/, 'true/false'], [/^setting\.integer/, 'whole number'], [/^setting\.seconds/, 'seconds'],
  [/^setting\.port/, 'port'], [/^setting\.list/, 'comma-separated list'], [/^setting\.duration/, 'duration (10m, 8h)'],
  [/^setting\.url/, 'URL'], [/^setting\.bytes/, 'size (1024, 500 MB, 1 GiB; -1 no limit)'], [/^passwordHash/, 'algorithm'],
  [/^logLevel/, 'log level'], [/^storageType/, 'local or minio'], [/^text/, 'text'], [/^z\.string/, 'text'],
];

interface Documented {
  kind: string;
  comment: string;
}

/** The doc comment and schema text of each `name: key('INI', schema)` line of config.ts, by section and INI name. */
function readSource(sourcePath: string): Map<string, Documented> {
  const found = new Map<string, Documented>();
  let sectionName = '';
  let comment = '';
  for (const line of readFileSync(sourcePath, 'utf8').split('\n')) {
    const opened = /^\s{2}(?:'([\w.]+)'|(\w+)): section\(\{/.exec(line);
    if (opened) sectionName = opened[1] ?? opened[2];
    if (/const environment = /.test(line)) sectionName = '';
    const doc = /^\s*\/\*\*\s*(.*?)\s*\*\/\s*$/.exec(line);
    if (doc) {
      comment = doc[1];
      continue;
    }
    const entry = /key\(\s*[`'"]?([A-Z0-9_]+)[`'"]?\s*,\s*(.+?)\)?,?\s*$/.exec(line) ?? /^\s{2}([A-Z_]+): (.+?),?\s*$/.exec(line);
    if (entry) {
      const kind = kinds.find(([pattern]) => pattern.test(entry[2]))?.[1] ?? '';
      found.set(`${sectionName}/${entry[1]}`, { kind, comment });
    }
    comment = '';
  }
  return found;
}

function defaultOf(schema: z.ZodType): string {
  const def = (schema as unknown as { def: { type: string; defaultValue?: unknown } }).def;
  if (def.type !== 'default') return '(unset)';
  const value = def.defaultValue;
  if (Array.isArray(value)) return value.length ? value.join(', ') : '(empty)';
  if (value === '') return '(empty)';
  return String(value);
}

/** Keys config.ts makes in a loop, one per package type, documented once. */
const families: Array<[RegExp, Documented]> = [
  [/^LIMIT_SIZE_/, { kind: 'size (1024, 500 MB, 1 GiB; -1 no limit)', comment: 'The largest single file of this package type: a 413 by its declared length or while it streams.' }],
];

/** The kinds' sections repeat [storage]'s keys (storageOverrides in config.ts) as overrides of them. */
const storageOverrideSections = new Set(['attachment', 'packages', 'avatar']);

function storageOverride(source: Map<string, Documented>, sectionName: string, ini: string): Documented | undefined {
  const base = storageOverrideSections.has(sectionName) ? source.get(`storage/${ini}`) : undefined;
  const always = ['STORAGE_TYPE', 'MINIO_BUCKET', 'MINIO_BASE_PATH', 'SERVE_DIRECT'].includes(ini);
  const when = always ? '' : ' when this section sets STORAGE_TYPE';
  return base && { kind: base.kind, comment: `[storage] ${ini} for this kind of blob${when} (see Storage in docs/operations.md).` };
}

const documented = (source: Map<string, Documented>, sectionName: string, ini: string): Documented | undefined =>
  source.get(`${sectionName}/${ini}`) ?? storageOverride(source, sectionName, ini) ?? families.find(([pattern]) => pattern.test(ini))?.[1];

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function renderConfigurationDoc(sourcePath = 'db/process/config.ts'): string {
  const source = readSource(sourcePath);
  const lines = [
    '# Configuration',
    '',
    '<!-- Generated from db/process/config.ts by `npm run docs`; edit the schema and its comments, not this page. -->',
    '',
    'Hearth reads `$HEARTH_DATA_DIR/app.ini` (or the file `HEARTH_CONFIG` names) in Gitea\'s INI format, then',
    '`HEARTH__SECTION__KEY` environment variables over it (`HEARTH__WEBHOOK__DELIVER_TIMEOUT=10`). A value that does not',
    'parse stops the start with one line naming the setting; an unknown section or key is a warning, with Gitea\'s name',
    'suggested where one is close. A dot in a section name is written `_0X2E_` in a variable\'s name, as Gitea\'s',
    'environment-to-ini reads it (`HEARTH__GIT_0X2E_TIMEOUT__MIRROR=60` for `[git.timeout] MIRROR`).',
    '',
    '## The environment',
    '',
    '| variable | kind | default | |',
    '|---|---|---|---|',
  ];
  for (const [name, schema] of Object.entries(environment.shape)) {
    const doc = source.get(`/${name}`);
    lines.push(`| \`${name}\` | ${doc?.kind ?? ''} | ${cell(defaultOf(schema as z.ZodType))} | ${cell(doc?.comment ?? '')} |`);
  }
  for (const [sectionName, { keys }] of Object.entries(sections)) {
    lines.push('', `## [${sectionName}]`, '', '| key | kind | default | |', '|---|---|---|---|');
    for (const entry of Object.values(keys)) {
      const doc = documented(source, sectionName, entry.ini);
      lines.push(`| \`${entry.ini}\` | ${doc?.kind ?? ''} | ${cell(defaultOf(entry.schema))} | ${cell(doc?.comment ?? '')} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}
