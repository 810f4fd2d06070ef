import fs from 'node:fs';
import path from 'node:path';
import git from 'isomorphic-git';
import { readRef } from './refs.js';
import { runGit } from './run.js';

export type ObjectFormat = 'sha1' | 'sha256';
export type ObjectType = 'blob' | 'tree' | 'commit' | 'tag';

export interface RawObject {
  oid: string;
  type: ObjectType;
  data: Buffer;
}

/** A git identity line: who, and when in their own time zone. */
export interface Signature {
  name: string;
  email: string;
  /** Seconds since the epoch. */
  timestamp: number;
  /** Minutes east of UTC, as the signature spells its zone (+0200 → 120). */
  offset: number;
}

export interface CommitObject {
  oid: string;
  tree: string;
  parents: string[];
  author: Signature;
  committer: Signature;
  message: string;
  /** The gpgsig header, when the commit is signed. */
  signature: string;
  /** The object without its signature: what a signature signs. */
  payload: string;
}

export interface TagObject {
  oid: string;
  object: string;
  objectType: ObjectType;
  name: string;
  tagger: Signature | null;
  message: string;
  signature: string;
}

export type EntryType = 'blob' | 'tree' | 'commit';

export interface TreeEntry {
  mode: string;
  type: EntryType;
  oid: string;
  name: string;
}

const hexLength: Record<ObjectFormat, number> = { sha1: 40, sha256: 64 };

export function isFullOid(text: string, format: ObjectFormat): boolean {
  return text.length === hexLength[format] && /^[0-9a-f]+$/.test(text);
}

export function zeroOid(format: ObjectFormat): string {
  return '0'.repeat(hexLength[format]);
}

/**
 * Gitea's IsValidRefPattern: text that can name a ref or a commit. Anything else is refused with a 4xx
 * before git sees it.
 */
export function isValidRefPattern(name: string): boolean {
  return (
    name.length > 0 &&
    !/[\x00-\x1f\x7f ~^:?*[\\]/.test(name) &&
    !name.startsWith('-') && !name.startsWith('/') && !name.endsWith('/') && !name.endsWith('.') &&
    !name.endsWith('.lock') && !name.includes('..') && !name.includes('//') && !name.includes('@{') &&
    name !== '@' && !name.includes('/.') && !name.includes('.lock/')
  );
}

function parseSignature(text: string): Signature {
  const match = /^(.*?) ?<([^>]*)> (\d+) ([+-])(\d\d)(\d\d)$/.exec(text.trim());
  if (!match) return { name: text.trim(), email: '', timestamp: 0, offset: 0 };
  const offset = (Number(match[5]) * 60 + Number(match[6])) * (match[4] === '-' ? -1 : 1);
  return { name: match[1], email: match[2], timestamp: Number(match[3]), offset };
}

/** Splits an object into its header lines (continuations folded in) and the message after the blank line. */
function splitHeaders(text: string): { headers: Array<[string, string]>; message: string; headerEnd: number } {
  const end = text.indexOf('\n\n');
  const head = end === -1 ? text : text.slice(0, end);
  const headers: Array<[string, string]> = [];
  for (const line of head.split('\n')) {
    if (line.startsWith(' ') && headers.length) headers[headers.length - 1][1] += `\n${line.slice(1)}`;
    else {
      const space = line.indexOf(' ');
      headers.push(space === -1 ? [line, ''] : [line.slice(0, space), line.slice(space + 1)]);
    }
  }
  return { headers, message: end === -1 ? '' : text.slice(end + 2), headerEnd: end };
}

export function parseCommit(oid: string, data: Buffer): CommitObject {
  const text = data.toString('utf8');
  const { headers, message } = splitHeaders(text);
  const commit: CommitObject = {
    oid, tree: '', parents: [], message, signature: '', payload: text,
    author: parseSignature(''), committer: parseSignature(''),
  };
  for (const [key, value] of headers) {
    if (key === 'tree') commit.tree = value;
    else if (key === 'parent') commit.parents.push(value);
    else if (key === 'author') commit.author = parseSignature(value);
    else if (key === 'committer') commit.committer = parseSignature(value);
    else if (key === 'gpgsig' || key === 'gpgsig-sha256') commit.signature = `${value}\n`;
  }
  if (commit.signature) {
    commit.payload = text.replace(/^gpgsig(?:-sha256)? [^\n]*\n(?: [^\n]*\n)*/m, '');
  }
  return commit;
}

const signatureStarts = ['-----BEGIN PGP SIGNATURE-----', '-----BEGIN SSH SIGNATURE-----', '-----BEGIN SIGNED MESSAGE-----'];

export function parseTag(oid: string, data: Buffer): TagObject {
  const { headers, message } = splitHeaders(data.toString('utf8'));
  const tag: TagObject = { oid, object: '', objectType: 'commit', name: '', tagger: null, message, signature: '' };
  for (const [key, value] of headers) {
    if (key === 'object') tag.object = value;
    else if (key === 'type') tag.objectType = value as ObjectType;
    else if (key === 'tag') tag.name = value;
    else if (key === 'tagger') tag.tagger = parseSignature(value);
  }
  const at = Math.max(...signatureStarts.map((start) => message.lastIndexOf(start)));
  if (at >= 0) {
    tag.signature = message.slice(at);
    tag.message = message.slice(0, at);
  }
  return tag;
}

const entryTypes: Record<string, EntryType> = { '40000': 'tree', '160000': 'commit' };

export function parseTree(data: Buffer, format: ObjectFormat): TreeEntry[] {
  const oidBytes = hexLength[format] / 2;
  const entries: TreeEntry[] = [];
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    const nul = data.indexOf(0, space);
    const mode = data.subarray(at, space).toString('latin1');
    const name = data.subarray(space + 1, nul).toString('utf8');
    const oid = data.subarray(nul + 1, nul + 1 + oidBytes).toString('hex');
    entries.push({ mode: mode.padStart(6, '0'), type: entryTypes[mode] ?? 'blob', oid, name });
    at = nul + 1 + oidBytes;
  }
  return entries;
}

