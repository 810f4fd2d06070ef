import type { ExecutionContext } from 'ava';
import type { RepoRow } from '../../db/models/repos/repo-row.js';
import { actionsBotName } from '../../db/models/actions/triggers.js';
import { toUserRow, type UserRow } from '../../db/models/users/user-row.js';
import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';

export const actionsOn = { HEARTH__actions__ENABLED: 'true' };

export async function actionsHearth(t: ExecutionContext, settings: Record<string, string> = {}): Promise<TestHearth> {
  return startHearth(t, { ...actionsOn, ...settings });
}

/** Commits files onto a branch (the default one unless named) and runs the jobs that follow: sync, notify, trigger. */
export async function push(h: TestHearth, repo: RepoRow, files: Record<string, string>, options: { branch?: string; newBranch?: string; by?: UserRow } = {}): Promise<string> {
  const written = await build.commit(h, repo, { files, branch: options.branch, newBranch: options.newBranch, by: options.by });
  await drain(h);
  return written.commitId;
}

/** The bot user's row, as Hearth would make it: its name is reserved, so the test inserts it. */
export async function makeBot(h: TestHearth): Promise<UserRow> {
  const [raw] = await h.store.db.query(
    `INSERT INTO "user" (lower_name, name, email, prohibit_login) VALUES ($1, $1, 'actions@hearth.invalid', true) RETURNING *`, [actionsBotName],
  );
  return toUserRow(raw);
}

export const runsOf = async (h: TestHearth, repo: RepoRow): Promise<{ workflow_path: string; status: string; event: string; is_scheduled: boolean; parse_error: string | null }[]> =>
  h.store.db.query('SELECT workflow_path, status, event, is_scheduled, parse_error FROM action_run WHERE repo_id = $1 ORDER BY id', [repo.id]);
