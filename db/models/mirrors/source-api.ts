import { Agent, fetch } from 'undici';
import { z } from 'zod';
import type { Tx } from '../../data-source.js';
import type { RemoteAccess } from '../../git/remote.js';
import { createComment } from '../issues/comments.js';
import { createIssue, setIssueClosed } from '../issues/issues.js';
import { createMilestone } from '../issues/milestones.js';
import { createLabel, type LabelRow } from '../orgs/labels.js';
import type { RepoRow } from '../repos/repo-row.js';
import type { UserRow } from '../users/user-row.js';
import { insertImportedPull, insertImportedReviews, readSourceReviews, sourceAccount, sourcePullFields, type PullFacts, type SourceReview } from './pull-import.js';

// What a migration with `service` gitea, forgejo or gogs reads through the source's own API (Gitea's v1 API, which
// Hearth speaks too, and Gogs' older dialect of it): labels, milestones, issues with their comments and reactions,
// pull requests with theirs and their reviews (not from Gogs, whose API has none, as in Gitea), and releases. Requests go to the address git was
// pinned to, with the same credentials (a token alone as a token, otherwise basic), and time out.

const apiTimeoutMs = 30_000;
const pageSize = 50;
/** No source list is read past this many pages (100,000 items of Gitea's). */
const maxPages = 2_000;

const sourceLabel = z.object({ name: z.string(), color: z.string(), description: z.string().optional(), exclusive: z.boolean().optional() });
const sourceRelease = z.object({
  tag_name: z.string(),
  target_commitish: z.string().optional(),
  name: z.string().nullish(),
  body: z.string().nullish(),
  draft: z.boolean().optional(),
  prerelease: z.boolean().optional(),
  published_at: z.string().nullish(),
  created_at: z.string().nullish(),
});
const sourceMilestone = z.object({
  title: z.string(),
  description: z.string().nullish(),
  state: z.string().optional(),
  // Gitea's due_on, Gogs' deadline
  due_on: z.string().nullish(),
  deadline: z.string().nullish(),
  created_at: z.string().nullish(),
  closed_at: z.string().nullish(),
});
const sourceIssue = z.object({
  number: z.number().int().positive(),
  title: z.string(),
  body: z.string().nullish(),
  user: sourceAccount,
  state: z.string(),
  labels: z.array(z.object({ name: z.string() })).nullish(),
  milestone: z.object({ title: z.string() }).nullish(),
  created_at: z.string().nullish(),
  updated_at: z.string().nullish(),
  closed_at: z.string().nullish(),
  due_date: z.string().nullish(),
  is_locked: z.boolean().optional(),
  pull_request: z.unknown().optional(),
});
const sourcePull = sourceIssue.omit({ pull_request: true }).extend(sourcePullFields);
const sourceComment = z.object({
  id: z.number().int().positive(), body: z.string().nullish(), user: sourceAccount, created_at: z.string().nullish(), updated_at: z.string().nullish(),
});
const sourceReaction = z.object({ user: sourceAccount, content: z.string().min(1), created_at: z.string().nullish() });
export type SourceLabel = z.infer<typeof sourceLabel>;
export type SourceRelease = z.infer<typeof sourceRelease>;
export type SourceMilestone = z.infer<typeof sourceMilestone>;
export type SourceReaction = z.infer<typeof sourceReaction>;
export type SourceComment = z.infer<typeof sourceComment> & { reactions: SourceReaction[] };
/** What issues and pull requests share: their conversation and the reactions to them. */
interface Discussed {
  comments: SourceComment[];
  reactions: SourceReaction[];
}
export type SourceIssue = z.infer<typeof sourceIssue> & Discussed;
export type SourcePull = z.infer<typeof sourcePull> & Discussed & { reviews: SourceReview[] };

export interface SourceData {
  labels: SourceLabel[];
  milestones: SourceMilestone[];
  issues: SourceIssue[];
  pulls: SourcePull[];
  releases: SourceRelease[];
  /** What could not be read and was done without (reactions, reviews), for the migration task. */
  warnings: string[];
}

