import type { Queryable, Tx } from '../../data-source.js';
import { accessModes, type AccessMode } from '../repos/repo-row.js';
import { toUserRow, userTypes, type UserRow } from '../users/user-row.js';
import { tokenHash } from './runners.js';

/**
 * The bot user workflows act as (Gitea's ActionsUser `gitea-actions`, id -2): a task token authenticates as it.
 * `hearth-actions` and `service-actions` are reserved names; the bot is `hearth-actions`. What it causes triggers
 * no workflow.
 */
export const actionsBotId = -2;
export const actionsBotName = 'hearth-actions';

export function isActionsBot(user: Pick<UserRow, 'id'> | null): boolean {
  return user?.id === actionsBotId;
}

/**
 * The bot's row, made the first time a task is handed out (rows that name a doer point at it). A bot (Gitea's
 * UserTypeBot) that nobody can sign in as: no password, and basic authentication only looks at individuals.
 */
export async function ensureActionsBot(tx: Tx): Promise<void> {
  await tx.query(
    `INSERT INTO "user" (id, lower_name, name, full_name, email, keep_email_private, login_name, type)
     VALUES ($1, $2, $2, 'Hearth Actions', $3, true, $2, $4) ON CONFLICT DO NOTHING`,
    [actionsBotId, actionsBotName, `${actionsBotName}@noreply.invalid`, userTypes.bot],
  );
}

/** The bot's row, once it has been made. */
export async function findActionsBot(db: Queryable): Promise<UserRow | null> {
  const [raw] = await db.query('SELECT * FROM "user" WHERE id = $1', [actionsBotId]);
  return raw ? toUserRow(raw) : null;
}

/**
 * The bot acting for the running task whose token this is (Gitea's GetRunningTaskByToken): write access to the
 * run's repository, read only for a run of a fork's pull request, none elsewhere. Null for any other text, and once
 * the task has ended.
 */
export async function authenticateTaskToken(db: Queryable, token: string): Promise<UserRow | null> {
  if (!/^[0-9a-f]{40}$/.test(token)) return null;
  const [raw] = await db.query<Record<string, unknown> & { task_id: string; task_repo_id: string; read_only: boolean }>(
    `SELECT t.id AS task_id, t.repo_id AS task_repo_id, r.is_fork_pull_request AS read_only, u.*
     FROM action_task t JOIN action_run_job j ON j.id = t.job_id JOIN action_run r ON r.id = j.run_id JOIN "user" u ON u.id = $2
     WHERE t.token_hash = $1 AND t.status = 'running'`,
    [tokenHash(token), actionsBotId],
  );
  if (!raw) return null;
  const { task_id, task_repo_id, read_only, ...user } = raw;
  const mode: AccessMode = read_only ? accessModes.read : accessModes.write;
  return { ...toUserRow(user), actions_task: { task_id: Number(task_id), repo_id: Number(task_repo_id), mode } };
}
