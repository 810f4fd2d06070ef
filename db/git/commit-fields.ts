import type { RawObject } from './objects.js';
import { readBranchRefs } from './refs.js';
import { runGit } from './run.js';

/** A branch head as git has it, with what a PayloadCommit shows of its commit. */
export interface HeadCommit {
  branch: string;
  sha: string;
  authorName: string;
  authorEmail: string;
  /** RFC 3339 with the author's offset, as git wrote it. */
  authorDate: string;
  committerName: string;
  committerEmail: string;
  committerDate: string;
  message: string;
}

const headFields = [
  '%(refname)', '%(objectname)', '%(authorname)', '%(authoremail:trim)', '%(authordate:iso-strict)',
  '%(committername)', '%(committeremail:trim)', '%(committerdate:iso-strict)', '%(contents)',
];

/** Splits for-each-ref output whose records are NUL-terminated fields (git adds a newline after each record). */
export function splitRecords(output: Buffer, width: number): string[][] {
  const fields = output.toString('utf8').split('\0');
  const rows: string[][] = [];
  for (let i = 0; i + width <= fields.length; i += width) {
    const row = fields.slice(i, i + width);
    row[0] = row[0].replace(/^\n/, '');
    rows.push(row);
  }
  return rows;
}

/** What a head shows of its commit: everything but the branch and the id, which never changes for an id. */
export type CommitFields = Omit<HeadCommit, 'branch' | 'sha'>;

/**
 * Commit fields by commit id, least recently used first out. Bounded in entries and in stored characters; a
 * commit with a longer message than `maxMessageChars` is not kept (its full message is what the API shows).
 * One per process, handed to the `GitStore` of a process that reads heads repeatedly (the web process).
 */
export class CommitFieldsCache {
  private readonly entries = new Map<string, CommitFields>();
  private chars = 0;

  constructor(
    readonly maxEntries = 5_000,
    readonly maxChars = 4_000_000,
    readonly maxMessageChars = 16_384,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get(oid: string): CommitFields | undefined {
    const fields = this.entries.get(oid);
    if (fields) {
      this.entries.delete(oid);
      this.entries.set(oid, fields);
    }
    return fields;
  }

  set(oid: string, fields: CommitFields): void {
    if (fields.message.length > this.maxMessageChars || this.entries.has(oid)) return;
    this.entries.set(oid, fields);
    this.chars += charsOf(fields);
    for (const [oldest, old] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.chars <= this.maxChars) break;
      this.entries.delete(oldest);
      this.chars -= charsOf(old);
    }
  }
}

const charsOf = (f: CommitFields): number =>
  f.authorName.length + f.authorEmail.length + f.authorDate.length + f.committerName.length + f.committerEmail.length + f.committerDate.length + f.message.length;