/** What a migration asked to read. */
export interface SourceWanted {
  labels: boolean;
  milestones: boolean;
  issues: boolean;
  pullRequests: boolean;
  releases: boolean;
}

export type SourceService = 'gitea' | 'forgejo' | 'gogs';

/** The source repository's API address from its clone address: `…/owner/repo(.git)` → `…/api/v1/repos/owner/repo`. */
function apiBaseOf(cloneUrl: string): URL {
  const url = new URL(cloneUrl);
  const parts = url.pathname.replace(/\/+$/, '').replace(/\.git$/i, '').split('/');
  const [repo, owner] = [parts.pop(), parts.pop()];
  if (!repo || !owner) throw new Error('the clone address names no owner and repository for the source API');
  return new URL(`${parts.join('/')}/api/v1/repos/${owner}/${repo}/`, url.origin);
}

/** The source API of one migration: its address, a connection pinned to the checked address, its credentials. */
export class SourceApi {
  private readonly dispatcher: Agent;
  private readonly headers: Record<string, string> = { Accept: 'application/json' };
  /** The reads done without so far (see orWarn). */
  readonly warnings: string[] = [];

  constructor(
    remote: RemoteAccess,
    private readonly base: URL,
    private readonly service: SourceService,
    /** Ends every request once the migration's time (`[git.timeout] MIGRATE`) is up. */
    private readonly deadline: AbortSignal,
  ) {
    const pin = remote.pin;
    this.dispatcher = new Agent({
      connect: {
        timeout: apiTimeoutMs,
        // Connect to the address the outbound check approved, whatever the name resolves to now.
        lookup: (_host, options, callback) => {
          const family = pin && pin.address.includes(':') ? 6 : 4;
          if (!pin) return callback(new Error('no checked address to connect to'), '', 4);
          if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [{ address: pin.address, family }]);
          return callback(null, pin.address, family);
        },
      },
    });
    const credentials = remote.credentials;
    // An `auth_token` alone (stored as the password of `oauth2`) goes as a token, as Gitea's downloaders send it.
    if (credentials?.username === 'oauth2') this.headers.Authorization = `token ${credentials.password}`;
    else if (credentials) this.headers.Authorization = `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`;
  }

  /**
   * Every page of a list endpoint, each item checked. Gitea pages by `limit`; Gogs pages issues by its own size and
   * answers other lists whole whatever the page, so a page that repeats the previous one ends the list too.
   */
  async list<T>(endpoint: string, schema: z.ZodType<T>, query: Record<string, string> = {}): Promise<T[]> {
    const items: T[] = [];
    let previous = '';
    for (let page = 1; page <= maxPages; page++) {
      const url = new URL(endpoint, this.base);
      for (const [name, value] of Object.entries({ ...query, page: String(page), limit: String(pageSize) })) url.searchParams.set(name, value);
      const raw = await this.read(url, endpoint);
      const batch = z.array(schema).parse(raw);
      const fingerprint = JSON.stringify(raw);
      if (batch.length === 0 || fingerprint === previous) return items;
      items.push(...batch);
      if (this.service !== 'gogs' && batch.length < pageSize) return items;
      previous = fingerprint;
    }
    throw new Error(`the source API lists more than ${maxPages} pages of ${endpoint}`);
  }

  /** One page as JSON, within 30 s and within the migration's time; a read that runs out of time says so. */
  private async read(url: URL, endpoint: string): Promise<unknown> {
    const signal = AbortSignal.any([AbortSignal.timeout(apiTimeoutMs), this.deadline]);
    try {
      const response = await fetch(url, { headers: this.headers, dispatcher: this.dispatcher, redirect: 'manual', signal });
      if (!response.ok) throw new Error(`the source API answered ${response.status} for ${endpoint}`);
      return (await response.json()) as unknown;
    } catch (error) {
      if (!signal.aborted) throw error;
      throw new Error(this.deadline.aborted
        ? `the source API did not answer ${endpoint} within the migration's time ([git.timeout] MIGRATE)`
        : `the source API did not answer ${endpoint} within ${apiTimeoutMs / 1000} s`);
    }
  }

  /**
   * A read the migration can do without (reactions, reviews): when it fails, a warning is kept and `fallback` is
   * what was read, and the migration goes on (Gitea's downloader warns of reactions it cannot load).
   */
  async orWarn<T>(what: string, read: () => Promise<T>, fallback: T): Promise<T> {
    try {
      return await read();
    } catch (error) {
      this.warnings.push(`Unable to load ${what}: ${error instanceof Error ? error.message : String(error)}`);
      return fallback;
    }
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }
}

