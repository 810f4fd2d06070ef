import type { Queryable } from '../../data-source.js';
import type { PageWindow } from '../../sql.js';
import type { RepoPreload } from '../access.js';
import type { RepoRow } from '../repos/repo-row.js';
import { issueViewVersionSql } from './issue-view-version.js';
import { reviewTypes } from '../reviews/review-row.js';
import { commentType } from './issue-row.js';

export type IssueState = 'open' | 'closed' | 'all';

/** Gitea's IssuesOptions as the list and search routes use them. */
export interface IssueFilter {
  state: IssueState;
  /** Unset: issues and pull requests alike. */
  isPull?: boolean;
  /** The issue carries every one of these labels. */
  labelIds?: number[];
  /** The issue is in one of these milestones. */
  milestoneIds?: number[];
  /** Words of the title, the body or a comment. */
  keyword?: string;
  /** Updated at or after / at or before. */
  since?: Date;
  before?: Date;
  posterId?: number;
  assigneeId?: number;
  mentionedId?: number;
  /** Gitea's ReviewRequestedID: pull requests of others whose latest request or verdict of this user (or their team) is a request. */
  reviewRequestedId?: number;
  /** Gitea's ReviewedID: pull requests of others this user (or their team) reviewed or commented on. */
  reviewedId?: number;
}

/** The WHERE conditions of a filter on `issue i`, adding their parameters to `params`. */
export function issueConditions(filter: IssueFilter, params: unknown[]): string[] {
  const conditions: string[] = [];
  if (filter.state !== 'all') conditions.push(`i.is_closed = $${params.push(filter.state === 'closed')}`);
  if (filter.isPull !== undefined) conditions.push(`i.is_pull = $${params.push(filter.isPull)}`);
  if (filter.labelIds?.length) {
    const ids = `$${params.push(filter.labelIds)}::bigint[]`;
    conditions.push(`(SELECT count(*) FROM issue_label il WHERE il.issue_id = i.id AND il.label_id = ANY(${ids})) = cardinality(${ids})`);
  }
  if (filter.milestoneIds) conditions.push(`i.milestone_id = ANY($${params.push(filter.milestoneIds)}::bigint[])`);
  if (filter.keyword) {
    const word = `$${params.push(filter.keyword.toLowerCase())}`;
    conditions.push(`(strpos(lower(i.title), ${word}) > 0 OR strpos(lower(i.content), ${word}) > 0
      OR EXISTS (SELECT 1 FROM comment c WHERE c.issue_id = i.id AND c.type = 0 AND strpos(lower(c.content), ${word}) > 0))`);
  }
  if (filter.since) conditions.push(`i.updated >= $${params.push(filter.since)}`);
  if (filter.before) conditions.push(`i.updated <= $${params.push(filter.before)}`);
  if (filter.posterId !== undefined) conditions.push(`i.poster_id = $${params.push(filter.posterId)}`);
  if (filter.assigneeId !== undefined) {
    conditions.push(`EXISTS (SELECT 1 FROM issue_assignees ia WHERE ia.issue_id = i.id AND ia.assignee_id = $${params.push(filter.assigneeId)})`);
  }
  if (filter.mentionedId !== undefined) {
    conditions.push(`EXISTS (SELECT 1 FROM issue_mention im WHERE im.issue_id = i.id AND im.user_id = $${params.push(filter.mentionedId)})`);
  }
  if (filter.reviewRequestedId !== undefined) {
    const user = `$${params.push(filter.reviewRequestedId)}`;
    // an approval or rejection answers the request: only the latest request or verdict per reviewer (or team) counts
    conditions.push(`i.poster_id <> ${user} AND i.id IN (
      SELECT r.issue_id FROM review r
      WHERE r.type = ${reviewTypes.request}
        AND (r.reviewer_id = ${user} OR r.reviewer_team_id IN (SELECT tu.team_id FROM team_user tu WHERE tu.uid = ${user}))
        AND r.id IN (
          SELECT max(m.id) FROM review m WHERE m.type IN (${reviewTypes.approve}, ${reviewTypes.reject}, ${reviewTypes.request})
          GROUP BY m.issue_id, m.reviewer_id, m.reviewer_team_id))`);
  }
  if (filter.reviewedId !== undefined) {
    const user = `$${params.push(filter.reviewedId)}`;
    conditions.push(`i.poster_id <> ${user} AND (
      i.id IN (SELECT r.issue_id FROM review r WHERE r.type <> ${reviewTypes.request}
        AND (r.reviewer_id = ${user} OR r.reviewer_team_id IN (SELECT tu.team_id FROM team_user tu WHERE tu.uid = ${user})))
      OR i.id IN (SELECT c.issue_id FROM comment c WHERE c.poster_id = ${user}
        AND c.type IN (${commentType.comment}, ${commentType.code}, ${commentType.review})))`);
  }
  return conditions;
}

