import { closeSync, constants, lstatSync, openSync, readdirSync, readFileSync, readSync, statSync, type Dirent } from 'node:fs';
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

interface Kept<T> {
  ino: number;
  size: number;
  mtimeMs: number;
  value: T;
}

/**
 * What a parse made of a file, kept while the file is unchanged: git replaces config and packed-refs by renaming a
 * finished lock file over them, so a change shows as another inode, size or time, and a read sees the old file or
 * the new one, never half. Files are kept up to `maxBytes` in all, the oldest dropped first.
 */
class ParsedFiles<T> {
  private readonly kept = new Map<string, Kept<T>>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  /** `parse` of the file (null when there is none); `key` names the file and whatever else the parse depends on. */
  read(key: string, file: string, parse: (contents: Buffer | null) => T): T {
    const info = statSync(file, { throwIfNoEntry: false });
    if (!info) return parse(null);
    const kept = this.kept.get(key);
    if (kept && kept.ino === info.ino && kept.size === info.size && kept.mtimeMs === info.mtimeMs) return kept.value;
    let contents: Buffer;
    try {
      contents = readFileSync(file);
    } catch (error) {
      if (codeOf(error) === 'ENOENT') return parse(null);
      throw error;
    }
    // kept under the time and size seen before the read: a change since then is only read again
    const value = parse(contents);
    this.drop(key);
    if (info.size > this.maxBytes) return value;
    this.kept.set(key, { ino: info.ino, size: info.size, mtimeMs: info.mtimeMs, value });
    this.bytes += info.size;
    while (this.bytes > this.maxBytes) this.drop(this.kept.keys().next().value!);
    return value;
  }

  private drop(key: string): void {
    const kept = this.kept.get(key);
    if (!kept) return;
    this.kept.delete(key);
    this.bytes -= kept.size;
  }
}

const configs = new ParsedFiles<ObjectFormat | null>(4 * 1024 * 1024);
const packedFiles = new ParsedFiles<Map<string, string> | null>(32 * 1024 * 1024);

function parseObjectFormat(file: Buffer | null): ObjectFormat | null {
  if (!file) return null;
  const config = file.toString('utf8');
  if (/^\s*refstorage\s*=/im.test(config)) return null;
  const values = [...config.matchAll(/^\s*objectformat\s*=\s*(.*?)\s*$/gim)].map((m) => m[1]);
  if (values.length === 0) return 'sha1';
  return values.length === 1 && (values[0] === 'sha1' || values[0] === 'sha256') ? values[0] : null;
}

/** The repository's object format, or null when its configuration is missing or not plain enough to read here. */
export function readObjectFormat(dir: string): ObjectFormat | null {
  try {
    return configs.read(dir, path.join(dir, 'config'), parseObjectFormat);
  } catch {
    return null;
  }
}

/** A loose ref file: an id, a symbolic ref's target, no such ref, or something only git reads. */
type Loose = { oid: string } | { target: string } | 'absent' | 'unreadable';

const looseId = {
  40: /^([0-9a-fA-F]{40})(?:[ \t\n\r\0]|$)/,
  64: /^([0-9a-fA-F]{64})(?:[ \t\n\r\0]|$)/,
};
/** Git's `ref:` line: the target after any white space, trailing white space dropped. */
const symbolicRef = /^ref:[ \t\n\r\v\f]*(.*?)[ \t\n\r\v\f]*$/s;
const packedLine = { 40: /^([0-9a-f]{40}) (refs\/.*)$/, 64: /^([0-9a-f]{64}) (refs\/.*)$/ };
const peeledLine = { 40: /^\^[0-9a-f]{40}$/, 64: /^\^[0-9a-f]{64}$/ };
const fullId = { 40: /^[0-9a-fA-F]{40}$/, 64: /^[0-9a-fA-F]{64}$/ };
type HexLength = 40 | 64;
const hexLengths: Record<ObjectFormat, HexLength> = { sha1: 40, sha256: 64 };
/** More than a symbolic ref of any sane name: a longer file is git's to read. */
const looseReadLimit = 512;

