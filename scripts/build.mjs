#!/usr/bin/env node
// `npm run build`: compiles to dist/ and records what it compiled. With --if-stale (before `npm start` and
// `npm run hearth`), compiles only when a source or compiler setting changed since that record, so a start
// with nothing changed costs a directory walk instead of a type check.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeBundle } from './node-bundle.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const config = JSON.parse(readFileSync(path.join(root, 'tsconfig.build.json'), 'utf8'));
const stamp = path.join(root, 'dist', '.build-stamp');
const settings = ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];
/** The processes `npm start` and `npm run hearth` run. */
const entries = ['workers/start.ts', 'workers/worker.ts', 'workers/database.ts', 'workers/cli.ts', 'api/server.ts', 'api/ssh/server.ts'];

function* sources(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(full);
    else if (/\.(tsx?|json|css|js)$/.test(entry.name)) yield full;
  }
}

/** Every input, relative, with its modification time. */
function inputs() {
  const files = [...config.include.flatMap((dir) => [...sources(path.join(root, dir))]), ...settings.map((file) => path.join(root, file))];
  return Object.fromEntries(files.filter(existsSync).map((file) => [path.relative(root, file), statSync(file).mtimeMs]));
}

function isStale(current) {
  if (!existsSync(stamp)) return true;
  const recorded = JSON.parse(readFileSync(stamp, 'utf8'));
  const names = Object.keys(current);
  return names.length !== Object.keys(recorded).length || names.some((name) => recorded[name] !== current[name]);
}

const current = inputs();
if (process.argv.includes('--if-stale') && !isStale(current)) process.exit(0);
if (process.argv.includes('--if-stale')) console.error('hearth: sources changed since the last build; compiling (tsc)…');
const tsc = spawnSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
// Each process entry then becomes one file holding all of Hearth's own modules (packages stay in node_modules), in
// place of tsc's output for it: a process loads one file instead of some 400, which is a fifth of its start.
const { build } = await import('esbuild');
await build({
  entryPoints: entries.map((entry) => path.join(root, entry)),
  outdir: path.join(root, 'dist'),
  outbase: root,
  ...nodeBundle,
});
writeFileSync(stamp, JSON.stringify(current));
