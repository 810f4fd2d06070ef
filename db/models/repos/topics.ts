import type { Queryable, Tx } from '../../data-source.js';
import { selectPage } from '../../sql.js';
import { invalid, notFound, type HttpError } from '../../errors.js';
import type { RepoRow } from './repo-row.js';
import { escapeLike } from '../users/users.js';

// topic.repo_count follows the repo_topic rows through a trigger (migration 1732000005000).

export const maxTopicsPerRepo = 25;
const topicPattern = /^[a-z0-9][-.a-z0-9]*$/;

export interface TopicRow {
  id: number;
  name: string;
  repo_count: number;
  created: Date;
  updated: Date;
}

export function isValidTopic(name: string): boolean {
  return name.length <= 35 && topicPattern.test(name);
}

/** Gitea's sanitizing: trimmed and lower-cased, empty and repeated names dropped, the rest sorted into valid and invalid. */
export function sanitizeTopics(names: readonly string[]): { valid: string[]; invalid: string[] } {
  const valid: string[] = [];
  const invalid: string[] = [];
  for (const raw of names) {
    const name = raw.trim().toLowerCase();
    if (!name || valid.includes(name)) continue;
    (isValidTopic(name) ? valid : invalid).push(name);
  }
  return { valid, invalid };
}

/** Gitea's 422 body for topics: the message and the offending names under `invalidTopics`. */
const topicsError = (message: string, invalidTopics: string[] | string | null): HttpError => invalid(message, { invalidTopics });

/** Replaces the repository's topics with `names`; refused whole when one is invalid or there are too many. */
export async function replaceTopics(tx: Tx, repo: RepoRow, names: readonly string[]): Promise<void> {
  const { valid, invalid } = sanitizeTopics(names);
  if (valid.length > maxTopicsPerRepo) throw topicsError('Exceeding maximum number of topics per repo', null);
  if (invalid.length > 0) throw topicsError(`Topic names are invalid: ${invalid.join(', ')}`, invalid);
  await lockTopics(tx, repo);
  const current = await repoTopicNames(tx, repo.id);
  for (const name of current.filter((n) => !valid.includes(n))) await detachTopic(tx, repo.id, name);
  for (const name of valid.filter((n) => !current.includes(n))) await attachTopic(tx, repo.id, name);
  await syncRepoTopics(tx, repo.id);
}

export async function addTopic(tx: Tx, repo: RepoRow, raw: string): Promise<void> {
  const name = raw.trim().toLowerCase();
  if (!isValidTopic(name)) throw topicsError(`Topic name is invalid: ${name}`, name);
  await lockTopics(tx, repo);
  const current = await repoTopicNames(tx, repo.id);
  if (current.includes(name)) return;
  if (current.length >= maxTopicsPerRepo) throw topicsError('Exceeding maximum allowed topics per repo.', null);
  await attachTopic(tx, repo.id, name);
  await syncRepoTopics(tx, repo.id);
}

/** Removes one topic; 404 when the repository does not have it. */
export async function deleteTopic(tx: Tx, repo: RepoRow, raw: string): Promise<void> {
  const name = raw.trim().toLowerCase();
  if (!isValidTopic(name)) throw topicsError(`Topic name is invalid: ${name}`, name);
  await lockTopics(tx, repo);
  if (!(await detachTopic(tx, repo.id, name))) throw notFound(`topic ${name} is not a topic of this repository`);
  await syncRepoTopics(tx, repo.id);
}

export async function listRepoTopics(
  db: Queryable,
  repoId: number,
  page: { limit: number; offset: number },
): Promise<{ names: string[]; total: number }> {
  const { rows, total } = await selectPage<{ name: string }>(db, {
    select: 't.name', from: 'repo_topic rt JOIN topic t ON t.id = rt.topic_id WHERE rt.repo_id = $1', params: [repoId], orderBy: 't.name', page,
  });
  return { names: rows.map((r) => r.name), total };
}

/** Topics whose name contains `keyword`, the most used first. */
export async function searchTopics(
  db: Queryable,
  keyword: string,
  page: { limit: number; offset: number },
): Promise<{ topics: TopicRow[]; total: number }> {
  const pattern = `%${escapeLike(keyword.trim().toLowerCase())}%`;
  const { rows, total } = await selectPage<TopicRow>(db, { select: '*', from: 'topic WHERE name LIKE $1', params: [pattern], orderBy: 'repo_count DESC, name', page });
  return { topics: rows, total };
}

/** Concurrent topic edits of one repository take turns, so the per-repository limit holds. */
async function lockTopics(tx: Tx, repo: RepoRow): Promise<void> {
  await tx.query('SELECT 1 FROM repository WHERE id = $1 FOR UPDATE', [repo.id]);
}

async function repoTopicNames(tx: Tx, repoId: number): Promise<string[]> {
  const rows = await tx.query<{ name: string }>(
    'SELECT t.name FROM repo_topic rt JOIN topic t ON t.id = rt.topic_id WHERE rt.repo_id = $1',
    [repoId],
  );
  return rows.map((r) => r.name);
}

async function attachTopic(tx: Tx, repoId: number, name: string): Promise<void> {
  const [topic] = await tx.query<{ id: number }>(
    'INSERT INTO topic (name) VALUES ($1) ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name RETURNING id',
    [name],
  );
  await tx.query('INSERT INTO repo_topic (repo_id, topic_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [repoId, topic.id]);
}

async function detachTopic(tx: Tx, repoId: number, name: string): Promise<boolean> {
  const removed = await tx.query(
    'DELETE FROM repo_topic rt USING topic t WHERE t.id = rt.topic_id AND rt.repo_id = $1 AND t.name = $2 RETURNING rt.topic_id',
    [repoId, name],
  );
  return removed.length > 0;
}

/** repository.topics mirrors the repo_topic rows, most used topic first, as Gitea keeps it. */
async function syncRepoTopics(tx: Tx, repoId: number): Promise<void> {
  await tx.query(
    `UPDATE repository SET topics = ARRAY(
       SELECT t.name FROM repo_topic rt JOIN topic t ON t.id = rt.topic_id WHERE rt.repo_id = $1 ORDER BY t.repo_count DESC, t.name)
     WHERE id = $1`,
    [repoId],
  );
}