/**
 * One loose ref, without following a symbolic link: what git's loose-ref reader makes of it (an id, anything
 * after it past a space ignored; or `ref: <target>` with a target under refs/ that git would accept). Links,
 * other targets and broken contents are 'unreadable': git itself decides about those. No file, or a directory,
 * is 'absent'.
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
  const start = Buffer.allocUnsafe(looseReadLimit);
  let length: number;
  try {
    length = readSync(fd, start, 0, start.length, 0);
  } catch (error) {
    if (codeOf(error) === 'EISDIR') return 'absent';
    throw error;
  } finally {
    closeSync(fd);
  }
  const id = looseId[hexLength].exec(start.toString('latin1', 0, length));
  if (id) return { oid: id[1].toLowerCase() };
  const target = length < looseReadLimit ? symbolicRef.exec(start.toString('utf8', 0, length))?.[1] : undefined;
  return target?.startsWith('refs/') && !target.includes('\uFFFD') && isValidRefName(target) ? { target } : 'unreadable';
}

/** The named loose branches, or null if one of them is for git to read. */
function readWantedLoose(dir: string, hexLength: HexLength, names: string[]): Map<string, string> | null {
  const found = new Map<string, string>();
  for (const name of names) {
    const loose = readLoose(path.join(dir, 'refs', 'heads', name), hexLength);
    if (loose === 'absent') continue;
    if (loose === 'unreadable' || 'target' in loose) return null;
    found.set(name, loose.oid);
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
      if (loose === 'absent') continue;
      if (loose === 'unreadable' || 'target' in loose) return false;
      found.set(name, loose.oid);
    }
    return true;
  };
  return walk('') ? found : null;
}

/**
 * packed-refs as full ref names to ids, in the file's sorted order (peeled `^` lines skipped), or null when git
 * might read it differently: no `sorted` trait, no final newline, replace refs, a malformed or repeated line, a
 * name git would refuse.
 */
function parsePacked(file: Buffer | null, hexLength: HexLength): Map<string, string> | null {
  const refs = new Map<string, string>();
  if (!file || file.length === 0) return refs;
  const headerEnd = file.indexOf(0x0a);
  const header = file.toString('latin1', 0, headerEnd);
  if (!header.startsWith('# pack-refs with:') || !header.split(' ').includes('sorted') || file[file.length - 1] !== 0x0a) return null;
  if (file.includes(' refs/replace/')) return null;
  const lines = file.toString('utf8', headerEnd + 1).split('\n');
  lines.pop();
  for (const line of lines) {
    if (peeledLine[hexLength].test(line)) continue;
    const match = packedLine[hexLength].exec(line);
    if (!match) return null;
    const [, oid, ref] = match;
    if (refs.has(ref) || ref.includes('\uFFFD') || !isValidRefName(ref)) return null;
    refs.set(ref, oid);
  }
  return refs;
}

/** The repository's packed-refs (see `parsePacked`), parsed again only when the file changed. */
function readPacked(dir: string, hexLength: HexLength): Map<string, string> | null {
  return packedFiles.read(`${hexLength} ${dir}`, path.join(dir, 'packed-refs'), (file) => parsePacked(file, hexLength));
}

/** The packed refs of a namespace (all, or the wanted names), by their names within it. */
function packedIn(packed: Map<string, string>, namespace: Namespace, wanted: Set<string> | null): Map<string, string> {
  const prefix = `refs/${namespace}/`;
  const found = new Map<string, string>();
  if (wanted) {
    for (const name of wanted) {
      const oid = packed.get(prefix + name);
      if (oid) found.set(name, oid);
    }
    return found;
  }
  for (const [ref, oid] of packed) if (ref.startsWith(prefix)) found.set(ref.slice(prefix.length), oid);
  return found;
}