/** ref-filter's find_wholine: where the value of the first `who` header line starts, or -1. */
function findPersonLine(text: string, who: string): number {
  for (let at = 0; at < text.length; ) {
    if (text.startsWith(`${who} `, at)) return at + who.length + 1;
    const eol = text.indexOf('\n', at);
    if (eol === -1 || text[eol + 1] === '\n') return -1;
    at = eol + 1;
  }
  return -1;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');
/** A signature's time as git writes it: seconds since the epoch and a ±hhmm zone, then the end of the line. */
const gitStamp = /(\d{1,15}) ([+-])(\d\d)(\d\d)(?:\n|$)/;
const commitStart = {
  40: /^tree [0-9a-f]{40}\n(?:parent [0-9a-f]{40}\n)*(?!parent )/,
  64: /^tree [0-9a-f]{64}\n(?:parent [0-9a-f]{64}\n)*(?!parent )/,
};

/**
 * A person header as for-each-ref's %(whoname), %(whoemail:trim) and %(whodate:iso-strict) show it, or null for
 * a date only git can be trusted to print (an unusual zone, a time outside years 1970 to 9999).
 */
function personOf(text: string, who: string): { name: string; email: string; date: string } | null {
  const at = findPersonLine(text, who);
  if (at === -1) return { name: '', email: '', date: '' };
  const lineEnd = text.indexOf('\n', at);
  const nameEnd = text.indexOf(' <', at);
  const name = nameEnd !== -1 && (lineEnd === -1 || nameEnd < lineEnd) ? text.slice(at, nameEnd) : '';
  const open = text.indexOf('<', at);
  const close = open === -1 ? -1 : text.indexOf('>', open + 1);
  const email = close === -1 ? '' : text.slice(open + 1, close);
  const dateAt = text.indexOf('> ', at);
  if (dateAt === -1) return { name, email, date: '' };
  const stamp = new RegExp(gitStamp.source, 'y');
  stamp.lastIndex = dateAt + 2;
  const [, seconds, zoneSign, hh, mm] = stamp.exec(text) ?? [];
  if (seconds === undefined || Number(mm) > 59) return null;
  const [hours, minutes] = [Number(hh), Number(mm)];
  const local = Number(seconds) + (zoneSign === '-' ? -1 : 1) * (hours * 60 + minutes) * 60;
  if (local < 0 || local >= 253_402_300_800) return null;
  const t = new Date(local * 1000);
  const sign = zoneSign === '-' && hours + minutes > 0 ? '-' : '+';
  const date = `${pad(t.getUTCFullYear(), 4)}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())}T${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}:${pad(t.getUTCSeconds())}${sign}${pad(hours)}:${pad(minutes)}`;
  return { name, email, date };
}

/**
 * A commit object's fields exactly as `git for-each-ref` prints them for a ref to it, or null when git should
 * be asked (an object git may parse differently: a NUL byte, a malformed tree or parent line, an odd date).
 */
function commitFieldsOf(data: Buffer, hexLength: 40 | 64): CommitFields | null {
  if (data.includes(0)) return null;
  const text = data.toString('utf8');
  if (!commitStart[hexLength].test(text)) return null;
  const author = personOf(text, 'author');
  const committer = personOf(text, 'committer');
  if (!author || !committer) return null;
  let at = 0;
  while (at < text.length && text[at] !== '\n') {
    const eol = text.indexOf('\n', at);
    at = eol === -1 ? text.length : eol + 1;
  }
  while (text[at] === '\n') at++;
  return {
    authorName: author.name, authorEmail: author.email, authorDate: author.date,
    committerName: committer.name, committerEmail: committer.email, committerDate: committer.date,
    message: text.slice(at),
  };
}

/** Reads objects by id, in order (null for a missing one): the repository's object reader. */
export type ReadObjects = (oids: string[]) => Promise<Array<RawObject | null>>;

/** Commits by id, read in-process or in one `git cat-file --batch` (as `read` does); null if one of them is missing, no commit, or for git to show. */
async function readCommitFields(read: ReadObjects, oids: string[], hexLength: 40 | 64): Promise<Map<string, CommitFields> | null> {
  const found = new Map<string, CommitFields>();
  for (const object of await read(oids)) {
    if (object?.type !== 'commit') return null;
    const fields = commitFieldsOf(object.data, hexLength);
    if (!fields) return null;
    found.set(object.oid, fields);
  }
  return found;
}

/** The old way, and the one for anything the in-process read leaves to git: one for-each-ref. */
async function listHeadsWithGit(dir: string, names?: string[]): Promise<HeadCommit[]> {
  const patterns = names ? names.map((n) => `refs/heads/${n}`) : ['refs/heads/'];
  const format = `${headFields.join('%00')}%00`;
  const heads: HeadCommit[] = [];
  for (let i = 0; i < patterns.length; i += 500) {
    const output = await runGit(['for-each-ref', `--format=${format}`, '--', ...patterns.slice(i, i + 500)], { cwd: dir });
    if (output.code !== 0) throw new Error(`git for-each-ref failed: ${output.stderr.trim()}`);
    for (const [ref, sha, authorName, authorEmail, authorDate, committerName, committerEmail, committerDate, message] of splitRecords(output.stdout, headFields.length)) {
      heads.push({ branch: ref.slice('refs/heads/'.length), sha, authorName, authorEmail, authorDate, committerName, committerEmail, committerDate, message });
    }
  }
  if (!names) return heads;
  const wanted = new Set(names);
  return heads.filter((head) => wanted.has(head.branch));
}

/**
 * Branch heads with their commits as `git for-each-ref` shows them: all of them, or only the named branches (a
 * name that is not a branch is left out), sorted by name. Refs are read from disk at the time of the call; the
 * commits behind them come from `commits` when it has them, the rest through `read` (in-process for small repositories).
 * Anything unusual (symbolic refs, replace refs, odd objects) is left to `git for-each-ref`.
 */
export async function readHeads(dir: string, read: ReadObjects, names?: string[], commits?: CommitFieldsCache): Promise<HeadCommit[]> {
  if (names && names.length === 0) return [];
  const refs = readBranchRefs(dir, names);
  if (!refs) return listHeadsWithGit(dir, names);
  const known = new Map<string, CommitFields>();
  const missing = new Set<string>();
  for (const { oid } of refs.heads) {
    const cached = commits?.get(oid);
    if (cached) known.set(oid, cached);
    else missing.add(oid);
  }
  if (missing.size > 0) {
    const found = await readCommitFields(read, [...missing], refs.format === 'sha1' ? 40 : 64);
    if (!found) return listHeadsWithGit(dir, names);
    for (const [oid, fields] of found) {
      known.set(oid, fields);
      commits?.set(oid, fields);
    }
  }
  return refs.heads.map(({ name, oid }) => ({ branch: name, sha: oid, ...known.get(oid)! }));
}

/**
 * A commit as a would-be head of `branch`, with the fields readHeads gives a real head: from `commits` or one
 * read through `read`, else from `git log` (whose format adds one newline after the message).
 */
export async function readCommitAsHead(dir: string, read: ReadObjects, branch: string, commit: string, commits?: CommitFieldsCache): Promise<HeadCommit> {
  const known = commits?.get(commit) ?? (await readCommitFields(read, [commit], commit.length === 64 ? 64 : 40))?.get(commit);
  if (known) {
    commits?.set(commit, known);
    return { branch, sha: commit, ...known };
  }
  const format = ['%H', '%an', '%ae', '%aI', '%cn', '%ce', '%cI', '%B'].join('%x00');
  const output = await runGit(['log', '-1', `--format=${format}`, commit, '--'], { cwd: dir });
  if (output.code !== 0) throw new Error(`git log failed (${output.code}): ${output.stderr.trim()}`);
  const [sha, authorName, authorEmail, authorDate, committerName, committerEmail, committerDate, message] = output.stdout.toString('utf8').split('\0');
  return { branch, sha, authorName, authorEmail, authorDate, committerName, committerEmail, committerDate, message: message.replace(/\n$/, '') };
}
