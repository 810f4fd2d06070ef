import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * Refs read straight from a repository's files, as git reads them: the loose file under the git directory, else the
 * line of `packed-refs`. One small file read per ref; `packed-refs` is parsed again only when its size or time changes.
 * Git writes both by renaming a finished lock file over them, so a read sees the old or the new value, never half.
 */

const packedCache = new Map<string, { mtimeMs: number; size: number; refs: Map<string, string> }>();
const packedCacheLimit = 512;
const maxSymbolicDepth = 5;

function isMissing(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR';
}

async function packedRefs(dir: string): Promise<Map<string, string>> {
  const file = path.join(dir, 'packed-refs');
  const info = await stat(file).catch((error: unknown) => {
    if (isMissing(error)) return null;
    throw error;
  });
  if (!info) return new Map();
  const cached = packedCache.get(dir);
  if (cached && cached.mtimeMs === info.mtimeMs && cached.size === info.size) return cached.refs;
  const refs = new Map<string, string>();
  for (const line of (await readFile(file, 'utf8')).split('\n')) {
    // `^peeled` lines and the `# pack-refs` header name no ref
    if (!line || line.startsWith('#') || line.startsWith('^')) continue;
    const space = line.indexOf(' ');
    if (space > 0) refs.set(line.slice(space + 1), line.slice(0, space));
  }
  if (packedCache.size >= packedCacheLimit) packedCache.delete(packedCache.keys().next().value!);
  packedCache.set(dir, { mtimeMs: info.mtimeMs, size: info.size, refs });
  return refs;
}

/**
 * The object id a full ref name (`refs/heads/main`, `HEAD`) names, following symbolic refs, or null when it does not
 * exist. The caller passes names that are valid refs (db/git/objects.ts isValidRefPattern).
 */
export async function readRefFile(dir: string, ref: string, depth = 0): Promise<string | null> {
  if (depth > maxSymbolicDepth) return null;
  let text: string | null;
  try {
    text = (await readFile(path.join(dir, ref), 'utf8')).trim();
  } catch (error) {
    if (!isMissing(error)) throw error;
    text = null;
  }
  if (text === null || text === '') return (await packedRefs(dir)).get(ref) ?? null;
  if (text.startsWith('ref: ')) return readRefFile(dir, text.slice('ref: '.length), depth + 1);
  return /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(text) ? text : null;
}

/** Where git's rev-parse looks for a short name, in its order. */
export function refCandidates(name: string): string[] {
  if (name === 'HEAD' || name.startsWith('refs/')) return [name];
  return [name, `refs/${name}`, `refs/tags/${name}`, `refs/heads/${name}`, `refs/remotes/${name}`, `refs/remotes/${name}/HEAD`];
}