/** Issues without pull requests (Gitea's `type=issues`; Gogs lists open and closed issues apart). */
async function readIssues(api: SourceApi, service: SourceService): Promise<SourceIssue[]> {
  const listed = service === 'gogs'
    ? [...(await api.list('issues', sourceIssue, { state: 'open' })), ...(await api.list('issues', sourceIssue, { state: 'closed' }))]
    : await api.list('issues', sourceIssue, { state: 'all', type: 'issues' });
  const issues = listed.filter((issue) => !issue.pull_request).sort((a, b) => a.number - b.number);
  const done: SourceIssue[] = [];
  for (const issue of issues) done.push({ ...issue, ...(await readDiscussion(api, service, issue.number)) });
  return done;
}

/**
 * An issue's or pull request's comments and the reactions to it and to each comment, as Gitea's downloader reads
 * them (`/issues/{index}/reactions`, `/issues/comments/{id}/reactions`); Gogs' API has no reactions. Reactions that
 * cannot be read are a warning, not a failure.
 */
async function readDiscussion(api: SourceApi, service: SourceService, number: number): Promise<Discussed> {
  const comments = await api.list(`issues/${number}/comments`, sourceComment);
  if (service === 'gogs') return { comments: comments.map((comment) => ({ ...comment, reactions: [] })), reactions: [] };
  const withReactions: SourceComment[] = [];
  for (const comment of comments) {
    const reactions = await api.orWarn(`the reactions to comment ${comment.id} of #${number}`, () => api.list(`issues/comments/${comment.id}/reactions`, sourceReaction), []);
    withReactions.push({ ...comment, reactions });
  }
  return { comments: withReactions, reactions: await api.orWarn(`the reactions to #${number}`, () => api.list(`issues/${number}/reactions`, sourceReaction), []) };
}

/**
 * Pull requests with their conversation, reactions and reviews (Gogs is never asked: its API has no pull requests).
 * A pull request whose reviews (or their code comments) cannot be read comes without reviews, and a warning.
 */
async function readPulls(api: SourceApi, service: SourceService): Promise<SourcePull[]> {
  const pulls = (await api.list('pulls', sourcePull, { state: 'all' })).sort((a, b) => a.number - b.number);
  const done: SourcePull[] = [];
  for (const pull of pulls) {
    const reviews = await api.orWarn(`the reviews of pull request #${pull.number}`, () => readSourceReviews(api, pull.number), []);
    done.push({ ...pull, ...(await readDiscussion(api, service, pull.number)), reviews });
  }
  return done;
}

/** Reads what was asked for; nothing is read for a local source. */
export async function readSourceData(remote: RemoteAccess, service: SourceService, wanted: SourceWanted, timeoutMs: number): Promise<SourceData> {
  const data: SourceData = { labels: [], milestones: [], issues: [], pulls: [], releases: [], warnings: [] };
  if (!remote.pin) return data;
  const api = new SourceApi(remote, apiBaseOf(remote.url), service, AbortSignal.timeout(timeoutMs));
  try {
    if (wanted.labels) data.labels = await api.list('labels', sourceLabel);
    if (wanted.milestones) data.milestones = await api.list('milestones', sourceMilestone, { state: 'all' });
    if (wanted.issues) data.issues = await readIssues(api, service);
    if (wanted.pullRequests) data.pulls = await readPulls(api, service);
    if (wanted.releases) data.releases = await api.list('releases', sourceRelease);
    data.warnings = api.warnings;
  } finally {
    await api.close();
  }
  return data;
}

