import { closeSync, constants, openSync, readdirSync, readFileSync, readSync, type Dirent } from 'node:fs';
import path from 'node:path';
import type { ObjectFormat } from './objects.js';

/** A branch head as the files ref store holds it: `name` without `refs/heads/`, `oid` in lower-case hex. */
export interface BranchRef {
  name: string;
  oid: string;
}

export interface BranchRefs {
  format: ObjectFormat;
  /** Sorted by ref name, byte for byte, as git lists refs. */
  heads: BranchRef[];
}

/** Git's check_refname_format for a full ref name (no patterns, more than one level). */
export function isValidRefName(ref: string): boolean {
  if (ref === '@' || ref.endsWith('.') || ref.endsWith('/')) return false;
  const components = ref.split('/');
  if (components.length < 2) return false;
  return components.every((part) =>
    part.length > 0 && !part.startsWith('.') && !part.endsWith('.lock') && !part.includes('..') && !part.includes('@{') &&
    !/[\x00-\x20\x7f~^:?*[\\]/.test(part),
  );
}

/** Git's order: ref names compared byte for byte as UTF-8. */
function sortByName(refs: BranchRef[]): BranchRef[] {
  return refs
    .map((ref) => ({ ref, key: Buffer.from(ref.name) }))
    .sort((a, b) => Buffer.compare(a.key, b.key))
    .map(({ ref }) => ref);
}

function codeOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

/** The repository's object format, or null when its configuration is missing or not plain enough to read here. */
export function readObjectFormat(dir: string): ObjectFormat | null {
  let config: string;
  try {
    config = readFileSync(path.join(dir, 'config'), 'utf8');
  } catch {
    return null;
  }
  if (/^\s*refstorage\s*=/im.test(config)) return null;
  const values = [...config.matchAll(/^\s*objectformat\s*=\s*(.*?)\s*$/gim)].map((m) => m[1]);
  if (values.length === 0) return 'sha1';
  return values.length === 1 && (values[0] === 'sha1' || values[0] === 'sha256') ? values[0] : null;
}

type Loose = { oid: string } | 'absent' | 'unreadable';

const looseId = {
  40: /^([0-9a-fA-F]{40})(?:[ \t\n\r\0]|$)/,
  64: /^([0-9a-fA-F]{64})(?:[ \t\n\r\0]|$)/,
};
const packedLine = { 40: /^([0-9a-f]{40}) (refs\/.*)$/, 64: /^([0-9a-f]{64}) (refs\/.*)$/ };
const peeledLine = { 40: /^\^[0-9a-f]{40}$/, 64: /^\^[0-9a-f]{64}$/ };
type HexLength = 40 | 64;

/**
 * One loose ref, without following a symbolic link: what git's loose-ref reader makes of it (an id, anything
 * after it past a space ignored). Symbolic refs (`ref: …` or a link) and broken contents are 'unreadable':
 * git itself decides about those. No file, or a directory, is 'absent'.
 */
function readLoose(file: string, hexLength: HexLength): Loose {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = codeOf(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'absent';
    if (code === 'ELOOP') return 'unreadable';
    throw error;
  }
  const start = Buffer.allocUnsafe(hexLength + 1);
  let length: number;
  try {
    length = readSync(fd, start, 0, start.length, 0);
  } catch (error) {
    if (codeOf(error) === 'EISDIR') return 'absent';
    throw error;
  } finally {
    closeSync(fd);
  }
  const match = looseId[hexLength].exec(start.toString('latin1', 0, length));
  return match ? { oid: match[1].toLowerCase() } : 'unreadable';
}

/** The named loose branches, or null if one of them is for git to read. */
function readWantedLoose(dir: string, hexLength: HexLength, names: string[]): Map<string, string> | null {
  const found = new Map<string, string>();
  for (const name of names) {
    const loose = readLoose(path.join(dir, 'refs', 'heads', name), hexLength);
    if (loose === 'unreadable') return null;
    if (loose !== 'absent') found.set(name, loose.oid);
  }
  return found;
}

/** A namespace of refs read here: branches or tags. */
type Namespace = 'heads' | 'tags';

/** Every loose ref under refs/<namespace>, as git walks them (dot files and `.lock` files skipped), or null on anything odd. */
function listLoose(dir: string, hexLength: HexLength, namespace: Namespace = 'heads'): Map<string, string> | null {
  const found = new Map<string, string>();
  const walk = (relative: string): boolean => {
    let entries: Dirent[];
    try {
      entries = readdirSync(path.join(dir, 'refs', namespace, relative), { withFileTypes: true });
    } catch (error) {
      if (codeOf(error) === 'ENOENT' || codeOf(error) === 'ENOTDIR') return true;
      throw error;
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.') || entry.name.endsWith('.lock')) continue;
      const name = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!walk(name)) return false;
        continue;
      }
      // Links, names git would refuse and names that are not UTF-8 are git's to report.
      if (!entry.isFile() || name.includes('\uFFFD') || !isValidRefName(`refs/${namespace}/${name}`)) return false;
      const loose = readLoose(path.join(dir, 'refs', namespace, name), hexLength);
      if (loose === 'unreadable') return false;
      if (loose !== 'absent') found.set(name, loose.oid);
    }
    return true;
  };
  return walk('') ? found : null;
}

