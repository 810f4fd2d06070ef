import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** Every `.ts` and `.tsx` file under a folder, depth first. */
export function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) yield* sourceFiles(full);
    else if (/\.tsx?$/.test(full)) yield full;
  }
}

export interface RelativeImport {
  /** The imported file, as a source path (`db/models/users/users.ts`). */
  target: string;
  /** `import type`, or every name marked `type`: erased by the compiler, so it ties no modules together at run time. */
  typeOnly: boolean;
  /** What stands between the keyword and `from`: the imported names. */
  clause: string;
}

const importPattern = /^\s*(import|export)(\s+type\b)?([^'";]*?)\s*from\s+['"](\.[^'"]+)['"]|^\s*import\s+['"](\.[^'"]+)['"]/gm;

function everyNameIsType(clause: string): boolean {
  const braces = /^\s*\{([^}]*)\}\s*$/.exec(clause);
  if (!braces) return false;
  const names = braces[1].split(',').map((name) => name.trim()).filter(Boolean);
  return names.length > 0 && names.every((name) => name.startsWith('type '));
}

/** The relative imports and re-exports of one source file. */
export function relativeImports(file: string): RelativeImport[] {
  const text = readFileSync(file, 'utf8');
  const found: RelativeImport[] = [];
  for (const match of text.matchAll(importPattern)) {
    const specifier = match[4] ?? match[5];
    const source = path.normalize(path.join(path.dirname(file), specifier)).replace(/\.js$/, '.ts');
    const target = existsSync(source) || !existsSync(`${source}x`) ? source : `${source}x`;
    const clause = match[3] ?? '';
    found.push({ target, clause, typeOnly: match[2] !== undefined || everyNameIsType(clause) });
  }
  return found;
}

/** The packages and Node built-ins a source file imports for their values (not `import type`). */
export function packageImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const pattern = /^\s*(?:import|export)(\s+type\b)?[^'";]*?\s*from\s+['"]([^.'"][^'"]*)['"]|^\s*import\s+['"]([^.'"][^'"]*)['"]/gm;
  return [...text.matchAll(pattern)].filter((match) => match[1] === undefined).map((match) => match[2] ?? match[3]);
}

/**
 * The import circles among the files under `root` that hold at run time (type-only imports left out): each strongly
 * connected component of more than one file, its files sorted (Tarjan's algorithm).
 */
export function valueImportCycles(root: string): string[][] {
  const edges = new Map<string, string[]>();
  for (const file of sourceFiles(root)) {
    edges.set(
      file,
      relativeImports(file)
        .filter((imported) => !imported.typeOnly && imported.target.startsWith(`${root}${path.sep}`))
        .map((imported) => imported.target),
    );
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of edges.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (edges.get(file) ?? []).includes(file)) cycles.push(component.sort());
  };
  for (const file of edges.keys()) if (!index.has(file)) visit(file);
  return cycles;
}