const dateOf = (text: string | null | undefined): Date | null => {
  const date = text ? new Date(text) : null;
  return date && !Number.isNaN(date.getTime()) ? date : null;
};

/** The source's account as Gitea's migrations keep it on what it wrote: its name and its id there. */
const authorOf = (user: z.infer<typeof sourceAccount>): { name: string; id: number } => ({ name: user?.login || user?.username || '', id: user?.id ?? 0 });

/**
 * The source's reactions to an issue (`commentId` null) or a comment, by the migrating user with the source's
 * account kept as `original_author` (Gitea's migrated reactions); one per account and kind.
 */
async function insertReactions(tx: Tx, issueId: number, commentId: number | null, doer: UserRow, reactions: SourceReaction[]): Promise<void> {
  if (reactions.length === 0) return;
  await tx.query(
    `INSERT INTO reaction (type, issue_id, comment_id, user_id, original_author, original_author_id, created)
     SELECT r.type, $1, $2, $3, r.author, r.author_id, COALESCE(r.created, now())
     FROM jsonb_to_recordset($4::jsonb) AS r (type text, author text, author_id bigint, created timestamptz)
     ON CONFLICT DO NOTHING`,
    [issueId, commentId, doer.id, JSON.stringify(reactions.map((reaction) => {
      const author = authorOf(reaction.user);
      return { type: reaction.content, author: author.name, author_id: author.id, created: dateOf(reaction.created_at)?.toISOString() ?? null };
    }))],
  );
}

/** A pull request to import: what the source said, and its git facts here. */
export interface PullToImport {
  source: SourcePull;
  facts: PullFacts;
}

/**
 * Issues and pull requests keep their numbers (in the source's order, so each takes the next index), state, labels,
 * milestone, dates, comments and reactions, and pull requests their reviews; what the source's users wrote is posted by
 * the migrating user with the source's author kept as `original_author`, as Gitea's migrations do for users without a
 * linked account. A merged pull request is closed by its merge. Assignees are not imported: they name accounts of
 * the source that have none here (Gitea's uploader leaves them too).
 */
async function importIssues(
  tx: Tx, repo: RepoRow, doer: UserRow, issues: SourceIssue[], pulls: PullToImport[], labels: Map<string, LabelRow>, milestones: Map<string, number>,
): Promise<void> {
  const items = [...issues.map((source) => ({ source, pull: null })), ...pulls.map((pull) => ({ source: pull.source, pull }))]
    .sort((a, b) => a.source.number - b.source.number);
  for (const { source, pull } of items) {
    // the next index allocated is the source's number
    await tx.query(
      `INSERT INTO issue_index (repo_id, max_index) VALUES ($1, $2) ON CONFLICT (repo_id) DO UPDATE SET max_index = EXCLUDED.max_index`,
      [repo.id, source.number - 1],
    );
    const issue = await createIssue(tx, repo, doer, {
      title: [...source.title].slice(0, 255).join('') || `#${source.number}`,
      body: source.body ?? '',
      deadline: dateOf(source.due_date),
      milestoneId: source.milestone ? (milestones.get(source.milestone.title) ?? null) : null,
      labels: (source.labels ?? []).map((l) => labels.get(l.name)).filter((l): l is LabelRow => l !== undefined),
      isPull: pull !== null,
    });
    if (pull) await insertImportedPull(tx, repo, issue, doer, pull.source, pull.facts);
    await insertReactions(tx, issue.id, null, doer, source.reactions);
    for (const comment of source.comments) {
      if (!comment.body?.trim()) continue;
      const row = await createComment(tx, repo, issue, doer, comment.body, true);
      const author = authorOf(comment.user);
      await tx.query(
        `UPDATE comment SET original_author = $2, original_author_id = $3, created = COALESCE($4, created), updated = COALESCE($5, $4, updated) WHERE id = $1`,
        [row.id, author.name, author.id, dateOf(comment.created_at), dateOf(comment.updated_at)],
      );
      await insertReactions(tx, issue.id, row.id, doer, comment.reactions);
    }
    if (pull) await insertImportedReviews(tx, issue, doer, pull.source, pull.facts);
    if (pull?.source.merged) await setIssueClosed(tx, repo, issue, doer, true, { commitId: pull.source.merge_commit_sha ?? '', merged: true });
    else if (source.state === 'closed') await setIssueClosed(tx, repo, issue, doer, true);
    const author = authorOf(source.user);
    await tx.query(
      `UPDATE issue SET original_author = $2, original_author_id = $3, is_locked = $4, created = COALESCE($5, created),
         updated = COALESCE($6, $5, updated), closed_at = CASE WHEN is_closed THEN COALESCE($7, closed_at) END WHERE id = $1`,
      [issue.id, author.name, author.id, source.is_locked ?? false, dateOf(source.created_at), dateOf(source.updated_at), dateOf(source.closed_at)],
    );
  }
}