/**
 * Branches (or tags) of packed-refs (all, or the wanted ones), or null when git might read the file differently (no
 * `sorted` trait, replace refs, a malformed line among them). Like git, only the lines of the namespace are
 * looked at: the file is sorted, so they stand together, found with one search however many others it holds.
 */
function readPacked(dir: string, hexLength: HexLength, wanted: Set<string> | null, namespace: Namespace = 'heads'): Map<string, string> | null {
  const prefix = `refs/${namespace}/`;
  let file: Buffer;
  try {
    file = readFileSync(path.join(dir, 'packed-refs'));
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return new Map();
    throw error;
  }
  const found = new Map<string, string>();
  if (file.length === 0) return found;
  const headerEnd = file.indexOf(0x0a);
  const header = file.toString('latin1', 0, headerEnd);
  if (!header.startsWith('# pack-refs with:') || !header.split(' ').includes('sorted') || file[file.length - 1] !== 0x0a) return null;
  if (file.includes(' refs/replace/')) return null;
  if (wanted?.size === 0) return found;
  const first = file.indexOf(` ${prefix}`, headerEnd);
  if (first === -1) return found;
  let at = first - hexLength;
  if (file[at - 1] !== 0x0a) return null;
  while (at < file.length) {
    const end = file.indexOf(0x0a, at);
    const text = file.toString('utf8', at, end);
    at = end + 1;
    if (peeledLine[hexLength].test(text)) continue;
    const match = packedLine[hexLength].exec(text);
    if (!match) return null;
    const [, oid, ref] = match;
    if (!ref.startsWith(prefix)) break;
    const name = ref.slice(prefix.length);
    if (wanted && !wanted.has(name)) continue;
    if (found.has(name) || name.includes('\uFFFD') || !isValidRefName(ref)) return null;
    found.set(name, oid);
  }
  return found;
}

/** Replacement objects change what an id reads as; git alone applies them. */
function hasReplaceRefs(dir: string): boolean {
  try {
    return readdirSync(path.join(dir, 'refs', 'replace')).length > 0;
  } catch (error) {
    if (codeOf(error) === 'ENOENT' || codeOf(error) === 'ENOTDIR') return false;
    throw error;
  }
}

/**
 * The branch heads of a bare repository read from the files ref store, without starting git: all of them, or the
 * named ones (names that are no branch are left out). A loose ref wins over its packed-refs line, and loose refs
 * are read before packed-refs, as git does, so a concurrent `git pack-refs` cannot hide a branch. Answers null
 * when only git can tell (a symbolic or broken ref, a name git would refuse, replace refs, another ref store):
 * the caller then asks git.
 *
 * Synchronous on purpose: these are a handful of tiny files in the page cache, and a thread-pool round trip per
 * file costs several times the CPU of the read itself.
 */
export function readBranchRefs(dir: string, names?: string[]): BranchRefs | null {
  const format = readObjectFormat(dir);
  if (!format) return null;
  const hexLength: HexLength = format === 'sha1' ? 40 : 64;
  const wanted = names ? [...new Set(names)].filter((name) => isValidRefName(`refs/heads/${name}`)) : null;
  const loose = wanted ? readWantedLoose(dir, hexLength, wanted) : listLoose(dir, hexLength);
  if (!loose || hasReplaceRefs(dir)) return null;
  const packed = readPacked(dir, hexLength, wanted && new Set(wanted.filter((name) => !loose.has(name))));
  if (!packed) return null;
  const heads = new Map([...packed, ...loose]);
  return { format, heads: sortByName([...heads].map(([name, oid]) => ({ name, oid }))) };
}

/**
 * Every branch and tag (full ref names) with the object it points at (a tag's own object, not peeled), read from the
 * files ref store without starting git, as `git for-each-ref refs/heads/ refs/tags/` lists them; null when only git
 * can tell (see `readBranchRefs`).
 */
export function readHeadAndTagRefs(dir: string): Map<string, string> | null {
  const format = readObjectFormat(dir);
  if (!format) return null;
  const hexLength: HexLength = format === 'sha1' ? 40 : 64;
  const refs = new Map<string, string>();
  for (const namespace of ['heads', 'tags'] as const) {
    const loose = listLoose(dir, hexLength, namespace);
    if (!loose) return null;
    const packed = readPacked(dir, hexLength, null, namespace);
    if (!packed) return null;
    for (const [name, oid] of new Map([...packed, ...loose])) refs.set(`refs/${namespace}/${name}`, oid);
  }
  return hasReplaceRefs(dir) ? null : refs;
}