/**
 * isomorphic-git reads a whole packfile into memory to take one object out of it: past this much packed data a
 * `git cat-file` process is the cheaper read.
 */
const inProcessPackLimit = 8 * 1024 * 1024;

/** By pack directory: its modification time when its packs were measured, and whether they were within the limit. */
const packSizes = new Map<string, { mtimeMs: number; small: boolean }>();
const packSizesKept = 4096;

function packsAreSmall(packDir: string): boolean {
  const mtimeMs = fs.statSync(packDir, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const known = packSizes.get(packDir);
  if (known && known.mtimeMs === mtimeMs) return known.small;
  let names: string[];
  try {
    names = fs.readdirSync(packDir);
  } catch {
    names = [];
  }
  let bytes = 0;
  for (const name of names.filter((n) => n.endsWith('.pack'))) bytes += fs.statSync(path.join(packDir, name)).size;
  const small = bytes <= inProcessPackLimit;
  if (packSizes.size >= packSizesKept) packSizes.delete(packSizes.keys().next().value!);
  packSizes.set(packDir, { mtimeMs, small });
  return small;
}

/** What an object id peels to (objects never change, whichever repository holds them), most recent last. */
const peeledObjects = new Map<string, string>();
const peeledLimit = 10_000;

function rememberPeeled(key: string, peeled: string): void {
  if (peeledObjects.size >= peeledLimit) peeledObjects.delete(peeledObjects.keys().next().value!);
  peeledObjects.set(key, peeled);
}

/**
 * Reads objects of one bare repository. Small SHA-1 repositories are read in-process with isomorphic-git (no
 * process start for a ref, a commit, a tree or a blob); SHA-256 ones, which isomorphic-git cannot read, and
 * large ones through `git cat-file --batch`, one process for any number of objects. One instance per request:
 * it keeps isomorphic-git's pack cache.
 */
export class ObjectReader {
  private readonly cache = {};
  private inProcess: Promise<boolean> | null = null;

  constructor(
    readonly dir: string,
    readonly format: ObjectFormat,
  ) {}

  /**
   * Synchronous on purpose, as the ref reads are: a stat costs less than a round trip through the thread pool. The
   * answer is kept per pack directory while its modification time stays (packs are immutable and named by content).
   */
  private readsInProcess(): Promise<boolean> {
    this.inProcess ??= Promise.resolve(this.format === 'sha1' && packsAreSmall(path.join(this.dir, 'objects', 'pack')));
    return this.inProcess;
  }

  async read(oid: string): Promise<RawObject | null> {
    if (!isFullOid(oid, this.format)) return null;
    if (!(await this.readsInProcess())) return (await this.readMany([oid]))[0];
    try {
      const found = await git.readObject({ fs, gitdir: this.dir, oid, format: 'content', cache: this.cache });
      if (found.format !== 'content') return null;
      return { oid, type: found.type, data: Buffer.from(found.object) };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  /**
   * Loads what reading `oid` in-process takes (its pack), when this repository is read in-process; nothing otherwise.
   * Never fails: a read that needs the object reports what went wrong.
   */
  preload(oid: string): Promise<void> {
    return this.readsInProcess().then((inProcess) => (inProcess ? this.read(oid) : null)).then(() => undefined, () => undefined);
  }

  /** Several objects at once, in order (null for a missing one). */
  async readMany(oids: string[]): Promise<Array<RawObject | null>> {
    if (oids.length === 0) return [];
    if (await this.readsInProcess()) return Promise.all(oids.map((oid) => this.read(oid)));
    const valid = oids.filter((oid) => isFullOid(oid, this.format));
    const batch = valid.length ? (await runGit(['cat-file', '--batch'], { cwd: this.dir, input: `${valid.join('\n')}\n` })).stdout : Buffer.alloc(0);
    const found = new Map<string, RawObject>();
    let at = 0;
    while (at < batch.length) {
      const newline = batch.indexOf(0x0a, at);
      const [oid, type, size] = batch.subarray(at, newline).toString('utf8').split(' ');
      at = newline + 1;
      if (size === undefined) continue;
      found.set(oid, { oid, type: type as ObjectType, data: batch.subarray(at, at + Number(size)) });
      at += Number(size) + 1;
    }
    return oids.map((oid) => found.get(oid) ?? null);
  }

  async readCommit(oid: string): Promise<CommitObject | null> {
    const found = await this.read(oid);
    return found?.type === 'commit' ? parseCommit(oid, found.data) : null;
  }

  /** Commits by id, in order; ids that name no commit are left out. */
  async readCommits(oids: string[]): Promise<CommitObject[]> {
    const found = await this.readMany(oids);
    return found.filter((o): o is RawObject => o?.type === 'commit').map((o) => parseCommit(o.oid, o.data));
  }

  async readTag(oid: string): Promise<TagObject | null> {
    const found = await this.read(oid);
    return found?.type === 'tag' ? parseTag(oid, found.data) : null;
  }

  async readTree(oid: string): Promise<TreeEntry[] | null> {
    const found = await this.read(oid);
    return found?.type === 'tree' ? parseTree(found.data, this.format) : null;
  }

  /** Follows annotated tags down to the object they name. */
  async peel(oid: string): Promise<RawObject | null> {
    let found = await this.read(oid);
    for (let depth = 0; found?.type === 'tag' && depth < 10; depth++) found = await this.read(parseTag(found.oid, found.data).object);
    return found;
  }

  /** The commit a commit-ish names (a commit, or tags pointing at one). */
  async peelToCommit(oid: string): Promise<CommitObject | null> {
    const found = await this.peel(oid);
    return found?.type === 'commit' ? parseCommit(found.oid, found.data) : null;
  }

  /**
   * The object id of a ref: a full name (`refs/heads/main`) or a short one looked up in git's order; null if none.
   * Read from the ref files, or answered by git where only git can tell (see `readRef`).
   */
  async refTarget(ref: string): Promise<string | null> {
    if (!isValidRefPattern(ref)) return null;
    const found = readRef(this.dir, ref);
    if (found === 'ask-git') return verifyRev(this.dir, ref);
    return found === 'absent' ? null : found.oid;
  }

  /**
   * `rev` resolved without starting git where that is sure (a full id, a ref read from its files, an id abbreviated
   * in a SHA-1 repository read in-process), or 'ask-git'.
   */
  private async resolveHere(rev: string): Promise<string | null | 'ask-git'> {
    if (isFullOid(rev, this.format)) return (await this.read(rev)) ? rev : null;
    if (this.format !== 'sha1' || !isValidRefPattern(rev)) return 'ask-git';
    const found = readRef(this.dir, rev);
    if (found !== 'absent') return found === 'ask-git' ? found : found.oid;
    if (!/^[0-9a-f]{4,39}$/.test(rev)) return null;
    try {
      return await git.expandOid({ fs, gitdir: this.dir, oid: rev, cache: this.cache });
    } catch {
      return null;
    }
  }

  /**
   * What `git rev-parse --verify` answers for `rev` (full or abbreviated ids, short or full ref names in git's
   * order: exact, refs/, tags, heads, remotes), or null when nothing matches.
   */
  async resolve(rev: string): Promise<string | null> {
    if (!rev || rev.startsWith('-') || rev.includes('\u0000')) return null;
    const found = await this.resolveHere(rev);
    return found === 'ask-git' ? verifyRev(this.dir, rev) : found;
  }

  /**
   * What `git rev-parse --verify rev^{commit}` (or `^{tree}`) answers, or null. A ref or an object id is resolved and
   * peeled in-process where the repository is read so: spawning git from a large server process blocks its event loop.
   */
  async resolvePeeled(rev: string, type: 'commit' | 'tree'): Promise<string | null> {
    const oid = (await this.readsInProcess()) ? await this.resolveHere(rev) : 'ask-git';
    if (oid === 'ask-git') return verifyRev(this.dir, `${rev}^{${type}}`);
    if (!oid) return null;
    const key = `${type} ${oid}`;
    const known = peeledObjects.get(key);
    if (known) return known;
    const found = await this.peel(oid);
    const peeled = found?.type === type ? found.oid : type === 'tree' && found?.type === 'commit' ? parseCommit(found.oid, found.data).tree : null;
    if (peeled) rememberPeeled(key, peeled);
    return peeled;
  }
}

/** `git rev-parse --verify` of one revision (`main`, `v1^{commit}`, `HEAD~2`): the object id it names, or null. */
export async function verifyRev(dir: string, rev: string): Promise<string | null> {
  const result = await runGit(['rev-parse', '--verify', '--quiet', '--end-of-options', rev], { cwd: dir });
  return result.code === 0 ? result.stdout.toString('utf8').trim() : null;
}

function isNotFound(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === 'NotFoundError' || code === 'ENOENT';
}
