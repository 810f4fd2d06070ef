import { randomUUID } from 'node:crypto';
import type { BranchSyncPayload } from '../../../jobs/catalogue.js';
import { enqueue } from '../../../jobs/queue.js';
import type { Queryable, Tx } from '../../data-source.js';
import { conflict, forbidden, HttpError, isUniqueViolation, notFound } from '../../errors.js';
import { emit } from '../../events.js';
import type { GitStore } from '../../git-store.js';
import { readBranchRefs } from '../../git/refs.js';
import { gitOk, runGit } from '../../git/run.js';
import { assertNotArchived, effectiveProtection, isZeroSha, listProtections, type RefUpdate } from './branch-protection.js';
import { assertValidBranchName } from '../repos/repos.js';
import type { RepoRow } from '../repos/repo-row.js';
import type { UserRow } from '../users/user-row.js';

/** A row of the `branch` table: the database's copy of one branch head, kept in step by pushes. */
export interface BranchRow {
  id: number;
  repo_id: number;
  name: string;
  commit_id: string;
  commit_message: string;
  commit_time: Date;
  pusher_id: number | null;
  created: Date;
  updated: Date;
}

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
function records(output: Buffer, width: number): string[][] {
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
 * One per process, handed in by whoever reads heads repeatedly (the web process's branch routes).
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

/** Commits by id in one `git cat-file --batch`; null if one of them is missing, no commit, or for git to show. */
async function readCommitFields(dir: string, oids: string[], hexLength: 40 | 64): Promise<Map<string, CommitFields> | null> {
  const output = await runGit(['cat-file', '--batch'], { cwd: dir, input: `${oids.join('\n')}\n` });
  if (output.code !== 0) return null;
  const batch = output.stdout;
  const found = new Map<string, CommitFields>();
  for (let at = 0; at < batch.length; ) {
    const newline = batch.indexOf(0x0a, at);
    if (newline === -1) return null;
    const [oid, type, size] = batch.subarray(at, newline).toString('latin1').split(' ');
    if (type !== 'commit' || size === undefined) return null;
    at = newline + 1;
    const fields = commitFieldsOf(batch.subarray(at, at + Number(size)), hexLength);
    if (!fields) return null;
    found.set(oid, fields);
    at += Number(size) + 1;
  }
  return oids.every((oid) => found.has(oid)) ? found : null;
}

/** The old way, and the one for anything the in-process read leaves to git: one for-each-ref. */
async function listHeadsWithGit(dir: string, names?: string[]): Promise<HeadCommit[]> {
  const patterns = names ? names.map((n) => `refs/heads/${n}`) : ['refs/heads/'];
  const format = `${headFields.join('%00')}%00`;
  const heads: HeadCommit[] = [];
  for (let i = 0; i < patterns.length; i += 500) {
    const output = await runGit(['for-each-ref', `--format=${format}`, '--', ...patterns.slice(i, i + 500)], { cwd: dir });
    if (output.code !== 0) throw new Error(`git for-each-ref failed: ${output.stderr.trim()}`);
    for (const [ref, sha, authorName, authorEmail, authorDate, committerName, committerEmail, committerDate, message] of records(output.stdout, headFields.length)) {
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
 * commits behind them come from `commits` when it has them, the rest from one `git cat-file --batch`.
 * Anything unusual (symbolic refs, replace refs, odd objects) is left to `git for-each-ref`.
 */
export async function readHeads(dir: string, names?: string[], commits?: CommitFieldsCache): Promise<HeadCommit[]> {
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
    const read = await readCommitFields(dir, [...missing], refs.format === 'sha1' ? 40 : 64);
    if (!read) return listHeadsWithGit(dir, names);
    for (const [oid, fields] of read) {
      known.set(oid, fields);
      commits?.set(oid, fields);
    }
  }
  return refs.heads.map(({ name, oid }) => ({ branch: name, sha: oid, ...known.get(oid)! }));
}

interface TagHead {
  tag: string;
  commit: string;
  /** The tag message's first line and the rest, for annotated tags. */
  title: string;
  note: string;
  created: string;
}

/** Tags that point (directly or through one annotated tag) at a commit. */
async function readTags(dir: string, names: string[]): Promise<TagHead[]> {
  if (names.length === 0) return [];
  const fields = ['%(refname)', '%(objecttype)', '%(objectname)', '%(*objecttype)', '%(*objectname)', '%(contents)', '%(creatordate:iso-strict)'];
  const output = await runGit(['for-each-ref', `--format=${fields.join('%00')}%00`, '--', ...names.map((n) => `refs/tags/${n}`)], { cwd: dir });
  if (output.code !== 0) throw new Error(`git for-each-ref failed: ${output.stderr.trim()}`);
  const wanted = new Set(names);
  const tags: TagHead[] = [];
  for (const [ref, type, sha, peeledType, peeled, contents, created] of records(output.stdout, fields.length)) {
    const tag = ref.slice('refs/tags/'.length);
    if (!wanted.has(tag)) continue;
    const annotated = type === 'tag';
    const commit = annotated ? (peeledType === 'commit' ? peeled : '') : type === 'commit' ? sha : '';
    if (!commit) continue;
    const [title, ...rest] = annotated ? contents.replace(/\n+$/, '').split('\n') : [''];
    tags.push({ tag, commit, title, note: rest.join('\n').replace(/^\n+/, ''), created });
  }
  return tags;
}

async function countCommits(dir: string, range: string[]): Promise<number> {
  const result = await runGit(['rev-list', '--count', ...range, '--'], { cwd: dir });
  return result.code === 0 ? Number(result.stdout.toString().trim()) : 0;
}

const summaryOf = (message: string): string => message.split('\n', 1)[0].trim();

/** Inserts or refreshes branch rows from git heads; a row already at the same commit is left alone. */
async function upsertBranches(tx: Tx, repoId: number, pusherId: number | null, heads: HeadCommit[]): Promise<void> {
  if (heads.length === 0) return;
  await tx.query(
    `INSERT INTO branch (repo_id, name, commit_id, commit_message, commit_time, pusher_id)
     SELECT $1, h.name, h.commit_id, h.commit_message, h.commit_time, $2
     FROM unnest($3::text[], $4::text[], $5::text[], $6::timestamptz[]) AS h(name, commit_id, commit_message, commit_time)
     ON CONFLICT (repo_id, name) DO UPDATE SET commit_id = EXCLUDED.commit_id, commit_message = EXCLUDED.commit_message,
       commit_time = EXCLUDED.commit_time, pusher_id = EXCLUDED.pusher_id, updated = now()
     WHERE branch.commit_id <> EXCLUDED.commit_id`,
    [
      repoId, pusherId, heads.map((h) => h.branch), heads.map((h) => h.sha), heads.map((h) => summaryOf(h.message)),
      heads.map((h) => h.committerDate),
    ],
  );
}

/** Makes the branch table a copy of git's heads: every branch gets a row, rows of vanished branches go. */
export async function syncAllBranches(tx: Tx, dir: string, repoId: number, pusherId: number | null): Promise<number> {
  const heads = await readHeads(dir);
  await tx.query('DELETE FROM branch WHERE repo_id = $1 AND NOT (name = ANY($2::text[]))', [repoId, heads.map((h) => h.branch)]);
  await upsertBranches(tx, repoId, pusherId, heads);
  return heads.length;
}

/** Every tag of a repository that arrived without a push (a fork, an adopted directory) becomes a tag release. */
export async function syncAllTags(tx: Tx, dir: string, repoId: number, pusherId: number | null): Promise<void> {
  const listed = await runGit(['for-each-ref', '--format=%(refname:strip=2)', 'refs/tags/'], { cwd: dir });
  if (listed.code !== 0) throw new Error(`git for-each-ref failed: ${listed.stderr.trim()}`);
  await syncTags(tx, dir, repoId, pusherId, listed.stdout.toString('utf8').split('\n').filter(Boolean));
}

export async function countBranches(db: Queryable, repoId: number): Promise<number> {
  const [{ count }] = await db.query<{ count: number }>('SELECT count(*)::int AS count FROM branch WHERE repo_id = $1', [repoId]);
  return count;
}

export interface BranchPage {
  rows: BranchRow[];
  /** How many rows the repository has. */
  total: number;
  /** Whether the repository has protection rules at all (a page past the end does not tell). */
  protectedAny: boolean;
}

/**
 * One page of branch rows, newest commit first (Gitea's order), with the number of rows and whether any
 * protection rule exists: one query, and a second one only for a page past the end.
 */
export async function listBranchPage(db: Queryable, repoId: number, page: { limit: number; offset: number }): Promise<BranchPage> {
  const rows = await db.query<BranchRow & { total: number; protected_any: boolean }>(
    `SELECT b.*, count(*) OVER ()::int AS total, EXISTS (SELECT 1 FROM protected_branch WHERE repo_id = $1) AS protected_any
     FROM branch b WHERE b.repo_id = $1 ORDER BY b.commit_time DESC, b.name LIMIT $2 OFFSET $3`,
    [repoId, page.limit, page.offset],
  );
  if (rows.length === 0) return { rows: [], total: page.offset > 0 ? await countBranches(db, repoId) : 0, protectedAny: true };
  return {
    rows: rows.map(({ total: _total, protected_any: _protected, ...row }) => row),
    total: rows[0].total,
    protectedAny: rows[0].protected_any,
  };
}

/** The repository row, locked: branch syncs of one repository queue on it, one after the other. */
async function lockRepo(tx: Tx, repoId: number): Promise<RepoRow | null> {
  const [repo] = await tx.query<RepoRow>('SELECT * FROM repository WHERE id = $1 FOR UPDATE', [repoId]);
  return repo ?? null;
}

/**
 * A repository that is not empty but has no branch rows (made before branches were recorded, or whose first
 * sync has not run yet) gets them now, as Gitea does when its branch list is asked for.
 */
export async function ensureBranchRows(tx: Tx, git: GitStore, repoId: number, doerId: number | null): Promise<void> {
  const repo = await lockRepo(tx, repoId);
  if (!repo || repo.is_empty || (await countBranches(tx, repoId)) > 0) return;
  await syncAllBranches(tx, git.pathOf(repo.owner_name, repo.name), repoId, doerId);
}

/** After a push is accepted: one branch-sync job carries its ref updates, committed with the caller's transaction. */
export async function recordPush(tx: Tx, repo: RepoRow, pusher: UserRow, updates: RefUpdate[]): Promise<void> {
  if (updates.length === 0) return;
  await enqueue(tx, 'branch-sync', { pushId: randomUUID(), repoId: repo.id, pusherId: pusher.id, updates });
}

/**
 * Brings the database in line with a push (the branch-sync job). Rows follow what git holds now, not the
 * payload, so jobs of successive pushes may run in any order; the repository row lock serializes them.
 * A repository without branch rows gets all of its branches; otherwise only the pushed ones change. Tags
 * become tag releases. The first push into an empty repository ends its emptiness and, when the default
 * branch was not pushed, makes the first pushed branch the default (HEAD follows). The push events are
 * emitted once per push: a second run of the same job changes nothing.
 */
export async function syncPush(tx: Tx, git: GitStore, push: BranchSyncPayload): Promise<'done' | 'skipped'> {
  const repo = await lockRepo(tx, push.repoId);
  if (!repo) return 'skipped';
  const dir = git.pathOf(repo.owner_name, repo.name);
  const branches = push.updates.filter((u) => u.ref.startsWith('refs/heads/')).map((u) => u.ref.slice('refs/heads/'.length));
  const tags = push.updates.filter((u) => u.ref.startsWith('refs/tags/')).map((u) => u.ref.slice('refs/tags/'.length));

  if ((await countBranches(tx, repo.id)) === 0) await syncAllBranches(tx, dir, repo.id, push.pusherId);
  else {
    const heads = await readHeads(dir, branches);
    const gone = branches.filter((name) => !heads.some((h) => h.branch === name));
    await tx.query('DELETE FROM branch WHERE repo_id = $1 AND name = ANY($2::text[])', [repo.id, gone]);
    await upsertBranches(tx, repo.id, push.pusherId, heads);
  }
  await syncTags(tx, dir, repo.id, push.pusherId, tags);
  if (repo.is_empty && (await countBranches(tx, repo.id)) > 0) await settleFirstPush(tx, dir, repo, branches);

  const [first] = await tx.query('INSERT INTO synced_push (push_id, repo_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING push_id', [push.pushId, repo.id]);
  if (first) {
    for (const update of push.updates) {
      if (!update.ref.startsWith('refs/heads/') && !update.ref.startsWith('refs/tags/')) continue;
      const commits = !update.ref.startsWith('refs/heads/') || isZeroSha(update.newSha)
        ? 0
        : await countCommits(dir, isZeroSha(update.oldSha) ? [update.newSha] : [update.newSha, `^${update.oldSha}`]);
      await emit(tx, {
        kind: 'push', repoId: repo.id, doerId: push.pusherId,
        payload: { ref: update.ref, before: update.oldSha, after: update.newSha, commits },
      });
    }
    // Markers only guard against retries of recent jobs.
    await tx.query(`DELETE FROM synced_push WHERE created < now() - interval '7 days'`);
  }
  return 'done';
}

/** Pushed tags become tag releases (a release already on that tag follows it); deleted tags take theirs away. */
async function syncTags(tx: Tx, dir: string, repoId: number, pusherId: number | null, names: string[]): Promise<void> {
  if (names.length === 0) return;
  const present = await readTags(dir, names);
  for (const tag of present) {
    const numCommits = await countCommits(dir, [tag.commit]);
    const updated = await tx.query(
      `UPDATE release SET sha1 = $3, num_commits = $4 WHERE repo_id = $1 AND lower_tag_name = $2 AND sha1 <> $3 RETURNING id`,
      [repoId, tag.tag.toLowerCase(), tag.commit, numCommits],
    );
    if (updated.length) continue;
    await tx.query(
      `INSERT INTO release (repo_id, publisher_id, tag_name, lower_tag_name, title, note, sha1, num_commits, is_tag, created)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, true, $9) ON CONFLICT (repo_id, lower_tag_name) DO NOTHING`,
      [repoId, pusherId, tag.tag, tag.tag.toLowerCase(), tag.title, tag.note, tag.commit, numCommits, tag.created || new Date()],
    );
  }
  const gone = names.filter((name) => !present.some((t) => t.tag === name)).map((n) => n.toLowerCase());
  if (gone.length === 0) return;
  await tx.query('DELETE FROM release WHERE repo_id = $1 AND is_tag AND lower_tag_name = ANY($2::text[])', [repoId, gone]);
  // A release whose tag is gone becomes a draft again, as in Gitea, and stops counting as published.
  const drafted = await tx.query<{ was_draft: boolean }>(
    `UPDATE release r SET is_draft = true, num_commits = 0, sha1 = '' FROM release before
     WHERE before.id = r.id AND r.repo_id = $1 AND NOT r.is_tag AND r.lower_tag_name = ANY($2::text[])
     RETURNING before.is_draft AS was_draft`,
    [repoId, gone],
  );
  const unpublished = drafted.filter((row) => !row.was_draft).length;
  if (unpublished) await tx.query('UPDATE repository SET num_releases = GREATEST(num_releases - $2, 0) WHERE id = $1', [repoId, unpublished]);
}

/** The first push: the repository is no longer empty, and its default branch is one that exists. */
async function settleFirstPush(tx: Tx, dir: string, repo: RepoRow, pushed: string[]): Promise<void> {
  const names = (await tx.query<{ name: string }>('SELECT name FROM branch WHERE repo_id = $1 ORDER BY name', [repo.id])).map((r) => r.name);
  const defaultBranch = names.includes(repo.default_branch)
    ? repo.default_branch
    : (pushed.find((name) => names.includes(name)) ?? names[0]);
  await tx.query('UPDATE repository SET is_empty = false, default_branch = $2, updated = now() WHERE id = $1', [repo.id, defaultBranch]);
  if (defaultBranch === repo.default_branch) return;
  const previous = await gitOk(['symbolic-ref', 'HEAD'], { cwd: dir });
  await gitOk(['symbolic-ref', 'HEAD', `refs/heads/${defaultBranch}`], { cwd: dir });
  tx.onRollback(async () => {
    await gitOk(['symbolic-ref', 'HEAD', previous], { cwd: dir });
  });
}

// ---------------------------------------------------------------- branches made and removed through the API

/** Gitea's repository checks before a branch is written: archived 423, empty 404, mirror 403. */
export function assertBranchesWritable(repo: RepoRow): void {
  assertNotArchived(repo);
  if (repo.is_empty) throw new HttpError(404, 'Git Repository is empty.');
  if (repo.is_mirror) throw forbidden('Git Repository is a mirror.');
}

/** The commit a revision names, or null. */
export async function resolveCommit(dir: string, revision: string): Promise<string | null> {
  const result = await runGit(['rev-parse', '--verify', '--quiet', '--end-of-options', `${revision}^{commit}`], { cwd: dir });
  return result.code === 0 ? result.stdout.toString().trim() : null;
}

/** Refs that stop `name` from becoming a branch: itself, a tag of that name, or a branch above or below it. */
async function assertBranchNameFree(dir: string, name: string): Promise<void> {
  const parts = name.split('/');
  const ancestors = parts.slice(0, -1).map((_, i) => `refs/heads/${parts.slice(0, i + 1).join('/')}`);
  const result = await runGit(['for-each-ref', '--format=%(refname)', '--', `refs/heads/${name}`, `refs/tags/${name}`, ...ancestors], { cwd: dir });
  const refs = result.stdout.toString().split('\n').filter(Boolean);
  if (refs.includes(`refs/heads/${name}`)) throw conflict('The branch already exists.');
  if (refs.includes(`refs/tags/${name}`)) throw conflict('The branch with the same tag already exists.');
  if (refs.some((ref) => ref.startsWith(`refs/heads/${name}/`) || ancestors.includes(ref))) {
    throw conflict('The branch with the same name already exists.');
  }
}

/** Writes the ref and the row together: if the transaction does not commit, the ref is removed again. */
export async function createBranch(tx: Tx, git: GitStore, repo: RepoRow, doer: UserRow, name: string, commit: string): Promise<void> {
  assertValidBranchName(name);
  const dir = git.pathOf(repo.owner_name, repo.name);
  await assertBranchNameFree(dir, name);
  const [head] = await readCommitAsHead(dir, name, commit);
  try {
    await insertBranchRow(tx, repo.id, doer.id, head);
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('The branch already exists.');
    throw error;
  }
  const written = await runGit(['update-ref', '--no-deref', `refs/heads/${name}`, commit, ''], { cwd: dir });
  if (written.code !== 0) throw conflict('The branch already exists.');
  tx.onRollback(async () => {
    await gitOk(['update-ref', '--no-deref', '-d', `refs/heads/${name}`, commit], { cwd: dir });
  });
  await emit(tx, {
    kind: 'push', repoId: repo.id, doerId: doer.id,
    payload: { ref: `refs/heads/${name}`, before: '0'.repeat(commit.length), after: commit, commits: 0 },
  });
}

async function insertBranchRow(tx: Tx, repoId: number, pusherId: number, head: HeadCommit): Promise<void> {
  await tx.query(
    `INSERT INTO branch (repo_id, name, commit_id, commit_message, commit_time, pusher_id) VALUES ($1, $2, $3, $4, $5, $6)`,
    [repoId, head.branch, head.sha, summaryOf(head.message), head.committerDate, pusherId],
  );
}

/** The commit as a would-be head of `branch`, read with the same fields as real heads. */
async function readCommitAsHead(dir: string, branch: string, commit: string): Promise<HeadCommit[]> {
  const format = ['%H', '%an', '%ae', '%aI', '%cn', '%ce', '%cI', '%B'].join('%x00');
  const output = await gitOk(['log', '-1', `--format=${format}`, commit, '--'], { cwd: dir });
  const [sha, authorName, authorEmail, authorDate, committerName, committerEmail, committerDate, message] = output.split('\0');
  return [{ branch, sha, authorName, authorEmail, authorDate, committerName, committerEmail, committerDate, message }];
}

/**
 * Deletes a branch through the API: never the default branch, never a protected one (403, as in Gitea).
 * The ref goes after the row; if the transaction does not commit, the ref is put back.
 */
export async function deleteBranch(tx: Tx, git: GitStore, repo: RepoRow, doer: UserRow, name: string): Promise<void> {
  if (name === repo.default_branch) throw forbidden('can not delete default branch');
  if (effectiveProtection(await listProtections(tx, repo.id), name)) throw forbidden('branch protected');
  const dir = git.pathOf(repo.owner_name, repo.name);
  const [head] = await readHeads(dir, [name]);
  if (!head) throw notFound(`branch ${name} does not exist`);
  await tx.query('DELETE FROM branch WHERE repo_id = $1 AND name = $2', [repo.id, name]);
  const removed = await runGit(['update-ref', '--no-deref', '-d', `refs/heads/${name}`, head.sha], { cwd: dir });
  if (removed.code !== 0) throw conflict(`branch ${name} changed while it was being deleted`);
  tx.onRollback(async () => {
    await gitOk(['update-ref', '--no-deref', `refs/heads/${name}`, head.sha, ''], { cwd: dir });
  });
  await emit(tx, {
    kind: 'push', repoId: repo.id, doerId: doer.id,
    payload: { ref: `refs/heads/${name}`, before: head.sha, after: '0'.repeat(head.sha.length), commits: 0 },
  });
}

/** Site users whose (activated) addresses appear on commits: e-mail (lower-cased) → user name. */
export async function userNamesByEmail(db: Queryable, emails: string[]): Promise<Map<string, string>> {
  const wanted = [...new Set(emails.filter(Boolean).map((e) => e.toLowerCase()))];
  if (wanted.length === 0) return new Map();
  const rows = await db.query<{ email: string; name: string }>(
    `SELECT e.lower_email AS email, u.name FROM email_address e JOIN "user" u ON u.id = e.uid
     WHERE e.lower_email = ANY($1::text[]) AND e.is_activated`,
    [wanted],
  );
  return new Map(rows.map((r) => [r.email, r.name]));
}