/** Replacement objects change what an id reads as; git alone applies them. */
function hasReplaceRefs(dir: string): boolean {
  const replace = path.join(dir, 'refs', 'replace');
  // almost no repository has the directory: a stat that finds nothing is cheaper than a listing that fails
  if (!statSync(replace, { throwIfNoEntry: false })) return false;
  try {
    return readdirSync(replace).length > 0;
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
  const hexLength = hexLengths[format];
  const wanted = names ? [...new Set(names)].filter((name) => isValidRefName(`refs/heads/${name}`)) : null;
  const loose = wanted ? readWantedLoose(dir, hexLength, wanted) : listLoose(dir, hexLength);
  if (!loose || hasReplaceRefs(dir)) return null;
  const packed = readPacked(dir, hexLength);
  if (!packed) return null;
  const heads = new Map([...packedIn(packed, 'heads', wanted && new Set(wanted.filter((name) => !loose.has(name)))), ...loose]);
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
  const hexLength = hexLengths[format];
  const heads = listLoose(dir, hexLength, 'heads');
  const tags = heads && listLoose(dir, hexLength, 'tags');
  const packed = tags && readPacked(dir, hexLength);
  if (!packed || hasReplaceRefs(dir)) return null;
  const refs = new Map<string, string>();
  for (const [namespace, loose] of [['heads', heads], ['tags', tags]] as const) {
    for (const [name, oid] of new Map([...packedIn(packed, namespace, null), ...loose])) refs.set(`refs/${namespace}/${name}`, oid);
  }
  return refs;
}

/** What the files say of one ref: the id it names, that there is no such ref, or that only git can tell. */
export type RefRead = { oid: string } | 'absent' | 'ask-git';

/** How many refs git reads along a chain of symbolic refs before it gives up (SYMREF_MAXDEPTH). */
const maxSymbolicReads = 5;

/** Where git's rev-parse looks for a name: a full one (`HEAD`, `refs/…`) as it is, a short one in git's order. */
function refCandidates(name: string): string[] {
  if (name === 'HEAD' || name.startsWith('refs/')) return [name];
  return [name, `refs/${name}`, `refs/tags/${name}`, `refs/heads/${name}`, `refs/remotes/${name}`, `refs/remotes/${name}/HEAD`];
}

/** One full ref name, its symbolic refs followed: the loose file, else its packed-refs line. */
function readFullRef(dir: string, hexLength: HexLength, ref: string, reads = 1): RefRead {
  if (ref !== 'HEAD' && !ref.startsWith('refs/')) return isNothingAt(path.join(dir, ref)) ? 'absent' : 'ask-git';
  const loose = readLoose(path.join(dir, ref), hexLength);
  if (loose === 'unreadable') return 'ask-git';
  if (loose === 'absent') {
    const packed = readPacked(dir, hexLength);
    if (!packed) return 'ask-git';
    const oid = packed.get(ref);
    return oid ? { oid } : 'absent';
  }
  if ('oid' in loose) return loose;
  return reads < maxSymbolicReads ? readFullRef(dir, hexLength, loose.target, reads + 1) : 'ask-git';
}

/**
 * Whether no file stands at a path outside refs/ (nothing, or a directory): other files there (config, FETCH_HEAD,
 * info/refs) are read as refs, or refused, by rules of git's own.
 */
function isNothingAt(file: string): boolean {
  try {
    const info = lstatSync(file, { throwIfNoEntry: false });
    return !info || info.isDirectory();
  } catch (error) {
    if (codeOf(error) === 'ENOTDIR') return true;
    throw error;
  }
}

/**
 * The object a ref names, read from the files ref store as `git rev-parse --verify` reads it, without starting git:
 * a full name (`refs/heads/main`, `refs/tags/v1`, `HEAD`) as it is, a short one (`main`, `tags/v1`) tried in git's
 * order, symbolic refs followed. 'ask-git' when only git can tell: replace refs, another ref store or an object
 * format not read here, a name that is an object id or not a ref name, a linked, broken or too deeply symbolic ref,
 * a file outside refs/ other than HEAD. One small file read per ref in the common case: config and packed-refs are
 * parsed again only when they change.
 */
export function readRef(dir: string, name: string): RefRead {
  const format = readObjectFormat(dir);
  if (!format || name === '@' || !isValidRefName(`refs/${name}`) || hasReplaceRefs(dir)) return 'ask-git';
  const hexLength = hexLengths[format];
  if (fullId[hexLength].test(name)) return 'ask-git';
  for (const candidate of refCandidates(name)) {
    const found = readFullRef(dir, hexLength, candidate);
    if (found !== 'absent') return found;
  }
  return 'absent';
}
