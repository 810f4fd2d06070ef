import type { Queryable } from '../../data-source.js';
import type { IssueRow } from '../issues/issue-row.js';
import { issuesByIds } from '../issues/issues.js';
import type { PullRow } from './pull-row.js';

/** What repoListPullRequests filters and sorts by. */
export interface PullFilter {
  state: 'open' | 'closed' | 'all';
  sort?: 'oldest' | 'recentupdate' | 'leastupdate' | 'mostcomment' | 'leastcomment' | 'priority';
  milestoneId?: number;
  labelIds?: number[];
  posterId?: number;
}

/** Gitea's sortIssuesSession for the sorts the pull request list takes; the default is newest first. */
const orders: Record<NonNullable<PullFilter['sort']> | 'newest', string> = {
  newest: 'i.created DESC, i.id DESC',
  oldest: 'i.created ASC, i.id ASC',
  recentupdate: 'i.updated DESC, i.created DESC, i.id DESC',
  leastupdate: 'i.updated ASC, i.created ASC, i.id ASC',
  mostcomment: 'i.num_comments DESC, i.created DESC, i.id DESC',
  leastcomment: 'i.num_comments ASC, i.created DESC, i.id DESC',
  priority: 'i.priority DESC, i.created DESC, i.id DESC',
};

/** A page of a repository's pull requests with their issues, and how many match in all. */
export async function listPulls(
  db: Queryable, repoId: number, filter: PullFilter, page: { limit: number; offset: number },
): Promise<{ rows: Array<{ pull: PullRow; issue: IssueRow }>; total: number }> {
  const where = ['p.base_repo_id = $1'];
  const params: unknown[] = [repoId];
  if (filter.state !== 'all') where.push(filter.state === 'closed' ? 'i.is_closed' : 'NOT i.is_closed');
  if (filter.milestoneId) {
    params.push(filter.milestoneId);
    where.push(`i.milestone_id = $${params.length}`);
  }
  if (filter.posterId) {
    params.push(filter.posterId);
    where.push(`i.poster_id = $${params.length}`);
  }
  for (const labelId of filter.labelIds ?? []) {
    params.push(labelId);
    where.push(`EXISTS (SELECT 1 FROM issue_label l WHERE l.issue_id = i.id AND l.label_id = $${params.length})`);
  }
  const from = `FROM pull_request p JOIN issue i ON i.id = p.issue_id WHERE ${where.join(' AND ')}`;
  const [{ total }] = await db.query<{ total: number }>(`SELECT count(*)::int AS total ${from}`, params);
  const ids = await db.query<{ id: number }>(
    `SELECT p.id ${from} ORDER BY ${orders[filter.sort ?? 'newest']} LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, page.limit, page.offset],
  );
  const pulls = await db.query<PullRow>('SELECT * FROM pull_request WHERE id = ANY($1::bigint[])', [ids.map((row) => row.id)]);
  const issues = await issuesByIds(db, pulls.map((pull) => pull.issue_id));
  const byId = new Map(pulls.map((pull) => [pull.id, pull]));
  const rows = ids.map(({ id }) => byId.get(id)!).map((pull) => ({ pull, issue: issues.get(pull.issue_id)! }));
  return { rows, total };
}
