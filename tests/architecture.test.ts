import { readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { packageImports, relativeImports, sourceFiles, valueImportCycles } from './helpers/import-graph.js';

/** DESIGN.md's arrows: which top-level folder may import which. `api/render` is the part of api/ actors may use. */
const allowed: Record<string, string[]> = {
  api: ['api', 'db', 'jobs'],
  db: ['db', 'jobs'],
  jobs: ['jobs'],
  actors: ['actors', 'db', 'jobs', 'api/render'],
  workers: ['workers', 'actors', 'db', 'jobs'],
};

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

/** Modules tied in a circle load in an order that depends on who imports first; type-only imports are erased and tie nothing. */
test('no value-import circles in db/', (t) => {
  t.deepEqual(valueImportCycles('db'), []);
});

/**
 * Models are the layer views and processes build on: they import neither (a model needing a view's SQL or a row type
 * takes it from a leaf module of db/models). The configuration's type is the one exception: it is erased.
 */
test('db/models imports neither db/views nor db/process', (t) => {
  const wrong: string[] = [];
  for (const file of sourceFiles(path.join('db', 'models'))) {
    for (const { target, typeOnly } of relativeImports(file)) {
      const toViews = target.startsWith(`db${path.sep}views${path.sep}`);
      const toProcess = target.startsWith(`db${path.sep}process${path.sep}`) && !typeOnly;
      if (toViews || toProcess) wrong.push(`${file} → ${target}`);
    }
  }
  t.deepEqual(wrong, []);
});

/** Packages that reach the disk, the network, a database or another process. */
const ioPackage = /^(?:node:)?(?:fs|child_process|net|http|https|http2|dgram|worker_threads)(?:\/|$)|^(?:pg|pg-boss|typeorm|undici|isomorphic-git|nodemailer|express)(?:\/|$)/;

/** Renderers turn rows into answers: nothing they load, however indirectly, may do I/O. */
test('api/render stays pure', (t) => {
  const wrong: string[] = [];
  for (const start of sourceFiles(path.join('api', 'render'))) {
    const seen = new Set<string>();
    const pending: string[][] = [[start]];
    while (pending.length > 0) {
      const trail = pending.pop()!;
      const file = trail[trail.length - 1];
      if (seen.has(file)) continue;
      seen.add(file);
      for (const name of packageImports(file)) if (ioPackage.test(name)) wrong.push(`${trail.join(' → ')} → ${name}`);
      for (const { target, typeOnly } of relativeImports(file)) if (!typeOnly) pending.push([...trail, target]);
    }
  }
  t.deepEqual(wrong, []);
});
