import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Queryable, Tx } from '../../data-source.js';
import type { PageWindow } from '../../sql.js';
import { settleRun } from './runs.js';

export interface RunnerRow {
  id: number;
  uuid: string;
  name: string;
  token_hash: string;
  owner_id: number | null;
  repo_id: number | null;
  version: string;
  labels: string[];
  ephemeral: boolean;
  last_online: Date | null;
  last_active: Date | null;
  created: Date;
}

export const toRunner = (raw: Record<string, unknown>): RunnerRow => ({
  ...(raw as unknown as RunnerRow),
  id: Number(raw.id),
  owner_id: raw.owner_id === null ? null : Number(raw.owner_id),
  repo_id: raw.repo_id === null ? null : Number(raw.repo_id),
});

export const tokenHash = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/** A runner counts as online for a minute after its last request (Gitea's RunnerOfflineTime). */
const offlineAfterMs = 60_000;

export function runnerStatus(runner: RunnerRow, busy: boolean): 'offline' | 'idle' | 'active' {
  if (!runner.last_online || Date.now() - runner.last_online.getTime() > offlineAfterMs) return 'offline';
  return busy ? 'active' : 'idle';
}

/** The name before a label's `:scheme` (`ubuntu-latest:docker://node:20` is `ubuntu-latest`). */
export const labelName = (label: string): string => label.split(':')[0].trim();

/** Gitea's label rule: a name, then optionally `:docker://image`, `:host` or `:lxc://...`. */
export function invalidLabel(labels: string[]): string | null {
  for (const label of labels) {
    const [name, ...rest] = label.split(':');
    if (!name.trim()) return label;
    const scheme = rest.join(':');
    if (scheme && !/^(host|docker:\/\/.*|lxc:\/\/.*)$/.test(scheme)) return label;
  }
  return null;
}

export interface NewRunner {
  name: string;
  version: string;
  labels: string[];
  ephemeral: boolean;
  ownerId: number;
  repoId: number;
}

/** A runner and its token, which is shown once: only its hash is kept. */
export async function registerRunner(tx: Tx, runner: NewRunner): Promise<{ row: RunnerRow; token: string }> {
  const token = randomBytes(20).toString('hex');
  const [raw] = await tx.query<Record<string, unknown>>(
    `INSERT INTO action_runner (uuid, name, token_hash, owner_id, repo_id, version, labels, ephemeral, last_online)
     VALUES ($1, $2, $3, NULLIF($4::bigint, 0), NULLIF($5::bigint, 0), $6, $7, $8, now()) RETURNING *`,
    [randomUUID(), runner.name, tokenHash(token), runner.ownerId, runner.repoId, runner.version, runner.labels, runner.ephemeral],
  );
  return { row: toRunner(raw), token };
}

/** The runner a request's `x-runner-uuid` and `x-runner-token` name, when the token is its own. */
export async function authenticateRunner(db: Queryable, uuid: string, token: string): Promise<RunnerRow | null> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(uuid) || !token) return null;
  const [raw] = await db.query<Record<string, unknown>>('SELECT * FROM action_runner WHERE uuid = $1', [uuid]);
  if (!raw) return null;
  const runner = toRunner(raw);
  const given = Buffer.from(tokenHash(token));
  const stored = Buffer.from(runner.token_hash);
  return given.length === stored.length && timingSafeEqual(given, stored) ? runner : null;
}

export async function touchRunner(db: Queryable, runnerId: number, active: boolean): Promise<void> {
  await db.query(`UPDATE action_runner SET last_online = now()${active ? ', last_active = now()' : ''} WHERE id = $1`, [runnerId]);
}

export async function declareRunner(tx: Tx, runner: RunnerRow, version: string, labels: string[]): Promise<RunnerRow> {
  const [raw] = await tx.query<Record<string, unknown>>(
    'UPDATE action_runner SET version = $2, labels = $3, last_online = now() WHERE id = $1 RETURNING *',
    [runner.id, version, labels],
  );
  return toRunner(raw);
}

/** Where a list of runners looks: the instance's (every runner), an owner's, or a repository's own runners. */
export type RunnerLevel = { kind: 'instance' } | { kind: 'owner'; ownerId: number } | { kind: 'repo'; repoId: number };

function levelCondition(level: RunnerLevel): { sql: string; params: unknown[] } {
  if (level.kind === 'instance') return { sql: 'true', params: [] };
  if (level.kind === 'owner') return { sql: 'owner_id = $1', params: [level.ownerId] };
  return { sql: 'repo_id = $1', params: [level.repoId] };
}

export async function listRunners(db: Queryable, level: RunnerLevel, page: PageWindow): Promise<{ rows: (RunnerRow & { busy: boolean })[]; total: number }> {
  const { sql, params } = levelCondition(level);
  const n = params.length;
  const [rows, [count]] = await Promise.all([
    db.query<Record<string, unknown>>(
      `SELECT r.*, EXISTS (SELECT 1 FROM action_task t WHERE t.runner_id = r.id AND t.status = 'running') AS busy
       FROM action_runner r WHERE ${sql} ORDER BY r.id LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...params, page.limit, page.offset],
    ),
    db.query<{ total: string }>(`SELECT count(*) AS total FROM action_runner WHERE ${sql}`, params),
  ]);
  return { rows: rows.map((raw) => ({ ...toRunner(raw), busy: Boolean(raw.busy) })), total: Number(count.total) };
}

/** Deletes a runner of the level; its running tasks end cancelled. False when the level has no such runner. */
export async function deleteRunner(tx: Tx, level: RunnerLevel, runnerId: number): Promise<boolean> {
  const { sql, params } = levelCondition(level);
  const [found] = await tx.query<{ id: string }>(`SELECT id FROM action_runner WHERE ${sql} AND id = $${params.length + 1} FOR UPDATE`, [...params, runnerId]);
  if (!found) return false;
  const jobs = await tx.query<{ job_id: string; run_id: string }>(
    `UPDATE action_task t SET status = 'cancelled', stopped = now(), updated = now() FROM action_run_job j
     WHERE t.runner_id = $1 AND t.status = 'running' AND j.id = t.job_id RETURNING t.job_id, j.run_id`,
    [runnerId],
  );
  for (const job of jobs) {
    await tx.query(`UPDATE action_run_job SET status = 'cancelled', stopped = now(), updated = now() WHERE id = $1 AND status = 'running'`, [job.job_id]);
  }
  await tx.query('DELETE FROM action_runner WHERE id = $1', [runnerId]);
  for (const runId of new Set(jobs.map((j) => Number(j.run_id)))) await settleRun(tx, runId);
  return true;
}

/** The runner that took each task, by task id, in one query. */
export async function findRunnersOfTasks(db: Queryable, taskIds: number[]): Promise<Map<number, RunnerRow>> {
  const rows = await db.query<Record<string, unknown>>(
    'SELECT t.id AS task_id, r.* FROM action_task t JOIN action_runner r ON r.id = t.runner_id WHERE t.id = ANY($1::bigint[])', [taskIds],
  );
  return new Map(rows.map((raw) => [Number(raw.task_id), toRunner(raw)]));
}