/**
 * How many issues match a filter that names only the state and the type: the repository's counters say so, kept
 * in the transactions that create, close, reopen and delete issues. Null for any other filter.
 */
function countFromCounters(repo: RepoRow, filter: IssueFilter): number | null {
  const { state, isPull, ...rest } = filter;
  if (Object.values(rest).some((value) => value !== undefined)) return null;
  const counted = (all: number, closed: number): number => (state === 'open' ? all - closed : state === 'closed' ? closed : all);
  const issues = counted(repo.num_issues, repo.num_closed_issues);
  const pulls = counted(repo.num_pulls, repo.num_closed_pulls);
  return isPull === undefined ? issues + pulls : isPull ? pulls : issues;
}

/** An issue of a list by its id, with the version of its view (db/views/issues.ts issueViewVersionSql). */
export interface ListedIssue {
  id: number;
  view_version: string;
}

/**
 * A page of issues, newest first (Gitea's default "latest" order), as a JSON array of [id, view version]. The page is
 * chosen before the versions are computed (rows an OFFSET skips are still projected), as an array of ids: a plan that
 * does not know the page's size still reads them by primary key.
 */
const issuePageSql = (where: string, window: string): string => `(
  SELECT COALESCE(json_agg(json_build_array(i.id, ${issueViewVersionSql}) ORDER BY i.created DESC, i.id DESC), '[]')
  FROM issue i WHERE i.id = ANY(ARRAY(SELECT i.id FROM issue i WHERE ${where} ORDER BY i.created DESC, i.id DESC ${window})))`;

const listedIssues = (json: unknown): ListedIssue[] => (json as Array<[number, string]>).map(([id, version]) => ({ id, view_version: version }));

// by state, spelled once: the repository guard finds its prepared statement by the text
const preloadedPageSql: Record<IssueState, string> = {
  open: issuePageSql('i.repo_id = r.id AND NOT i.is_closed', 'LIMIT $1 OFFSET $2'),
  closed: issuePageSql('i.repo_id = r.id AND i.is_closed', 'LIMIT $1 OFFSET $2'),
  all: issuePageSql('i.repo_id = r.id', 'LIMIT $1 OFFSET $2'),
};

/**
 * The page of a repository's issues and pull requests in one state, as a preload of the repository guard: the list's
 * hot read in the guard's round trip. listIssues takes it for a filter that names nothing else. Its generic plan reads
 * the page from the list's index and the issues by primary key, whatever the page.
 */
export function issuePagePreload(state: IssueState, page: PageWindow): RepoPreload<ListedIssue[]> {
  return { sql: preloadedPageSql[state], values: [page.limit, page.offset], read: listedIssues, planOnce: true };
}

/** A repository's issues that match the filter, with the total it matches. */
export async function listIssues(
  db: Queryable, repo: RepoRow, filter: IssueFilter, page: PageWindow, preloaded?: ListedIssue[],
): Promise<{ rows: ListedIssue[]; total: number }> {
  const params: unknown[] = [repo.id];
  const where = ['i.repo_id = $1', ...issueConditions(filter, params)].join(' AND ');
  const counted = countFromCounters(repo, filter);
  if (preloaded && counted !== null && filter.isPull === undefined) return { rows: preloaded, total: counted };
  const total = counted ?? (await db.query<{ total: number }>(`SELECT count(*)::int AS total FROM issue i WHERE ${where}`, params))[0].total;
  const window = `LIMIT $${params.push(page.limit)} OFFSET $${params.push(page.offset)}`;
  const [{ listed }] = await db.query<{ listed: unknown }>(`SELECT ${issuePageSql(where, window)} AS listed`, params);
  return { rows: listedIssues(listed), total };
}

/** Label ids of the repository (and its organization) with these names; unknown names are left out. */
export async function labelIdsByNames(db: Queryable, repoId: number, ownerId: number, names: string[]): Promise<number[]> {
  if (names.length === 0) return [];
  const rows = await db.query<{ id: number }>(
    'SELECT id FROM label WHERE name = ANY($1::text[]) AND (repo_id = $2 OR org_id = $3)', [names, repoId, ownerId],
  );
  return rows.map((row) => row.id);
}

/** Gitea's milestone filter: each part names a milestone, else is tried as an id; unknown ones are discarded. */
export async function milestoneIdsByNamesOrIds(db: Queryable, repoId: number, parts: string[]): Promise<number[]> {
  if (parts.length === 0) return [];
  const ids = parts.filter((part) => /^\d{1,15}$/.test(part)).map(Number);
  const rows = await db.query<{ id: number }>(
    'SELECT id FROM milestone WHERE repo_id = $1 AND (lower(name) = ANY($2::text[]) OR id = ANY($3::bigint[]))',
    [repoId, parts.map((part) => part.toLowerCase()), ids],
  );
  return rows.map((row) => row.id);
}
