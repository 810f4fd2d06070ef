import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { TestHearth } from '../helpers/hearth.js';

/** What the fuzzer compares around a request: a digest of every table's rows, and the refs of every repository on disk. */
export interface State {
  tables: Map<string, string>;
  refs: Map<string, string>;
}

/**
 * Tables whose rows a successful read may touch (a token's last use): compared by row count only. Anything else
 * that changes after a refused request is a finding.
 */
const touchedByReads = new Set(['access_token']);

export async function tableNames(hearth: TestHearth): Promise<string[]> {
  const rows = await hearth.store.db.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> 'migrations' ORDER BY 1`);
  return rows.map((row) => row.name);
}

/** One query: per table, its row count and an md5 of its rows in a stable order. */
export function snapshotQuery(tables: string[]): string {
  return tables.map((table) => touchedByReads.has(table)
    ? `SELECT '${table}' AS name, count(*)::text AS digest FROM "${table}"`
    : `SELECT '${table}' AS name, count(*) || ':' || coalesce(md5(string_agg(t::text, ',' ORDER BY t::text)), '') AS digest FROM "${table}" t`)
    .join(' UNION ALL ');
}

/** Loose and packed refs of every bare repository under the data directory, read from the files git keeps them in. */
function readRefs(dataDir: string): Map<string, string> {
  const refs = new Map<string, string>();
  const root = path.join(dataDir, 'git');
  if (!existsSync(root)) return refs;
  for (const owner of readdirSync(root)) {
    for (const repo of readdirSync(path.join(root, owner))) {
      const gitDir = path.join(root, owner, repo);
      const name = `${owner}/${repo}`;
      refs.set(`${name} HEAD`, safeRead(path.join(gitDir, 'HEAD')));
      const packed = safeRead(path.join(gitDir, 'packed-refs'));
      for (const line of packed.split('\n')) {
        const [sha, ref] = line.split(' ');
        if (ref && /^[0-9a-f]{40}$/.test(sha)) refs.set(`${name} ${ref}`, sha);
      }
      const walk = (dir: string, prefix: string): void => {
        if (!existsSync(dir)) return;
        for (const entry of readdirSync(dir)) {
          const full = path.join(dir, entry);
          if (statSync(full).isDirectory()) walk(full, `${prefix}/${entry}`);
          else refs.set(`${name} ${prefix}/${entry}`, safeRead(full).trim());
        }
      };
      walk(path.join(gitDir, 'refs'), 'refs');
    }
  }
  return refs;
}

function safeRead(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

export async function snapshot(hearth: TestHearth, query: string): Promise<State> {
  const rows = await hearth.store.db.query<{ name: string; digest: string }>(query);
  return { tables: new Map(rows.map((row) => [row.name, row.digest])), refs: readRefs(hearth.config.dataDir) };
}

/** What differs between two states, as short lines (`table user`, `ref alice/x.git refs/heads/main`). */
export function differences(before: State, after: State): string[] {
  const out: string[] = [];
  for (const [name, digest] of after.tables) if (before.tables.get(name) !== digest) out.push(`table ${name}`);
  const keys = new Set([...before.refs.keys(), ...after.refs.keys()]);
  for (const key of keys) if (before.refs.get(key) !== after.refs.get(key)) out.push(`ref ${key}`);
  return out;
}