/**
 * Writes what was read into the new repository with the model operations: labels, milestones, issues and pull
 * requests (those whose head commit is here), then releases (a release replaces the tag release of its tag: its
 * title, notes, draft and pre-release state, date). The caller runs it inside withoutEvents: imported history
 * reaches no webhook, notification or mail.
 */
export async function importSourceData(tx: Tx, repo: RepoRow, doer: UserRow, data: SourceData, pulls: PullToImport[]): Promise<void> {
  const labels = new Map<string, LabelRow>();
  for (const label of data.labels) {
    labels.set(label.name, await createLabel(tx, { repoId: repo.id }, { name: label.name, color: label.color, description: label.description, exclusive: label.exclusive }));
  }
  const milestones = new Map<string, number>();
  for (const milestone of data.milestones) {
    const row = await createMilestone(tx, repo.id, {
      title: milestone.title, description: milestone.description ?? '', due_on: dateOf(milestone.due_on ?? milestone.deadline) ?? undefined,
      state: milestone.state === 'closed' ? 'closed' : 'open',
    });
    await tx.query('UPDATE milestone SET created = COALESCE($2, created), closed_at = CASE WHEN is_closed THEN COALESCE($3, closed_at) END WHERE id = $1', [
      row.id, dateOf(milestone.created_at), dateOf(milestone.closed_at),
    ]);
    milestones.set(milestone.title, row.id);
  }
  await importIssues(tx, repo, doer, data.issues, pulls, labels, milestones);
  for (const release of data.releases) {
    await tx.query(
      `INSERT INTO release (repo_id, publisher_id, tag_name, lower_tag_name, target, title, note, is_draft, is_prerelease, is_tag, created)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, false, COALESCE($10::timestamptz, now()))
       ON CONFLICT (repo_id, lower_tag_name) DO UPDATE SET title = EXCLUDED.title, note = EXCLUDED.note, target = EXCLUDED.target,
         is_draft = EXCLUDED.is_draft, is_prerelease = EXCLUDED.is_prerelease, is_tag = false, created = EXCLUDED.created, publisher_id = EXCLUDED.publisher_id`,
      [
        repo.id, doer.id, release.tag_name, release.tag_name.toLowerCase(), release.target_commitish ?? '', release.name ?? '', release.body ?? '',
        release.draft ?? false, release.prerelease ?? false, release.published_at || release.created_at || null,
      ],
    );
  }
  if (data.releases.length > 0) {
    await tx.query(
      'UPDATE repository SET num_releases = (SELECT count(*) FROM release WHERE repo_id = $1 AND NOT is_tag AND NOT is_draft) WHERE id = $1',
      [repo.id],
    );
  }
}
