import type { Queryable } from '../../data-source.js';

/** NodeInfo's usage statistics, as Gitea counts them: individual accounts, and those signed in lately. */
export interface NodeUsage {
  users: { total: number; activeHalfyear: number; activeMonth: number };
  /** Issues and pull requests: Gitea's CountIssues. */
  localPosts: number;
}

export async function countNodeUsage(db: Queryable): Promise<NodeUsage> {
  const [row] = await db.query<{ total: number; half: number; month: number; posts: number }>(
    `SELECT
       (SELECT count(*)::int FROM "user" WHERE type = 0) AS total,
       (SELECT count(*)::int FROM "user" WHERE type = 0 AND last_login > now() - interval '6 months') AS half,
       (SELECT count(*)::int FROM "user" WHERE type = 0 AND last_login > now() - interval '1 month') AS month,
       (SELECT COALESCE(sum(num_issues + num_pulls), 0)::int FROM repository) AS posts`,
  );
  return { users: { total: row.total, activeHalfyear: row.half, activeMonth: row.month }, localPosts: row.posts };
}
