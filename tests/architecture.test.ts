import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';

/** DESIGN.md's arrows: which top-level folder may import which. `api/render` is the part of api/ actors may use. */
const allowed: Record<string, string[]> = {
  api: ['api', 'db', 'jobs'],
  db: ['db', 'jobs'],
  jobs: ['jobs'],
  actors: ['actors', 'db', 'jobs', 'api/render'],
  workers: ['workers', 'actors', 'db', 'jobs'],
};

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) yield* sourceFiles(full);
    else if (full.endsWith('.ts')) yield full;
  }
}

function areaOf(file: string): string {
  const [top, second] = file.split(path.sep);
  return top === 'api' && second === 'render' ? 'api/render' : top;
}

test('imports point one way', (t) => {
  const wrong: string[] = [];
  for (const top of Object.keys(allowed)) {
    for (const file of sourceFiles(top)) {
      const from = areaOf(file);
      const rules = allowed[from === 'api/render' ? 'api' : from];
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/^\s*(?:import|export)[^'"]*from\s+['"](\.[^'"]+)['"]/gm)) {
        const target = path.normalize(path.join(path.dirname(file), match[1]));
        const to = areaOf(target);
        const ok = rules.includes(to) || rules.includes(to.split('/')[0]) || (from === 'api/render' && to === 'api/render');
        const renderStaysPure = from !== 'api/render' || to === 'api/render' || to === 'db';
        if (!ok || !renderStaysPure) wrong.push(`${file} → ${target}`);
      }
    }
  }
  t.deepEqual(wrong, []);
});

/** Git's command line is spelled in db/git (repositories at rest) and api/git (serving clone, fetch and push) only. */
test('only db/git and api/git run git', (t) => {
  const gitFolders = [path.join('db', 'git'), path.join('api', 'git')];
  const runner = path.join('db', 'git', 'run.js');
  const wrong: string[] = [];
  for (const top of [...Object.keys(allowed), 'tests']) {
    for (const file of sourceFiles(top)) {
      if (gitFolders.some((folder) => file.startsWith(`${folder}${path.sep}`))) continue;
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/^\s*(?:import|export)([^'"]*)from\s+['"](\.[^'"]+)['"]/gm)) {
        const target = path.normalize(path.join(path.dirname(file), match[2]));
        if (target === runner || /\b(?:runGit|gitOk)\b/.test(match[1])) wrong.push(`${file} → ${target}`);
      }
    }
  }
  t.deepEqual(wrong, []);
});
